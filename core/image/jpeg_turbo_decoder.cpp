// TurboJPEG decoding into a reused buffer; one decompressor per thread, because a
// tjhandle must not be shared between threads and creating one per image costs
// more than decoding a small image's header.

#include "core/image/jpeg_turbo_decoder.h"

#include "core/dataset/dataset.h"

#include <turbojpeg.h>

#include <algorithm>

namespace loaderlab {

namespace {

// Owns this thread's decompressor.
class TurboHandle
{
public:
    TurboHandle()
        : m_handle(tjInitDecompress())
    {
    }
    ~TurboHandle()
    {
        if (m_handle)
            tjDestroy(m_handle);
    }
    TurboHandle(const TurboHandle &) = delete;
    TurboHandle &operator=(const TurboHandle &) = delete;
    tjhandle get() const { return m_handle; }

private:
    tjhandle m_handle;
};

tjhandle threadHandle(const std::string &path)
{
    thread_local TurboHandle handle;
    if (!handle.get())
        throw SampleError(path, "cannot decode: TurboJPEG could not start (out of memory)");
    return handle.get();
}

} // namespace

int jpegScaledSize(int size, int scaleEighths)
{
    // TJSCALED: the scaled size, rounded up.
    return static_cast<int>((std::int64_t{size} * scaleEighths + 7) / 8);
}

int jpegScaleEighths(int width, int height, int minShortSide)
{
    if (minShortSide <= 0)
        return 8;
    // Only 1/8, 1/4 and 1/2: with 3/8, 5/8, 6/8 and 7/8 (general-size inverse DCTs,
    // and an extra chroma upsampling for 4:2:0) the fast mode measured slower than
    // the full-size decode (0.79x the exact mode on 300-500 px photographs).
    const int shortSide = std::min(width, height);
    for (int m = 1; m < 8; m *= 2) {
        if (jpegScaledSize(shortSide, m) >= minShortSide)
            return m;
    }
    return 8;
}

bool decodeJpegTurbo(std::span<const std::uint8_t> data, const std::string &path, int scaleEighths,
                     cv::Mat &out, std::vector<std::string> &warnings)
{
    const tjhandle handle = threadHandle(path);
    int width = 0, height = 0, subsampling = 0, colorspace = 0;
    const auto size = static_cast<unsigned long>(data.size());
    if (tjDecompressHeader3(handle, data.data(), size, &width, &height, &subsampling, &colorspace)
        != 0)
        throw SampleError(path, std::string("cannot decode (") + tjGetErrorStr2(handle) + ")");
    if (colorspace == TJCS_CMYK || colorspace == TJCS_YCCK)
        return false;
    const int scale = std::clamp(scaleEighths, 1, 8);
    const int outWidth = jpegScaledSize(width, scale);
    const int outHeight = jpegScaledSize(height, scale);
    out.create(outHeight, outWidth, CV_8UC3);
    // Flags 0: accurate integer IDCT and fancy upsampling, libjpeg's (and PIL's) defaults.
    if (tjDecompress2(handle, data.data(), size, out.data, outWidth, static_cast<int>(out.step[0]),
                      outHeight, TJPF_RGB, 0)
        != 0) {
        const std::string why = tjGetErrorStr2(handle);
        if (tjGetErrorCode(handle) != TJERR_WARNING)
            throw SampleError(path, "cannot decode (" + why + ")");
        warnings.push_back(why);
    }
    return true;
}

} // namespace loaderlab
