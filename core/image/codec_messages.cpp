// libjpeg/libpng message capture for OpenCV's decoders (see codec_messages.h for
// why the two library entry points are defined here).

#include "core/image/codec_messages.h"

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <jpeglib.h>
#include <png.h>

namespace loaderlab {
namespace {

thread_local CodecMessageScope *t_scope = nullptr;

// The next definition of `name` after ours in the lookup order: the library's own.
template <typename Function>
Function realFunction(const char *name)
{
    void *symbol = ::dlsym(RTLD_NEXT, name);
    if (symbol == nullptr) {
        // Only libjpeg/libpng themselves call into here, so they are loaded.
        std::fprintf(stderr, "loaderlab: cannot find %s in the loaded libraries\n", name);
        std::abort();
    }
    return reinterpret_cast<Function>(symbol);
}

using JpegStdError = jpeg_error_mgr *(*)(jpeg_error_mgr *);
using PngCreateReadStruct = png_structp (*)(png_const_charp, png_voidp, png_error_ptr,
                                            png_error_ptr);

// libjpeg's own output_message, used when no scope is open.
void (*g_jpegPrint)(j_common_ptr) = nullptr;

void jpegOutputMessage(j_common_ptr cinfo)
{
    CodecMessageScope *scope = CodecMessageScope::current();
    if (scope == nullptr) {
        g_jpegPrint(cinfo);
        return;
    }
    char text[JMSG_LENGTH_MAX] = {};
    cinfo->err->format_message(cinfo, text);
    scope->addWarning(text);
}

void pngWarning(png_structp, png_const_charp message)
{
    if (CodecMessageScope *scope = CodecMessageScope::current()) {
        const std::string text = std::string("libpng warning: ") + message;
        scope->addWarning(text.c_str());
    } else {
        std::fprintf(stderr, "libpng warning: %s\n", message);
    }
}

[[noreturn]] void pngError(png_structp png, png_const_charp message)
{
    if (CodecMessageScope *scope = CodecMessageScope::current()) {
        const std::string text = std::string("libpng error: ") + message;
        scope->setError(text.c_str());
    } else {
        std::fprintf(stderr, "libpng error: %s\n", message);
    }
    png_longjmp(png, 1); // back to the decoder's setjmp, as libpng's default does
}

} // namespace

CodecMessageScope::CodecMessageScope()
    : m_outer(t_scope)
{
    t_scope = this;
}

CodecMessageScope::~CodecMessageScope()
{
    t_scope = m_outer;
}

void CodecMessageScope::addWarning(const char *text) noexcept
{
    try {
        m_warnings.emplace_back(text);
    } catch (...) {
        // Out of memory while decoding: losing a warning is the lesser evil;
        // an exception must not cross the C library's frames.
    }
}

void CodecMessageScope::setError(const char *text) noexcept
{
    try {
        m_error = text;
    } catch (...) {
    }
}

CodecMessageScope *CodecMessageScope::current() noexcept
{
    return t_scope;
}

} // namespace loaderlab

// The interposed entry points. Their signatures are libjpeg's and libpng's own.
extern "C" {

struct jpeg_error_mgr *jpeg_std_error(struct jpeg_error_mgr *err)
{
    static const auto real = loaderlab::realFunction<loaderlab::JpegStdError>("jpeg_std_error");
    jpeg_error_mgr *result = real(err);
    // The same function for every manager; written before any scope can read it.
    static const bool saved = (loaderlab::g_jpegPrint = result->output_message, true);
    (void)saved;
    result->output_message = loaderlab::jpegOutputMessage;
    return result;
}

png_structp png_create_read_struct(png_const_charp version, png_voidp errorPtr,
                                   png_error_ptr errorFn, png_error_ptr warnFn)
{
    static const auto real = loaderlab::realFunction<loaderlab::PngCreateReadStruct>(
        "png_create_read_struct");
    // Only a caller that kept libpng's defaults (OpenCV) gets the capturing handlers.
    if (loaderlab::CodecMessageScope::current() != nullptr && errorFn == nullptr
        && warnFn == nullptr)
        return real(version, errorPtr, loaderlab::pngError, loaderlab::pngWarning);
    return real(version, errorPtr, errorFn, warnFn);
}

} // extern "C"
