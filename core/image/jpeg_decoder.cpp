// libjpeg decoding into a reused buffer, one decompressor per thread (a
// decompressor must not be shared between threads, and creating one per image
// costs more than a small image's header). libjpeg reports a fatal error by
// calling error_exit, which must not return: it longjmps back to decodeWindow's
// setjmp, whose frame holds no object with a destructor.

#include "core/image/jpeg_decoder.h"

#include "core/dataset/dataset.h"

#include <algorithm>
#include <csetjmp>
#include <cstdio> // jpeglib.h uses FILE without including it

#include <jpeglib.h>

namespace loaderlab {

namespace {

constexpr std::size_t kMaxWarnings = 4;

struct ErrorManager
{
    jpeg_error_mgr pub; // first: libjpeg sees a jpeg_error_mgr *
    std::jmp_buf jump;
    std::vector<std::string> *warnings = nullptr;
    char message[JMSG_LENGTH_MAX] = {};
};

[[noreturn]] void onFatalError(j_common_ptr cinfo)
{
    auto *err = reinterpret_cast<ErrorManager *>(cinfo->err);
    (*cinfo->err->format_message)(cinfo, err->message);
    std::longjmp(err->jump, 1);
}

void onMessage(j_common_ptr cinfo, int level)
{
    if (level >= 0)
        return; // trace messages
    auto *err = reinterpret_cast<ErrorManager *>(cinfo->err);
    ++err->pub.num_warnings;
    if (!err->warnings || err->warnings->size() >= kMaxWarnings)
        return;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    try {
        err->warnings->emplace_back(text);
    } catch (...) {
        // Out of memory for a warning's text: libjpeg's C frames must not see an exception.
    }
}

// This thread's decompressor, and its row buffer for CMYK images.
class Decompressor
{
public:
    Decompressor()
    {
        m_cinfo.err = jpeg_std_error(&m_err.pub);
        m_err.pub.error_exit = onFatalError;
        m_err.pub.emit_message = onMessage;
        if (setjmp(m_err.jump))
            return; // out of memory: m_created stays false
        jpeg_create_decompress(&m_cinfo);
        m_created = true;
    }
    ~Decompressor()
    {
        if (m_created)
            jpeg_destroy_decompress(&m_cinfo);
    }
    Decompressor(const Decompressor &) = delete;
    Decompressor &operator=(const Decompressor &) = delete;

