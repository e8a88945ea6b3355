#include "core/consumer/gradient_exchange.h"

#include <mutex>
#include <stdexcept>

namespace loaderlab {

namespace {

std::mutex g_mutex;
ExchangeGroupFactory g_factory = nullptr;

} // namespace

void setExchangeGroupFactory(ExchangeGroupFactory factory)
{
    std::lock_guard lock(g_mutex);
    g_factory = factory;
}

ExchangeGroupFactory exchangeGroupFactory()
{
    std::lock_guard lock(g_mutex);
    return g_factory;
}

std::unique_ptr<ExchangeGroup> makeExchangeGroup(int ranks, const std::string &backend,
                                                 std::chrono::milliseconds timeout)
{
    if (!isExchangeBackend(backend))
        throw std::invalid_argument("no gradient exchange backend '" + backend
                                    + "' (gloo or nccl)");
    const ExchangeGroupFactory factory = exchangeGroupFactory();
    if (!factory)
        throw std::runtime_error("this build has no LibTorch, whose c10d library exchanges "
                                 "the gradient between ranks");
    return factory(ranks, backend, timeout);
}

bool isExchangeBackend(const std::string &name)
{
    return name == "gloo" || name == "nccl";
}

} // namespace loaderlab
