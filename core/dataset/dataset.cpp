#include "core/dataset/dataset.h"

#include <utility>

namespace loaderlab {

std::size_t dtypeSize(DType type)
{
    return type == DType::Float32 ? sizeof(float) : sizeof(std::uint8_t);
}

const char *dtypeName(DType type)
{
    return type == DType::Float32 ? "float32" : "uint8";
}

std::string shapeToString(const SampleShape &shape)
{
    return std::to_string(shape.channels) + "x" + std::to_string(shape.height) + "x"
           + std::to_string(shape.width);
}

SampleError::SampleError(std::string source, std::string reason)
    : std::runtime_error(source + ": " + reason)
    , m_source(std::move(source))
    , m_reason(std::move(reason))
{
}

} // namespace loaderlab