    bool created() const { return m_created; }
    jpeg_decompress_struct &cinfo() { return m_cinfo; }
    ErrorManager &errors() { return m_err; }
    std::vector<JSAMPLE> &cmykRows() { return m_cmykRows; }

private:
    jpeg_decompress_struct m_cinfo{};
    ErrorManager m_err;
    bool m_created = false;
    std::vector<JSAMPLE> m_cmykRows;
};

Decompressor &threadDecompressor(const std::string &path)
{
    thread_local Decompressor decompressor;
    if (!decompressor.created())
        throw SampleError(path, "cannot decode: libjpeg could not start (out of memory)");
    return decompressor;
}

enum class Outcome { Decoded, Failed };

constexpr int kRowBatch = 16; // rows per call: libjpeg's output is at most this tall a group

// Pillow's (a * b) / 255, rounded: MULDIV255 in its Convert.c.
inline int mulDiv255(int a, int b)
{
    const int t = a * b + 128;
    return ((t >> 8) + t) >> 8;
}

// CMYK as libjpeg outputs it (Adobe's inverted polarity, which Pillow always
// assumes: its raw mode "CMYK;I") to RGB with Pillow's cmyk2rgb, so the pixels are
// PIL's: with c = 255 - stored and nk = 255 - k = stored k, nk - c * nk / 255.
void cmykRowToRgb(const JSAMPLE *in, std::uint8_t *out, JDIMENSION width)
{
    for (JDIMENSION x = 0; x < width; ++x, in += 4, out += 3) {
        const int nk = in[3];
        out[0] = static_cast<std::uint8_t>(nk - mulDiv255(255 - in[0], nk));
        out[1] = static_cast<std::uint8_t>(nk - mulDiv255(255 - in[1], nk));
        out[2] = static_cast<std::uint8_t>(nk - mulDiv255(255 - in[2], nk));
    }
}

// Reads rows [first, end) of the output into `pixels`; 4-channel CMYK output goes
// through `cmyk` (kRowBatch rows) and is converted to RGB.
void readRows(jpeg_decompress_struct &cinfo, cv::Mat &pixels, JDIMENSION first, JDIMENSION end,
              std::vector<JSAMPLE> &cmyk)
{
    const bool isCmyk = cinfo.out_color_space == JCS_CMYK;
    const std::size_t cmykStride = static_cast<std::size_t>(cinfo.output_width) * 4;
    JSAMPROW rows[kRowBatch];
    while (cinfo.output_scanline < end) {
        const JDIMENSION at = cinfo.output_scanline;
        const auto n = static_cast<int>(std::min<JDIMENSION>(end - at, kRowBatch));
        for (int i = 0; i < n; ++i)
            rows[i] = isCmyk ? cmyk.data() + cmykStride * static_cast<std::size_t>(i)
                             : pixels.ptr<JSAMPLE>(static_cast<int>(at - first) + i);
        const JDIMENSION got = jpeg_read_scanlines(&cinfo, rows, static_cast<JDIMENSION>(n));
        if (got == 0)
            break; // suspended: cannot happen with a memory source, but never spin
        for (JDIMENSION i = 0; isCmyk && i < got; ++i)
            cmykRowToRgb(rows[i], pixels.ptr<std::uint8_t>(static_cast<int>(at - first + i)),
                         cinfo.output_width);
    }
}

// Every libjpeg call of one decode. After a fatal error it returns Failed with the
// message in the error manager; the decompressor is then reset by the caller.
Outcome decodeWindow(Decompressor &d, std::span<const std::uint8_t> data,
                     const JpegDecodeRequest &request, ImageWindow &out)
{
    jpeg_decompress_struct &cinfo = d.cinfo();
    if (setjmp(d.errors().jump))
        return Outcome::Failed;
    jpeg_mem_src(&cinfo, data.data(), static_cast<unsigned long>(data.size()));
    jpeg_read_header(&cinfo, TRUE);
    const bool cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
    cinfo.scale_num = static_cast<unsigned int>(std::clamp(request.scaleEighths, 1, 8));
    cinfo.scale_denom = 8;
    // libjpeg's (and PIL's) defaults, stated: accurate integer IDCT, fancy upsampling.
    cinfo.dct_method = JDCT_ISLOW;
    cinfo.do_fancy_upsampling = TRUE;
    jpeg_start_decompress(&cinfo);

    const cv::Size full(static_cast<int>(cinfo.output_width),
                        static_cast<int>(cinfo.output_height));
    cv::Rect want = request.region & cv::Rect(cv::Point(0, 0), full);
    if (want.empty())
        want = cv::Rect(cv::Point(0, 0), full);
    // One iMCU of margin on each cropped side keeps the upsampler's neighbours.
    const int marginX = cinfo.max_h_samp_factor * cinfo.min_DCT_scaled_size;
    const int marginY = cinfo.max_v_samp_factor * cinfo.min_DCT_scaled_size;
    JDIMENSION x = static_cast<JDIMENSION>(std::max(want.x - marginX, 0));
    JDIMENSION width = static_cast<JDIMENSION>(std::min(want.x + want.width + marginX, full.width))
                       - x;
    if (x > 0 || static_cast<int>(width) < full.width)
        jpeg_crop_scanline(&cinfo, &x, &width); // widens to iMCU boundaries
    const auto firstRow = static_cast<JDIMENSION>(std::max(want.y - marginY, 0));
    const auto endRow = static_cast<JDIMENSION>(want.y + want.height); // libjpeg reads ahead itself
    if (firstRow > 0)
        jpeg_skip_scanlines(&cinfo, firstRow);
    if (cinfo.output_scanline != firstRow) {
        std::snprintf(d.errors().message, sizeof d.errors().message, "could not skip to row %u",
                      static_cast<unsigned>(firstRow));
        return Outcome::Failed;
    }

    out.origin = {static_cast<int>(x), static_cast<int>(firstRow)};
    out.fullSize = full;
    out.pixels.create(static_cast<int>(endRow - firstRow), static_cast<int>(cinfo.output_width),
                      CV_8UC3);
    if (cmyk)
        d.cmykRows().resize(static_cast<std::size_t>(cinfo.output_width) * 4 * kRowBatch);
    readRows(cinfo, out.pixels, firstRow, endRow, d.cmykRows());
    if (cinfo.output_scanline < endRow)
        return Outcome::Failed; // (cannot happen with a memory source)
    // Only a full read goes on to the end-of-image checks; rows below the region
    // are left undecoded (the caller resets the decompressor either way).
    if (cinfo.output_scanline == cinfo.output_height)
        jpeg_finish_decompress(&cinfo);
    return Outcome::Decoded;
}

} // namespace

int jpegScaledSize(int size, int scaleEighths)
{
    // libjpeg's jdiv_round_up: the scaled size, rounded up.
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

void decodeJpeg(std::span<const std::uint8_t> data, const std::string &path,
                const JpegDecodeRequest &request, ImageWindow &out,
                std::vector<std::string> &warnings)
{
    Decompressor &d = threadDecompressor(path);
    d.errors().warnings = &warnings;
    d.errors().message[0] = '\0';
    Outcome outcome = Outcome::Failed;
    try {
        outcome = decodeWindow(d, data, request, out);
    } catch (...) {
        // The pixel buffer could not be allocated: reset libjpeg, then report.
        jpeg_abort_decompress(&d.cinfo());
        d.errors().warnings = nullptr;
        throw;
    }
    jpeg_abort_decompress(&d.cinfo()); // ready for the next image (a no-op after finish)
    d.errors().warnings = nullptr;
    if (outcome == Outcome::Failed) {
        const std::string why = d.errors().message[0] ? d.errors().message : "incomplete data";
        throw SampleError(path, "cannot decode (" + why + ")");
    }
}

} // namespace loaderlab
