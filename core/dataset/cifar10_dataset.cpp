// Cifar10Dataset: batch file discovery, size and label validation, conversion.

#include "core/dataset/cifar10_dataset.h"

#include "core/dataset/unit_table.h"
#include "core/system/clock.h"
#include "core/system/regular_file.h"

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include <unistd.h>

namespace loaderlab {

namespace {

namespace fs = std::filesystem;

// Whatever exists under a batch file's name is taken, so that a FIFO or a directory
// there is refused by readBatch() saying what it is, not skipped.
std::vector<std::string> batchFiles(const fs::path &dir)
{
    std::error_code error;
    std::vector<std::string> files;
    for (int i = 1; i <= 5; ++i) {
        const fs::path file = dir / ("data_batch_" + std::to_string(i) + ".bin");
        if (fs::exists(file, error))
            files.push_back(file.string());
    }
    if (files.empty() && fs::exists(dir / "test_batch.bin", error))
        files.push_back((dir / "test_batch.bin").string());
    return files;
}

} // namespace

Cifar10Dataset::Cifar10Dataset(const std::string &path)
    : m_path(path)
{
    std::error_code error;
    if (fs::is_directory(path, error)) {
        m_files = batchFiles(path);
        if (m_files.empty() && fs::is_directory(fs::path(path) / "cifar-10-batches-bin", error))
            m_files = batchFiles(fs::path(path) / "cifar-10-batches-bin");
        if (m_files.empty()) {
            throw DatasetError(path
                               + ": no CIFAR-10 batch files (data_batch_1.bin .. "
                                 "data_batch_5.bin or test_batch.bin)");
        }
    } else if (const std::string problem = regularFileProblem(path); problem.empty()) {
        m_files.push_back(path);
    } else {
        throw DatasetError(path + ": " + problem);
    }
    for (const std::string &file : m_files)
        readBatch(file);
}

void Cifar10Dataset::readBatch(const std::string &file)
{
    std::string problem;
    std::int64_t size = 0;
    const int fd = openRegularFile(file, problem, &size);
    if (fd < 0)
        throw DatasetError(file + ": " + problem);
    const std::unique_ptr<std::FILE, int (*)(std::FILE *)> stream(::fdopen(fd, "rb"), &std::fclose);
    if (!stream) {
        ::close(fd);
        throw DatasetError(file + ": cannot open: " + std::strerror(errno));
    }
    const auto bytes = static_cast<std::uint64_t>(size);
    if (bytes == 0 || bytes % kRecordBytes != 0) {
        throw DatasetError(file + ": size " + std::to_string(bytes)
                           + " bytes is not a positive multiple of the CIFAR-10 record size "
                           + std::to_string(kRecordBytes) + " (truncated, or not CIFAR-10?)");
    }
    const std::size_t offset = m_records.size();
    m_records.resize(offset + static_cast<std::size_t>(bytes));
    const std::size_t got = std::fread(m_records.data() + offset, 1, bytes, stream.get());
    if (got != bytes) {
        throw DatasetError(file + ": short read (" + std::to_string(got) + " of "
                           + std::to_string(bytes) + " bytes)");
    }

    const std::int64_t records = static_cast<std::int64_t>(bytes / kRecordBytes);
    for (std::int64_t r = 0; r < records; ++r) {
        const std::uint8_t label = m_records[offset + static_cast<std::size_t>(r) * kRecordBytes];
        if (label >= kClasses) {
            throw DatasetError(file + ": record " + std::to_string(r) + " has label "
                               + std::to_string(label) + " (CIFAR-10 labels are 0-9)");
        }
    }
    m_count += records;
}

std::string Cifar10Dataset::description() const
{
    return "cifar10 " + m_path + " (" + std::to_string(m_count) + ")";
}

std::int64_t Cifar10Dataset::load(std::int64_t index, std::span<std::byte> out,
                                  SampleContext &context) const
{
    if (index < 0 || index >= m_count)
        throw std::out_of_range(m_path + ": index " + std::to_string(index) + " out of range");
    if (out.size() != kImageBytes * sizeof(float))
        throw std::invalid_argument(m_path + ": output buffer has the wrong size");

    const std::int64_t start = steadyNowNs();
    const std::uint8_t *record = m_records.data() + static_cast<std::size_t>(index) * kRecordBytes;
    const std::uint8_t *pixels = record + 1;
    std::byte *target = out.data();
    // memcpy per value: the batch slot need not be float-aligned.
    for (std::size_t i = 0; i < kImageBytes; ++i)
        std::memcpy(target + i * sizeof(float), &kByteToUnit[pixels[i]], sizeof(float));
    context.timing.transformNs += steadyNowNs() - start;
    return record[0];
}

} // namespace loaderlab
