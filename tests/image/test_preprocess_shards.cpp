// Tests of preprocessShards and of the tensor dataset over its manifest: the shards,
// read in order, hold the single file's records byte for byte (a broken image
// included); a finished shard is kept and a partial one redone; another plan, a
// foreign file, or a folder inside the images is refused and left as it was; the
// manifest opens as one dataset and a shard that disagrees with it is named.

#include "core/tools/preprocess_shards.h"

#include "core/dataset/tensor_file_dataset.h"
#include "core/dataset/tensor_shards.h"
#include "core/system/folder_lock.h"
#include "tests/support/test_main.h"

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <vector>

using namespace loaderlab;
namespace fs = std::filesystem;

namespace {

constexpr int kImages = 11;

std::string fileBytes(const std::string &path)
{
    std::ifstream file(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

// A tensor file's records: everything after its 64-byte header.
std::string recordsOf(const std::string &path)
{
    return fileBytes(path).substr(kTensorFileHeaderBytes);
}

PreprocessOptions smallOptions()
{
    PreprocessOptions o;
    o.dtype = DType::UInt8;
    o.threads = 2;
    o.resizeSize = 20;
    o.cropSize = 16;
    return o;
}

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

std::string shardPath(const std::string &dir, int index, int count)
{
    return (fs::path(dir) / shardFileName(index, count)).string();
}

} // namespace

class TestPreprocessShards : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void rangesCoverTheImagesInOrder();
    void shardsHoldTheSingleFilesRecords();
    void finishedShardsAreKeptAndPartialOnesRedone();
    void processesShareTheShardsOut();
    void anotherPlanOrAForeignFileIsRefused();
    void manifestOpensAsOneDataset();
    void shardThatDisagreesWithTheManifestIsNamed();

private:
    std::string dir(const char *name) const
    {
        return m_dir.filePath(QString::fromLatin1(name)).toStdString();
    }

    QTemporaryDir m_dir;
    std::string m_input;
    std::string m_single;
    std::int64_t m_brokenIndex = -1;
};

void TestPreprocessShards::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_input = dir("images");
    // 11 JPEGs of different sizes in 2 classes, and a broken one among them.
    for (int i = 0; i < kImages; ++i) {
        const fs::path cls = fs::path(m_input) / (i < 5 ? "ant" : "bee");
        fs::create_directories(cls);
        cv::Mat img(30 + i * 3, 40 + i * 2, CV_8UC3);
        cv::RNG(static_cast<std::uint64_t>(i) + 7).fill(img, cv::RNG::UNIFORM, 0, 256);
        QVERIFY(cv::imwrite((cls / ("p " + std::to_string(i) + ".jpg")).string(), img));
    }
    std::ofstream(m_input + "/bee/p 5b.jpg") << "not an image";
    m_single = dir("single.lltensor");
    const PreprocessResult one = preprocessImageFolder(m_input, m_single, smallOptions());
    QCOMPARE(one.written, std::int64_t{kImages});
    QCOMPARE(one.skipped.size(), std::size_t{1});
    m_brokenIndex = one.skipped.front().sampleIndex;
}

void TestPreprocessShards::rangesCoverTheImagesInOrder()
{
    // 12 images into 3 shards: 4 each; 11 into 3: 3, 4, 4; every image once.
    QCOMPARE(shardRange(12, 0, 3), std::make_pair(std::int64_t{0}, std::int64_t{4}));
    QCOMPARE(shardRange(12, 2, 3), std::make_pair(std::int64_t{8}, std::int64_t{12}));
    QCOMPARE(shardRange(11, 0, 3), std::make_pair(std::int64_t{0}, std::int64_t{3}));
    QCOMPARE(shardRange(11, 1, 3), std::make_pair(std::int64_t{3}, std::int64_t{7}));
    QCOMPARE(shardRange(11, 2, 3), std::make_pair(std::int64_t{7}, std::int64_t{11}));
    QCOMPARE(shardFileName(1, 3), std::string("shard-00001-of-00003.lltensor"));
}

