// preprocessImageFolder: worker threads decode and transform images while the
// calling thread writes them in index order. Results pass through a ring of
// slots (a bounded reorder window), so memory stays a few samples per thread
// however big the folder is.

#include "core/tools/preprocess.h"

#include "core/config/dataset_config.h"
#include "core/dataset/tensor_file_format.h"
#include "core/image/image_decoder.h"
#include "core/image/image_folder_dataset.h"
#include "core/image/image_transforms.h"
#include "core/system/own_output.h"

#include <opencv2/core.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <sys/stat.h>

namespace loaderlab {

namespace {

constexpr int kSlotsPerThread = 4;

struct Slot
{
    std::vector<std::byte> data;
    std::int64_t label = 0;
    bool ready = false;
    bool ok = false;
    std::string source;
    std::string reason;
};

class ReorderRing
{
public:
    ReorderRing(std::size_t slots, std::size_t sampleBytes)
        : m_slots(slots)
    {
        for (Slot &slot : m_slots)
            slot.data.resize(sampleBytes);
    }

    // Worker side: waits until sample `index` has a free slot, then returns it.
    // Returns nullptr when the run was aborted.
    Slot *acquire(std::int64_t index)
    {
        std::unique_lock lock(m_mutex);
        m_free.wait(lock, [&] {
            return m_aborted || index < m_consumed + static_cast<std::int64_t>(m_slots.size());
        });
        return m_aborted ? nullptr : &slotFor(index);
    }

    void publish(Slot &slot)
    {
        {
            std::lock_guard lock(m_mutex);
            slot.ready = true;
        }
        m_ready.notify_one();
    }

    // Writer side: waits for sample `index`, in order.
    Slot &waitFor(std::int64_t index)
    {
        std::unique_lock lock(m_mutex);
        Slot &slot = slotFor(index);
        m_ready.wait(lock, [&] { return slot.ready; });
        return slot;
    }

    void release(std::int64_t index)
    {
        {
            std::lock_guard lock(m_mutex);
            slotFor(index).ready = false;
            m_consumed = index + 1;
        }
        m_free.notify_all();
    }

    void abort()
    {
        {
            std::lock_guard lock(m_mutex);
            m_aborted = true;
        }
        m_free.notify_all();
    }

private:
    Slot &slotFor(std::int64_t index)
    {
        return m_slots[static_cast<std::size_t>(index) % m_slots.size()];
    }

