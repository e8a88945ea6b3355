// Tests for SyntheticDataset and for the DatasetConfig helpers (kind names and the
// path checks of openDataset).

#include "core/config/dataset_config.h"
#include "core/dataset/synthetic_dataset.h"
#include "core/loader/open_dataset.h"
#include "tests/support/test_main.h"

#include <QTemporaryDir>
#include <QTest>

#include <cstring>
#include <vector>

using namespace loaderlab;

namespace {

std::vector<float> loadSynthetic(const Dataset &dataset, std::int64_t index,
                                 std::int64_t *label = nullptr)
{
    std::vector<float> out(static_cast<std::size_t>(dataset.sampleShape().elements()));
    SampleContext context;
    const auto got = dataset.load(index, std::as_writable_bytes(std::span(out)), context);
    if (label)
        *label = got;
    return out;
}

std::string errorOf(const DatasetConfig &config)
{
    try {
        openDataset(config);
    } catch (const DatasetError &error) {
        return error.what();
    }
    return {};
}

} // namespace

class TestSyntheticDataset : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sizeAndShape();
    void labelsAndPool();
    void deterministicForSeed();
    void valuesInUnitRange();
    void invalidArgumentsAreRejected();
    void kindNamesRoundTrip();
    void openDatasetChecksPath();
    void openDatasetSynthetic();
};

void TestSyntheticDataset::sizeAndShape()
{
    const SyntheticDataset dataset({3, 16, 8}, 200, 1);
    QCOMPARE(dataset.size(), 200);
    QVERIFY(dataset.sampleShape() == (SampleShape{3, 16, 8}));
    QCOMPARE(dataset.dtype(), DType::Float32);
    QCOMPARE(dataset.sampleBytes(), std::size_t{3 * 16 * 8 * 4});
    QCOMPARE(dataset.poolSize(), 64);

    const SyntheticDataset small({1, 2, 2}, 10, 1);
    QCOMPARE(small.poolSize(), 10);
}

void TestSyntheticDataset::labelsAndPool()
{
    const SyntheticDataset dataset({2, 4, 4}, 3000, 42);
    std::int64_t label = -1;
    loadSynthetic(dataset, 0, &label);
    QCOMPARE(label, 0);
    loadSynthetic(dataset, 1999, &label);
    QCOMPARE(label, 999);
    loadSynthetic(dataset, 2001, &label);
    QCOMPARE(label, 1);

    // Sample i is pool entry i % 64: equal to i - 64, different from its neighbours.
    const auto a = loadSynthetic(dataset, 5);
    QCOMPARE(loadSynthetic(dataset, 5 + 64), a);
    QCOMPARE(loadSynthetic(dataset, 5 + 64 * 40), a);
    for (std::int64_t other = 0; other < 64; ++other) {
        if (other != 5)
            QVERIFY2(loadSynthetic(dataset, other) != a, "two pool entries are equal");
    }
    SampleContext context;
    std::vector<float> out(32);
    dataset.load(7, std::as_writable_bytes(std::span(out)), context);
    QVERIFY(context.timing.readNs >= 0);
    QCOMPARE(context.timing.decodeNs, 0);
}

void TestSyntheticDataset::deterministicForSeed()
{
    const SyntheticDataset a({3, 5, 5}, 100, 7);
    const SyntheticDataset b({3, 5, 5}, 100, 7);
    const SyntheticDataset c({3, 5, 5}, 100, 8);
    // The pool does not depend on the sample count either.
    const SyntheticDataset d({3, 5, 5}, 20, 7);
    for (std::int64_t i : {0, 13, 19, 63, 99}) {
        QCOMPARE(loadSynthetic(a, i), loadSynthetic(b, i));
        QVERIFY(loadSynthetic(a, i) != loadSynthetic(c, i));
    }
    for (std::int64_t i : {0, 13, 19})
        QCOMPARE(loadSynthetic(a, i), loadSynthetic(d, i));
}

