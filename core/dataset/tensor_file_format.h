#pragma once

// The preprocessed tensor file: a 64-byte header followed by fixed-size records,
// each an int64 label (little endian) and one CHW sample (float32 or uint8).
// Documented in docs/tensor-file-format.md.
//
//   offset  size  field
//   0       8     magic "LLTENSOR"
//   8       4     format version (1)
//   12      4     dtype: 0 = float32, 1 = uint8
//   16      4     channels
//   20      4     height
//   24      4     width
//   28      4     reserved (0)
//   32      8     record count
//   40      8     record size in bytes (8 + C*H*W*dtype size)
//   48      16    reserved (0)
//   64      ...   records

#include "core/dataset/dataset.h"

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

namespace loaderlab {

struct TensorFileHeader
{
    DType dtype = DType::Float32;
    SampleShape shape;
    std::uint64_t count = 0;

    std::uint64_t recordBytes() const;
    std::uint64_t fileBytes() const; // header + count * recordBytes
};

inline constexpr std::size_t kTensorFileHeaderBytes = 64;

// Reads and validates the header of `path`, including that the file size matches
// the record count exactly. Throws DatasetError naming the file and the reason.
TensorFileHeader readTensorFileHeader(const std::string &path);

// Writes a tensor file atomically: records go to "<path>.part", and finish()
// renames it over `path` only when every record was written, so a failed or
// interrupted write never replaces a good file.
class TensorFileWriter
{
public:
    TensorFileWriter(std::string path, DType dtype, SampleShape shape);
    ~TensorFileWriter(); // removes the .part file unless finish() succeeded

    TensorFileWriter(const TensorFileWriter &) = delete;
    TensorFileWriter &operator=(const TensorFileWriter &) = delete;

    // `sample` must hold exactly C*H*W*dtype-size bytes. Throws std::runtime_error.
    void append(std::int64_t label, std::span<const std::byte> sample);
    void finish();
    std::uint64_t count() const { return m_count; }

private:
    std::string m_path;
    std::string m_partPath;
    TensorFileHeader m_header;
    std::FILE *m_file = nullptr;
    std::uint64_t m_count = 0;
    bool m_finished = false;
};

} // namespace loaderlab
