// The config table's data-parallel fields: the ranks, their synchronisation and the
// gradient they exchange (core/config/config_field_table.cpp holds the rest).

#include "core/config/config_field_macros.h"

namespace loaderlab::configtable {

using nlohmann::json;

std::vector<ConfigField> dataParallelFields()
{
    return {
        {.key = "devices",
         .type = FieldType::Integer,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Devices"),
         .help = QT_TRANSLATE_NOOP(
             "ConfigField",
             "Data-parallel ranks on this host, each with its own loader over a shard of every "
             "epoch, its own workers and its own model step (cuda:0..N-1 for a CUDA model, the CPU "
             "threads split for a CPU model, one simulated device each for the sleep step)."),
         .flag = "devices",
         .valueName = "n",
         .min = 1,
         .max = 64,
         MEMBER(devices)},
        {.key = "sync_devices",
         .type = FieldType::Boolean,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Synchronised steps"),
         .help = QT_TRANSLATE_NOOP(
             "ConfigField",
             "With several devices, every step waits for all ranks, as the gradient all-reduce of "
             "distributed training does; off: ranks run independently, as for inference."),
         .flag = "independent-devices",
         .flagSetsFalse = true,
         MEMBER(syncDevices)},
        {.key = "gradient_mb",
         .type = FieldType::Number,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Gradient"),
         .help = QT_TRANSLATE_NOOP(
             "ConfigField",
             "With synchronised devices, the float32 gradient each rank all-reduces with the "
             "others after every step, in MB, as DDP averages a model's gradients (c10d's gloo "
             "on this host): ResNet-50 102.2, ResNet-18 46.8, MobileNetV2 14.0. 0 = none, the "
             "ranks only wait for each other."),
         .flag = "gradient-mb",
         .valueName = "MB",
         .max = 1e6,
         MEMBER(gradientMb)},
        {.key = "comm_backend",
         .type = FieldType::Choice,
         .label = QT_TRANSLATE_NOOP("ConfigField", "Exchange backend"),
         .help = QT_TRANSLATE_NOOP("ConfigField",
                                   "The collective library's backend for the gradient "
                                   "exchange: gloo (CPU, TCP) or nccl (CUDA GPUs)."),
         .flag = "comm-backend",
         .valueName = "name",
         .choices = {"gloo", "nccl"},
         MEMBER(commBackend)},
    };
}

} // namespace loaderlab::configtable