void TestPreprocessShards::shardsHoldTheSingleFilesRecords()
{
    for (const int shards : {1, 2, 3, 12}) {
        const std::string out = dir("all-") + std::to_string(shards);
        const ShardedPreprocessResult r = preprocessShards(m_input, out, smallOptions(), shards,
                                                           -1);
        QCOMPARE(static_cast<int>(r.written.size()), shards);
        QCOMPARE(r.records, std::int64_t{kImages});
        QCOMPARE(r.skipped.size(), std::size_t{1});
        // The broken image keeps its index in the whole folder.
        QCOMPARE(r.skipped.front().sampleIndex, m_brokenIndex);
        QVERIFY(r.skipped.front().source.ends_with("p 5b.jpg"));
        QCOMPARE(r.manifestPath, out + "/manifest.json");
        std::string records;
        for (int i = 0; i < shards; ++i)
            records += recordsOf(shardPath(out, i, shards));
        QVERIFY2(records == recordsOf(m_single), qPrintable(QString::number(shards)));
    }
    // One task of an array at a time: the manifest comes with the last shard.
    const std::string out = dir("tasks");
    ShardedPreprocessResult r = preprocessShards(m_input, out, smallOptions(), 2, 1);
    QCOMPARE(r.written, std::vector<int>{1});
    QVERIFY(r.manifestPath.empty());
    QCOMPARE(r.shardsDone, 1);
    QVERIFY(!fs::exists(out + "/manifest.json"));
    r = preprocessShards(m_input, out, smallOptions(), 2, 0);
    QCOMPARE(r.written, std::vector<int>{0});
    QCOMPARE(r.shardsDone, 2);
    QVERIFY(fs::exists(out + "/manifest.json"));
    QVERIFY(recordsOf(shardPath(out, 0, 2)) + recordsOf(shardPath(out, 1, 2))
            == recordsOf(m_single));
}

void TestPreprocessShards::finishedShardsAreKeptAndPartialOnesRedone()
{
    const std::string out = dir("resume");
    preprocessShards(m_input, out, smallOptions(), 3, -1);
    const auto kept = fs::last_write_time(shardPath(out, 0, 3));
    // Shard 1 cut short (a task killed while renaming, a disk that filled), shard 2's
    // record lost: both are written again, shard 0 is kept as it was.
    fs::resize_file(shardPath(out, 1, 3), 100);
    fs::remove(out + "/shard-00002-of-00003.json");
    const ShardedPreprocessResult r = preprocessShards(m_input, out, smallOptions(), 3, -1);
    QCOMPARE(r.kept, std::vector<int>{0});
    QCOMPARE(r.written, (std::vector<int>{1, 2}));
    QVERIFY(fs::last_write_time(shardPath(out, 0, 3)) == kept);
    std::string records;
    for (int i = 0; i < 3; ++i)
        records += recordsOf(shardPath(out, i, 3));
    QVERIFY(records == recordsOf(m_single));
}

void TestPreprocessShards::processesShareTheShardsOut()
{
    // Another process (a lock held here, on its own descriptor, as another task's
    // would be) is writing shard 1 of 3: this one writes 0 and 2 and leaves 1, and
    // the manifest waits for it; the next run writes 1 and the manifest.
    const std::string out = dir("shared");
    fs::create_directory(out);
    const FolderLockNames names{"preprocess.lock", "shard-", "shard folder", "preprocess", false};
    {
        const FolderLock other(out, names, 1, 3);
        const ShardedPreprocessResult r = preprocessShards(m_input, out, smallOptions(), 3, -1);
        QCOMPARE(r.written, (std::vector<int>{0, 2}));
        QCOMPARE(r.busy, std::vector<int>{1});
        QVERIFY(r.manifestPath.empty());
        QVERIFY(!fs::exists(shardPath(out, 1, 3)));
        // Asked for by number, the busy shard is refused, naming who holds it.
        try {
            preprocessShards(m_input, out, smallOptions(), 3, 1);
            QFAIL("a shard another process writes was written");
        } catch (const std::invalid_argument &e) {
            QVERIFY2(contains(e.what(), "shard 1/3 is being run by another loaderlab (PID "),
                     e.what());
        }
    }
    const ShardedPreprocessResult r = preprocessShards(m_input, out, smallOptions(), 3, -1);
    QCOMPARE(r.kept, (std::vector<int>{0, 2}));
    QCOMPARE(r.written, std::vector<int>{1});
    QVERIFY(!r.manifestPath.empty());
    std::string records;
    for (int i = 0; i < 3; ++i)
        records += recordsOf(shardPath(out, i, 3));
    QVERIFY(records == recordsOf(m_single));
}

