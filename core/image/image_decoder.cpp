// Image decoding: one open, fstat and read into a reused buffer, header checks done
// by hand before a codec sees the bytes (so bombs and truncated files are refused
// cheaply and with a clear reason), then JPEGs straight to RGB with libjpeg-turbo
// (only the region the caller will read, when it says which) and PNGs with
// cv::imdecode and BGR->RGB. What the codecs say during the decode is logged or
// made part of the error with the file's name.

#include "core/image/image_decoder.h"

#include "core/image/codec_messages.h"
#include "core/image/jpeg_decoder.h"
#include "core/system/clock.h"
#include "core/system/regular_file.h"
#include "core/system/repeated_warnings.h"
#include "core/system/safe_text.h"

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <mutex>
#include <new>
#include <unistd.h>

namespace loaderlab {

namespace {

// A file buffer bigger than this is released after use instead of being kept as
// thread-local scratch, so one huge image does not pin memory in every worker.
constexpr std::size_t kMaxRetainedBuffer = 32u * 1024 * 1024;

constexpr std::uint8_t kPngSignature[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};

int readBe16(const std::uint8_t *p)
{
    return (p[0] << 8) | p[1];
}

std::uint32_t readBe32(const std::uint8_t *p)
{
    return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8)
           | std::uint32_t{p[3]};
}

bool isSofMarker(int marker)
{
    // SOF0..SOF15, minus DHT (C4), JPG (C8) and DAC (CC), which share the range.
    return marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
}

ImageHeaderInfo parseJpegHeader(std::span<const std::uint8_t> d, const std::string &path)
{
    std::size_t pos = 2; // after SOI
    const std::size_t n = d.size();
    while (pos < n) {
        // Tolerate stray bytes between segments as libjpeg does (it only warns).
        while (pos < n && d[pos] != 0xFF)
            ++pos;
        while (pos < n && d[pos] == 0xFF) // fill bytes
            ++pos;
        if (pos >= n)
            break;
        const int marker = d[pos++];
        if (marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7))
            continue; // markers without a length field
        if (marker == 0xD9)
            throw SampleError(path, "JPEG ends before its frame header");
        if (marker == 0xDA)
            throw SampleError(path, "JPEG scan data before any frame header");
        if (pos + 2 > n)
            break;
        const int length = readBe16(&d[pos]);
        if (length < 2)
            throw SampleError(path, "malformed JPEG header (bad segment length)");
        if (isSofMarker(marker)) {
            if (pos + 7 > n)
                break;
            return {ImageFormat::Jpeg, readBe16(&d[pos + 5]), readBe16(&d[pos + 3])};
        }
        pos += static_cast<std::size_t>(length);
    }
    throw SampleError(path, "truncated JPEG header (no frame header found)");
}

ImageHeaderInfo parsePngHeader(std::span<const std::uint8_t> d, const std::string &path)
{
    if (d.size() < 24 || std::memcmp(&d[12], "IHDR", 4) != 0)
        throw SampleError(path, "truncated or malformed PNG header (no IHDR chunk)");
    const std::uint32_t width = readBe32(&d[16]);
    const std::uint32_t height = readBe32(&d[20]);
    if (width > 0x7FFFFFFFu || height > 0x7FFFFFFFu)
        throw SampleError(path, "malformed PNG header (dimensions out of range)");
    return {ImageFormat::Png, static_cast<int>(width), static_cast<int>(height)};
}

// True when the JPEG ends with EOI, ignoring zero padding some writers append.
// libjpeg decodes a truncated file partially (grey bottom rows) with only a
// warning, so truncation has to be caught here.
bool jpegHasEndMarker(std::span<const std::uint8_t> d)
{
    std::size_t end = d.size();
    while (end > 0 && d[end - 1] == 0x00)
        --end;
    return end >= 4 && d[end - 2] == 0xFF && d[end - 1] == 0xD9;
}

} // namespace

void disableOpenCvThreading()
{
    // The loader's workers are the parallelism. OpenCV's own pool would start
    // threads inside every worker's decode/convert call, oversubscribing the cores
    // and making per-sample times meaningless.
    static std::once_flag once;
    std::call_once(once, [] { cv::setNumThreads(0); });
}

void readImageFile(const std::string &path, std::int64_t maxFileBytes,
                   std::vector<std::uint8_t> &out)
{
    // Never a plain open(): a FIFO named like an image would block this worker forever.
    // The folder scan listed only regular files, so one open and fstat suffice.
    std::string reason;
    std::int64_t size = 0;
    const int fd = openListedRegularFile(path, reason, &size);
    if (fd < 0)
        throw SampleError(path, reason);
    const FdCloser closer(fd);

    if (size == 0)
        throw SampleError(path, "empty file");
    if (size > maxFileBytes)
        throw SampleError(path, "file is " + std::to_string(size) + " bytes, over the limit of "
                                    + std::to_string(maxFileBytes));

    out.resize(static_cast<std::size_t>(size));
    std::size_t done = 0;
    while (done < out.size()) {
        const ssize_t got = ::read(fd, out.data() + done, out.size() - done);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            throw SampleError(path, std::string("read failed: ") + std::strerror(errno));
        }
        if (got == 0)
            throw SampleError(path, "file shrank while being read");
        done += static_cast<std::size_t>(got);
    }
}

ImageHeaderInfo parseImageHeader(std::span<const std::uint8_t> data, const std::string &path)
{
    if (data.size() >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF)
        return parseJpegHeader(data, path);
    if (data.size() >= 8 && std::memcmp(data.data(), kPngSignature, 8) == 0)
        return parsePngHeader(data, path);
    throw SampleError(path, "not a JPEG or PNG image");
}

