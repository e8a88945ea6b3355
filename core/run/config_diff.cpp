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
    return text.str();
}

} // namespace loaderlab
