#pragma once

// Dataset: the one interface every data source implements. A dataset turns a
// sample index into a fixed-size CHW sample written straight into its slot of a
// batch buffer, so collating a batch never copies sample data a second time.

#include "core/config/sample_shape.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>

namespace loaderlab {

enum class DType { Float32, UInt8 };

std::size_t dtypeSize(DType type);
const char *dtypeName(DType type);

std::string shapeToString(const SampleShape &shape);

// Per-sample cost breakdown, filled by Dataset::load. Durations in nanoseconds.
struct SampleTiming
{
    std::int64_t readNs = 0;
    std::int64_t decodeNs = 0;
    std::int64_t transformNs = 0;
};

// Everything a load needs besides the index: the epoch (random transforms are
// seeded from seed, epoch and index, so a sample looks the same whichever worker
// builds it) and the timing accumulator.
struct SampleContext
{
    std::uint64_t seed = 0;
    int epoch = 0;
    SampleTiming timing;
};

// A sample that cannot be read or decoded. Carries the file (or dataset name) and
// the reason, so the loader can skip it and report it, or stop the run with it.
class SampleError : public std::runtime_error
{
public:
    SampleError(std::string source, std::string reason);

    const std::string &source() const { return m_source; }
    const std::string &reason() const { return m_reason; }

private:
    std::string m_source;
    std::string m_reason;
};

// A dataset that cannot be opened at all (missing path, no images, wrong file
// size). Thrown by factories and constructors, never by load().
class DatasetError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

class Dataset
{
public:
    virtual ~Dataset() = default;

    // Short description for logs and summaries, e.g. "image-folder /data/imagenette (1000)".
    virtual std::string description() const = 0;
    virtual std::int64_t size() const = 0;
    virtual SampleShape sampleShape() const = 0;
    virtual DType dtype() const = 0;

    // Writes sample `index` into `out` (exactly sampleBytes() bytes) and returns its
    // label. Must be safe to call from several threads at once. Throws SampleError
    // for a sample that cannot be produced.
    virtual std::int64_t load(std::int64_t index, std::span<std::byte> out,
                              SampleContext &context) const = 0;

    std::size_t sampleBytes() const
    {
        return static_cast<std::size_t>(sampleShape().elements()) * dtypeSize(dtype());
    }
};

using DatasetPtr = std::shared_ptr<const Dataset>;

} // namespace loaderlab
