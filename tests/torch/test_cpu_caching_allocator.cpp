// Tests for LibTorch's CPU allocator while model steps run (core/torch/
// cpu_caching_allocator.h): freed blocks come back to an allocation of their size, small
// ones are not kept, the limit frees what would go over it, oneDNN's raw allocations
// share the deleter, and a model's second step takes every block from the cache with
// the same output.
#include "core/torch/cpu_caching_allocator.h"
#include "core/torch/torch_consumer.h"
#include "tests/support/test_main.h"

#include <c10/core/CPUAllocator.h>
#include <torch/torch.h>

#include <QtTest/QtTest>

#include <cstdlib>

using namespace loaderlab;
using namespace loaderlab::torchmodels;

namespace {

// A float32 tensor of `bytes` bytes, from LibTorch's CPU allocator.
torch::Tensor tensorOfBytes(std::int64_t bytes)
{
    return torch::empty({bytes / 4}, torch::kFloat32);
}

constexpr std::int64_t kCacheMiB = 1024 * 1024;

} // namespace

class TestCpuCachingAllocator : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void choiceFromTheEnvironment();
    void aFreedBlockServesTheNextOfItsSize();
    void anotherSizeIsNewMemory();
    void smallBlocksAreNotKept();
    void theLimitFreesWhatWouldGoOverIt();
    void rawAllocationsShareTheDeleter();
    void aModelsSecondStepTakesEveryBlockFromTheCache();
};

void TestCpuCachingAllocator::initTestCase()
{
    if (cpuAllocatorChoice(std::getenv("LOADERLAB_CPU_ALLOCATOR")) == CpuAllocatorChoice::System)
        QSKIP("LOADERLAB_CPU_ALLOCATOR=system: LibTorch's own allocator is in use");
    QVERIFY(installCpuCachingAllocator());
}

void TestCpuCachingAllocator::init()
{
    setCpuCacheLimit(0);
    emptyCpuCache();
}

void TestCpuCachingAllocator::choiceFromTheEnvironment()
{
    QCOMPARE(cpuAllocatorChoice(nullptr), CpuAllocatorChoice::Caching);
    QCOMPARE(cpuAllocatorChoice(""), CpuAllocatorChoice::Caching);
    QCOMPARE(cpuAllocatorChoice("caching"), CpuAllocatorChoice::Caching);
    QCOMPARE(cpuAllocatorChoice("system"), CpuAllocatorChoice::System);
}

void TestCpuCachingAllocator::aFreedBlockServesTheNextOfItsSize()
{
    const CpuCacheStats before = cpuCacheStats();
    torch::Tensor first = tensorOfBytes(4 * kCacheMiB);
    const void *address = first.data_ptr();
    QCOMPARE(cpuCacheStats().liveBytes, before.liveBytes + 4 * kCacheMiB);
    first = torch::Tensor();
    QCOMPARE(cpuCacheStats().cachedBytes, 4 * kCacheMiB);

    const torch::Tensor second = tensorOfBytes(4 * kCacheMiB);
    QCOMPARE(second.data_ptr(), address);
    const CpuCacheStats after = cpuCacheStats();
    QCOMPARE(after.cachedBytes, std::int64_t{0});
    QCOMPARE(after.reused, before.reused + 1);
    QCOMPARE(after.fresh, before.fresh + 1);
}

void TestCpuCachingAllocator::anotherSizeIsNewMemory()
{
    tensorOfBytes(4 * kCacheMiB).reset();
    const CpuCacheStats before = cpuCacheStats();
    const torch::Tensor other = tensorOfBytes(2 * kCacheMiB);
    const CpuCacheStats after = cpuCacheStats();
    QCOMPARE(after.fresh, before.fresh + 1);
    QCOMPARE(after.reused, before.reused);
    QCOMPARE(after.cachedBytes, 4 * kCacheMiB);
    emptyCpuCache();
    QCOMPARE(cpuCacheStats().cachedBytes, std::int64_t{0});
    // A live block stays live through emptyCpuCache().
    QCOMPARE(cpuCacheStats().liveBytes, after.liveBytes);
}

void TestCpuCachingAllocator::smallBlocksAreNotKept()
{
    const CpuCacheStats before = cpuCacheStats();
    tensorOfBytes(16 * 1024).reset();
    const CpuCacheStats after = cpuCacheStats();
    QCOMPARE(after.cachedBytes, std::int64_t{0});
    QCOMPARE(after.fresh, before.fresh);
    QCOMPARE(after.liveBytes, before.liveBytes);
}

void TestCpuCachingAllocator::theLimitFreesWhatWouldGoOverIt()
{
    setCpuCacheLimit(3 * kCacheMiB);
    QCOMPARE(cpuCacheStats().limitBytes, 3 * kCacheMiB);
    torch::Tensor a = tensorOfBytes(2 * kCacheMiB);
    torch::Tensor b = tensorOfBytes(2 * kCacheMiB);
    a.reset();
    b.reset();
    QCOMPARE(cpuCacheStats().cachedBytes, 2 * kCacheMiB);
    setCpuCacheLimit(0);
    QVERIFY(cpuCacheStats().limitBytes > 3 * kCacheMiB);
}

void TestCpuCachingAllocator::rawAllocationsShareTheDeleter()
{
    c10::Allocator *cpu = c10::GetCPUAllocator();
    void *large = cpu->raw_allocate(kCacheMiB);
    void *small = cpu->raw_allocate(100);
    QVERIFY(large != nullptr && small != nullptr);
    cpu->raw_deallocate(small);
    cpu->raw_deallocate(large);
    QCOMPARE(cpuCacheStats().cachedBytes, kCacheMiB);
    void *again = cpu->raw_allocate(kCacheMiB);
    QCOMPARE(again, large);
    cpu->raw_deallocate(again);
}

void TestCpuCachingAllocator::aModelsSecondStepTakesEveryBlockFromTheCache()
{
    ConsumerConfig config;
    config.kind = ConsumerKind::Model;
    config.model.name = "resnet18";
    config.model.threads = 1;
    config.model.numClasses = 10;
    torch::manual_seed(7);
    const torch::Tensor input = torch::rand({2, 3, 96, 96});
    const torch::Tensor labels = torch::zeros({2}, torch::kInt64);
    {
        TorchConsumer consumer(config, 0);
        const torch::Tensor first = consumer.step(input, labels);
        const CpuCacheStats afterFirst = cpuCacheStats();
        QVERIFY(afterFirst.fresh > 0);
        QVERIFY(afterFirst.cachedBytes > 0);
        const torch::Tensor second = consumer.step(input, labels);
        const CpuCacheStats afterSecond = cpuCacheStats();
        QCOMPARE(afterSecond.fresh, afterFirst.fresh);
        QVERIFY(afterSecond.reused > afterFirst.reused);
        QVERIFY(torch::equal(first, second));
    }
    // The consumer's end hands back what it kept, its model's weights included.
    QCOMPARE(cpuCacheStats().cachedBytes, std::int64_t{0});
}

LOADERLAB_GUILESS_TEST_MAIN(TestCpuCachingAllocator)
#include "test_cpu_caching_allocator.moc"