void TestSyntheticDataset::valuesInUnitRange()
{
    const SyntheticDataset dataset({1, 64, 64}, 4, 3);
    const auto values = loadSynthetic(dataset, 2);
    double sum = 0;
    for (float v : values) {
        QVERIFY(v >= 0.0f && v < 1.0f);
        sum += v;
    }
    // 4096 uniform values: the mean is 0.5 +- 0.02 with overwhelming probability.
    const double mean = sum / static_cast<double>(values.size());
    QVERIFY2(mean > 0.45 && mean < 0.55, qPrintable(QString::number(mean)));
}

void TestSyntheticDataset::invalidArgumentsAreRejected()
{
    QVERIFY_THROWS_EXCEPTION(DatasetError, SyntheticDataset({0, 4, 4}, 10, 1));
    QVERIFY_THROWS_EXCEPTION(DatasetError, SyntheticDataset({3, 4, 4}, 0, 1));
    const SyntheticDataset dataset({1, 2, 2}, 3, 1);
    std::vector<float> out(4);
    SampleContext context;
    QVERIFY_THROWS_EXCEPTION(std::out_of_range,
                             dataset.load(3, std::as_writable_bytes(std::span(out)), context));
}

void TestSyntheticDataset::kindNamesRoundTrip()
{
    for (auto kind : {DatasetKind::Synthetic, DatasetKind::TensorFile, DatasetKind::ImageFolder,
                      DatasetKind::Idx, DatasetKind::Cifar10}) {
        QCOMPARE(datasetKindFromName(datasetKindName(kind)), std::optional(kind));
    }
    QCOMPARE(std::string(datasetKindName(DatasetKind::TensorFile)), std::string("tensor"));
    QCOMPARE(std::string(datasetKindName(DatasetKind::ImageFolder)), std::string("folder"));
    QCOMPARE(std::string(datasetKindName(DatasetKind::Cifar10)), std::string("cifar10"));
    QVERIFY(!datasetKindFromName("imagenet").has_value());
    QVERIFY(!datasetKindFromName("").has_value());

    for (auto kind : {TransformKind::Eval, TransformKind::Train})
        QCOMPARE(transformKindFromName(transformKindName(kind)), std::optional(kind));
    QCOMPARE(std::string(transformKindName(TransformKind::Train)), std::string("train"));
    QVERIFY(!transformKindFromName("test").has_value());
}

void TestSyntheticDataset::openDatasetChecksPath()
{
    QTemporaryDir dir;
    const std::string missing = dir.filePath(QStringLiteral("nothing-here.bin")).toStdString();
    for (auto kind : {DatasetKind::TensorFile, DatasetKind::ImageFolder, DatasetKind::Idx,
                      DatasetKind::Cifar10}) {
        DatasetConfig config;
        config.kind = kind;
        const std::string empty = errorOf(config);
        QVERIFY2(empty.find("no dataset path") != std::string::npos, empty.c_str());
        QVERIFY2(empty.find(datasetKindName(kind)) != std::string::npos, empty.c_str());

        config.path = missing;
        const std::string message = errorOf(config);
        QVERIFY2(message.find(missing) != std::string::npos, message.c_str());
        QVERIFY2(message.find("no such file") != std::string::npos, message.c_str());
    }
}

void TestSyntheticDataset::openDatasetSynthetic()
{
    DatasetConfig config;
    config.kind = DatasetKind::Synthetic;
    config.syntheticShape = {3, 8, 8};
    config.syntheticSamples = 77;
    const DatasetPtr dataset = openDataset(config);
    QCOMPARE(dataset->size(), 77);
    QVERIFY(dataset->sampleShape() == (SampleShape{3, 8, 8}));
    // Opening twice gives the same data: runs stay comparable.
    QCOMPARE(loadSynthetic(*dataset, 12), loadSynthetic(*openDataset(config), 12));
}

LOADERLAB_GUILESS_TEST_MAIN(TestSyntheticDataset)
#include "test_synthetic_dataset.moc"
