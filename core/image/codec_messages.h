#pragma once

// CodecMessageScope: collects what libjpeg and libpng say while OpenCV decodes one
// file on this thread, so the decoder can report it with the file's name.
//
// OpenCV 4.6 offers no hook for these messages: its JPEG decoder installs
// libjpeg's standard error manager, whose warnings ("Corrupt JPEG data: ...",
// "Premature end of JPEG file") go straight to stderr, and its PNG decoder leaves
// libpng's default handlers in place ("libpng warning: ...", "libpng error: ...").
// cv::utils::logging does not see them. So codec_messages.cpp defines
// jpeg_std_error() and png_create_read_struct() itself: the dynamic linker binds
// OpenCV's calls to these definitions in the executable, which call the real
// libjpeg/libpng functions (found with dlsym(RTLD_NEXT)) and, while a scope is
// open on the calling thread, install handlers that record the messages instead
// of printing them. Outside a scope (Qt's image plugins, OpenCV encoding) the
// libraries behave exactly as before.
//
// If a build links an OpenCV whose codecs are private static copies, the
// definitions are never called, no message is collected and the libraries print
// as they always did; decoding is unaffected either way.

#include <string>
#include <vector>

namespace loaderlab {

class CodecMessageScope
{
public:
    CodecMessageScope();
    ~CodecMessageScope();
    CodecMessageScope(const CodecMessageScope &) = delete;
    CodecMessageScope &operator=(const CodecMessageScope &) = delete;

    // Warnings in the order they were raised, e.g. "Corrupt JPEG data: 3
    // extraneous bytes before marker 0xd9" or "libpng warning: iCCP: ...".
    const std::vector<std::string> &warnings() const { return m_warnings; }
    // The libpng error that stopped decoding ("libpng error: IDAT: CRC error"),
    // or empty. (OpenCV replaces libjpeg's error handler, so JPEG errors are not
    // seen here.)
    const std::string &error() const { return m_error; }

    // Used by the library callbacks; never throw.
    void addWarning(const char *text) noexcept;
    void setError(const char *text) noexcept;

    // The scope open on the calling thread, or nullptr.
    static CodecMessageScope *current() noexcept;

private:
    std::vector<std::string> m_warnings;
    std::string m_error;
    CodecMessageScope *m_outer;
};

} // namespace loaderlab
