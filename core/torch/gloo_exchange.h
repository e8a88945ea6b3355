#pragma once

// The gradient exchange of LoaderLab's data-parallel ranks over c10d, the collective
// library of torch.distributed: ProcessGroupGloo on loopback TCP for the rank threads
// of one process, meeting through an in-process store. NCCL (CUDA GPUs) is refused
// with its reason in a LibTorch built without CUDA. Torch-free header.

#include "core/consumer/gradient_exchange.h"

namespace loaderlab::torchmodels {

// An ExchangeGroupFactory (core/consumer/gradient_exchange.h).
std::unique_ptr<ExchangeGroup> makeC10dExchangeGroup(int ranks, const std::string &backend,
                                                     std::chrono::milliseconds timeout);

} // namespace loaderlab::torchmodels