namespace {

void logWarnings(const std::string &path, const std::vector<std::string> &warnings)
{
    // The image decoded, possibly with damage (grey blocks): worth a look, but
    // the sample is used, as PIL would use it.
    for (const std::string &warning : warnings)
        sampleWarnings().warn(escapeForTerminal(path) + ": " + escapeForTerminal(warning));
}

// cv::imdecode into `image`, then BGR->RGB: PNGs.
void decodeWithOpenCv(std::span<const std::uint8_t> data, const std::string &path, cv::Mat &image)
{
    // imdecode only reads the buffer; the Mat header just wraps it, no copy.
    const cv::Mat buffer(1, static_cast<int>(data.size()), CV_8UC1,
                         const_cast<std::uint8_t *>(data.data()));
    CodecMessageScope messages;
    // PIL (torchvision's loader) ignores EXIF orientation, so OpenCV must too.
    cv::Mat decoded = cv::imdecode(buffer, cv::IMREAD_COLOR | cv::IMREAD_IGNORE_ORIENTATION);
    if (decoded.empty() || decoded.type() != CV_8UC3) {
        // libpng says why; libjpeg's fatal errors stay with OpenCV, but a
        // warning before them is often the cause.
        std::string why = messages.error();
        if (why.empty() && !messages.warnings().empty())
            why = messages.warnings().front();
        if (why.empty())
            why = "corrupt or truncated data";
        throw SampleError(path, "cannot decode (" + why + ")");
    }
    logWarnings(path, messages.warnings());
    cv::cvtColor(decoded, image, cv::COLOR_BGR2RGB);
}

} // namespace

void decodeImageBytes(std::span<const std::uint8_t> data, const std::string &path,
                      const DecodeLimits &limits, ImageWindow &image, const DecodeOptions &options)
{
    disableOpenCvThreading();
    const ImageHeaderInfo header = parseImageHeader(data, path);
    const std::string dims = std::to_string(header.width) + "x" + std::to_string(header.height);
    if (header.width <= 0 || header.height <= 0)
        throw SampleError(path, "declares an empty " + dims + " image");
    if (std::int64_t{header.width} * header.height > limits.maxImagePixels)
        throw SampleError(path, "declares " + dims + " pixels, over the limit of "
                                    + std::to_string(limits.maxImagePixels)
                                    + ": possible decompression bomb");
    if (header.format == ImageFormat::Jpeg && !jpegHasEndMarker(data))
        throw SampleError(path, "truncated JPEG data (no end-of-image marker)");

    if (data.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
        throw SampleError(path, "file too large for the decoder (over 2 GiB)");

    JpegDecodeRequest request;
    if (header.format == ImageFormat::Jpeg)
        request.scaleEighths = jpegScaleEighths(header.width, header.height,
                                                options.fastMinShortSide);
    const cv::Size decodedSize(jpegScaledSize(header.width, request.scaleEighths),
                               jpegScaledSize(header.height, request.scaleEighths));
    if (options.region)
        request.region = options.region(decodedSize) & cv::Rect(cv::Point(0, 0), decodedSize);
    try {
        if (header.format == ImageFormat::Jpeg) {
            std::vector<std::string> warnings;
            decodeJpeg(data, path, request, image, warnings);
            logWarnings(path, warnings);
            if (image.fullSize != decodedSize || !image.covers(request.region))
                throw SampleError(path, "decoded size differs from the declared " + dims);
        } else {
            // Whole and full size: PNGs have no region or scale.
            decodeWithOpenCv(data, path, image.pixels);
            image.origin = {0, 0};
            image.fullSize = image.pixels.size();
            if (image.fullSize != cv::Size(header.width, header.height))
                throw SampleError(path, "decoded size differs from the declared " + dims);
        }
    } catch (const cv::Exception &e) {
        throw SampleError(path, std::string("cannot decode: ") + e.what());
    } catch (const std::bad_alloc &) {
        throw SampleError(path, "cannot decode: out of memory for " + dims + " pixels");
    }
}

cv::Mat decodeImageBytes(std::span<const std::uint8_t> data, const std::string &path,
                         const DecodeLimits &limits)
{
    ImageWindow image;
    decodeImageBytes(data, path, limits, image);
    return image.pixels;
}

void decodeImageFile(const std::string &path, const DecodeLimits &limits, SampleTiming &timing,
                     ImageWindow &image, const DecodeOptions &options)
{
    thread_local std::vector<std::uint8_t> buffer;
    const std::int64_t t0 = steadyNowNs();
    try {
        readImageFile(path, limits.maxFileBytes, buffer);
        const std::int64_t t1 = steadyNowNs();
        timing.readNs += t1 - t0;
        decodeImageBytes(buffer, path, limits, image, options);
        timing.decodeNs += steadyNowNs() - t1;
        if (buffer.capacity() > kMaxRetainedBuffer)
            std::vector<std::uint8_t>().swap(buffer);
    } catch (...) {
        if (buffer.capacity() > kMaxRetainedBuffer)
            std::vector<std::uint8_t>().swap(buffer);
        throw;
    }
}

cv::Mat decodeImageFile(const std::string &path, const DecodeLimits &limits, SampleTiming &timing)
{
    ImageWindow image;
    decodeImageFile(path, limits, timing, image);
    return image.pixels;
}

} // namespace loaderlab