void TestPreprocessShards::anotherPlanOrAForeignFileIsRefused()
{
    const std::string out = dir("plans");
    preprocessShards(m_input, out, smallOptions(), 2, 0);
    const std::string plan = fileBytes(out + "/preprocess.json");
    // Another shard count, dtype or size in the same folder: refused, naming it.
    PreprocessOptions other = smallOptions();
    other.dtype = DType::Float32;
    for (const auto &[options, shards, field] :
         {std::tuple{smallOptions(), 3, "shards"}, std::tuple{other, 2, "dtype"}}) {
        try {
            preprocessShards(m_input, out, options, shards, 1);
            QFAIL("another plan was accepted");
        } catch (const std::invalid_argument &e) {
            QVERIFY2(contains(e.what(), std::string("(") + field + ": "), e.what());
        }
    }
    QCOMPARE(fileBytes(out + "/preprocess.json"), plan);
    QVERIFY(!fs::exists(shardPath(out, 1, 2)));

    // A user's file under a shard's name: refused, and left as it was.
    const std::string foreign = shardPath(out, 1, 2);
    std::ofstream(foreign) << "my notes";
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             preprocessShards(m_input, out, smallOptions(), 2, 1));
    QCOMPARE(fileBytes(foreign), std::string("my notes"));

    // A shard folder inside the image folder: refused before anything is made.
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             preprocessShards(m_input, m_input + "/shards", smallOptions(), 2, -1));
    QVERIFY(!fs::exists(m_input + "/shards"));
    // More shards than images.
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             preprocessShards(m_input, dir("many"), smallOptions(), 13, -1));
}

void TestPreprocessShards::manifestOpensAsOneDataset()
{
    const std::string out = dir("all-3");
    const TensorFileDataset single(m_single);
    for (const std::string &path : {out, out + "/manifest.json"}) {
        const TensorFileDataset sharded(path);
        QCOMPARE(sharded.size(), std::int64_t{kImages});
        QCOMPARE(sharded.dtype(), DType::UInt8);
        QCOMPARE(shapeToString(sharded.sampleShape()), std::string("3x16x16"));
        QVERIFY2(sharded.description().find("in 3 shards") != std::string::npos,
                 sharded.description().c_str());
        std::vector<std::byte> a(3 * 16 * 16), b(3 * 16 * 16);
        for (std::int64_t i = 0; i < kImages; ++i) {
            SampleContext ca, cb;
            QCOMPARE(sharded.load(i, a, ca), single.load(i, b, cb));
            QVERIFY(a == b);
        }
    }
    QCOMPARE(tensorDatasetHeader(out).count, std::uint64_t{kImages});
    // A folder of shards without its manifest (one of two shards done) says what is
    // missing.
    preprocessShards(m_input, dir("half"), smallOptions(), 2, 0);
    try {
        TensorFileDataset missing(dir("half"));
        QFAIL("a folder without a manifest opened");
    } catch (const DatasetError &e) {
        QVERIFY2(contains(e.what(), "manifest.json"), e.what());
    }
}

void TestPreprocessShards::shardThatDisagreesWithTheManifestIsNamed()
{
    const std::string out = dir("disagree");
    preprocessShards(m_input, out, smallOptions(), 2, -1);
    nlohmann::json manifest = nlohmann::json::parse(fileBytes(out + "/manifest.json"));
    manifest["shards"][1]["records"] = 99;
    std::ofstream(out + "/manifest.json") << manifest.dump();
    try {
        TensorFileDataset opened(out);
        QFAIL("a manifest that disagrees with its shard opened");
    } catch (const DatasetError &e) {
        QVERIFY2(contains(e.what(), shardFileName(1, 2)) && contains(e.what(), "lists 99"),
                 e.what());
    }
    // A shard named outside the folder is refused.
    manifest["shards"][1]["file"] = "../single.lltensor";
    std::ofstream(out + "/manifest.json") << manifest.dump();
    QVERIFY_THROWS_EXCEPTION(DatasetError, TensorFileDataset{out});
}

LOADERLAB_GUILESS_TEST_MAIN(TestPreprocessShards)
#include "test_preprocess_shards.moc"
