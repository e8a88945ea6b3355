#include "core/run/config_diff.h"

#include <sstream>

namespace loaderlab {
namespace {

class ChangeText
{
public:
    template <typename T>
    void add(const char *name, const T &before, const T &after)
    {
        if (before == after)
            return;
        if (m_out.tellp() > 0)
            m_out << ", ";
        m_out << name << ' ' << before << " -> " << after;
    }
    void addFlag(const char *name, bool before, bool after)
    {
        add(name, std::string(before ? "on" : "off"), std::string(after ? "on" : "off"));
    }
    std::string str() const { return m_out.str(); }

private:
    std::ostringstream m_out;
};

} // namespace

std::string describeChange(const LoaderConfig &before, const LoaderConfig &after,
                           const ConsumerConfig &consumerBefore, const ConsumerConfig &consumerAfter)
{
    ChangeText text;
    text.add("workers", before.numWorkers, after.numWorkers);
    text.add("batch", before.batchSize, after.batchSize);
    text.add("prefetch", before.prefetchFactor, after.prefetchFactor);
    text.add("strategy", std::string(strategyName(before.strategy)),
             std::string(strategyName(after.strategy)));
    text.addFlag("shuffle", before.shuffle, after.shuffle);
    text.add("seed", before.seed, after.seed);
    text.addFlag("drop_last", before.dropLast, after.dropLast);
    text.addFlag("persistent", before.persistentWorkers, after.persistentWorkers);
    text.addFlag("pin_memory", before.pinMemory, after.pinMemory);
    text.addFlag("in_order", before.inOrder, after.inOrder);
    text.add("bad samples", std::string(badSamplePolicyName(before.badSamples)),
             std::string(badSamplePolicyName(after.badSamples)));
    text.add("consumer", std::string(consumerKindName(consumerBefore.kind)),
             std::string(consumerKindName(consumerAfter.kind)));
    text.add("sleep/batch ms", consumerBefore.sleepPerBatchMs, consumerAfter.sleepPerBatchMs);
    text.add("sleep/sample ms", consumerBefore.sleepPerSampleMs, consumerAfter.sleepPerSampleMs);
    // Model settings matter only to a model step; the GUI keeps them while the step
    // is simulated, and editing them then changes nothing in the run.
    if (consumerBefore.kind != ConsumerKind::Model && consumerAfter.kind != ConsumerKind::Model)
        return text.str();
    const ModelConfig &m0 = consumerBefore.model;
    const ModelConfig &m1 = consumerAfter.model;
    text.add("model", m0.name, m1.name);
    text.add("model file", m0.scriptPath, m1.scriptPath);
    text.add("mode", std::string(modelModeName(m0.mode)), std::string(modelModeName(m1.mode)));
    text.add("device", m0.device, m1.device);
    text.add("precision", std::string(modelPrecisionName(m0.precision)),
             std::string(modelPrecisionName(m1.precision)));
    text.addFlag("channels_last", m0.channelsLast, m1.channelsLast);
    text.add("threads", m0.threads, m1.threads);
    text.addFlag("checkpointing", m0.checkpointing, m1.checkpointing);
    text.add("optimizer", m0.optimizer, m1.optimizer);
    text.add("lr", m0.learningRate, m1.learningRate);
    text.add("classes", m0.numClasses, m1.numClasses);
    return text.str();
}

} // namespace loaderlab