    std::vector<Slot> m_slots;
    std::mutex m_mutex;
    std::condition_variable m_ready;
    std::condition_variable m_free;
    std::int64_t m_consumed = 0;
    bool m_aborted = false;
};

// One sample into its slot. Float32 goes through ImageFolderDataset::load, so the
// file holds exactly what the live eval pipeline would produce.
void produce(const ImageFolderDataset &dataset, const DatasetConfig &config, DType dtype,
             std::int64_t index, Slot &slot)
{
    const ImageEntry &entry = dataset.entries()[static_cast<std::size_t>(index)];
    slot.label = entry.label;
    try {
        SampleContext context;
        if (dtype == DType::Float32) {
            dataset.load(index, slot.data, context);
        } else {
            thread_local cv::Mat transformed;
            const cv::Mat image = decodeImageFile(
                entry.path, {config.maxFileBytes, config.maxImagePixels}, context.timing);
            resizeCenterCrop(image, config.resizeSize, config.cropSize, transformed);
            toChwU8(transformed, std::span(reinterpret_cast<std::uint8_t *>(slot.data.data()),
                                           slot.data.size()));
        }
        slot.ok = true;
    } catch (const SampleError &e) {
        slot.ok = false;
        slot.source = e.source();
        slot.reason = e.reason();
    } catch (const std::exception &e) {
        slot.ok = false;
        slot.source = entry.path;
        slot.reason = e.what();
    }
}

// Checked before anything is decoded: the rename at the very end is where a
// directory in the way would otherwise show up.
void checkOutputPath(const std::string &outputFile)
{
    struct stat info
    {
    };
    if (::stat(outputFile.c_str(), &info) == 0 && S_ISDIR(info.st_mode))
        throw std::invalid_argument(outputFile + ": output is a directory (expected a file name)");
}

// Writing over one of the images would destroy a source file; compared by device and
// inode so that another spelling, a symlink or a hard link is caught too.
void refuseOutputAmongInputs(const ImageFolderDataset &dataset, const std::string &outputFile)
{
    struct stat out
    {
    };
    if (::stat(outputFile.c_str(), &out) != 0)
        return; // does not exist yet, so it is none of the inputs
    for (const ImageEntry &entry : dataset.entries()) {
        struct stat in
        {
        };
        if (::stat(entry.path.c_str(), &in) == 0 && in.st_dev == out.st_dev
            && in.st_ino == out.st_ino) {
            throw std::invalid_argument(outputFile + ": output is one of the input images ("
                                        + entry.path + ")");
        }
    }
}

} // namespace

DatasetConfig preprocessDatasetConfig(const std::string &inputDir, const PreprocessOptions &options)
{
    DatasetConfig config;
    config.kind = DatasetKind::ImageFolder;
    config.path = inputDir;
    config.transform = TransformKind::Eval;
    config.resizeSize = options.resizeSize;
    config.cropSize = options.cropSize;
    return config;
}

PreprocessResult preprocessImageFolder(const std::string &inputDir, const std::string &outputFile,
                                       const PreprocessOptions &options,
                                       const ProgressCallback &progress)
{
    checkOutputPath(outputFile);
    // Throws DatasetError for a bad folder.
    const ImageFolderDataset dataset(preprocessDatasetConfig(inputDir, options));
    return preprocessImageFolder(dataset, outputFile, options, progress);
}

PreprocessResult preprocessImageFolder(const ImageFolderDataset &dataset,
                                       const std::string &outputFile,
                                       const PreprocessOptions &options,
                                       const ProgressCallback &progress)
{
    checkOutputPath(outputFile);
    const DatasetConfig &config = dataset.config();
    const std::string &inputDir = config.path;
    refuseOutputAmongInputs(dataset, outputFile);
    // After the image check, whose message is the more precise one.
    if (const std::string foreign = foreignFileProblem(outputFile); !foreign.empty())
        throw std::invalid_argument(outputFile + ": " + foreign);

    const SampleShape shape = dataset.sampleShape();
    const std::size_t sampleBytes = static_cast<std::size_t>(shape.elements())
                                    * dtypeSize(options.dtype);
    // Opened before any decoding, so an unwritable output fails at once.
    TensorFileWriter writer(outputFile, options.dtype, shape);

    const std::int64_t first = options.first;
    const std::int64_t end = options.end < 0 ? dataset.size() : options.end;
    if (first < 0 || first > end || end > dataset.size())
        throw std::invalid_argument(inputDir + ": images " + std::to_string(first) + " to "
                                    + std::to_string(end) + " asked for, but the folder holds "
                                    + std::to_string(dataset.size()));
    const std::int64_t total = end - first;
    int threads = options.threads > 0 ? options.threads
                                      : static_cast<int>(std::thread::hardware_concurrency());
    threads = static_cast<int>(
        std::clamp<std::int64_t>(threads, 1, std::max<std::int64_t>(total, 1)));

    ReorderRing ring(static_cast<std::size_t>(threads) * kSlotsPerThread, sampleBytes);
    std::atomic<std::int64_t> next{0};
    std::vector<std::thread> workers;
    const auto stopWorkers = [&] {
        ring.abort();
        for (std::thread &worker : workers)
            worker.join();
        workers.clear();
    };

    PreprocessResult result;
    try {
        for (int t = 0; t < threads; ++t) {
            workers.emplace_back([&] {
                for (std::int64_t i = next.fetch_add(1); i < total; i = next.fetch_add(1)) {
                    Slot *slot = ring.acquire(i);
                    if (slot == nullptr)
                        return;
                    produce(dataset, config, options.dtype, first + i, *slot);
                    ring.publish(*slot);
                }
            });
        }
        for (std::int64_t i = 0; i < total; ++i) {
            Slot &slot = ring.waitFor(i);
            if (slot.ok) {
                writer.append(slot.label, slot.data);
                ++result.written;
            } else {
                result.skipped.push_back({0, first + i, slot.source, slot.reason});
            }
            ring.release(i);
            if (progress)
                progress(i + 1, total);
        }
    } catch (...) {
        stopWorkers(); // the writer's destructor then removes the .part file
        throw;
    }
    stopWorkers();

    if (result.written == 0 && !options.allowEmpty)
        throw std::runtime_error(outputFile + ": no image of " + inputDir
                                 + " could be decoded; nothing written");
    writer.finish();
    return result;
}

} // namespace loaderlab
