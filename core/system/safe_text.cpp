// Escaping of untrusted bytes for JSON and for the terminal (see safe_text.h).

#include "core/system/safe_text.h"

#include <cstdint>

namespace loaderlab {
namespace {

// Length of the well-formed UTF-8 sequence starting at bytes[i], or 0 when the
// byte there does not start one (Unicode Table 3-7).
std::size_t validSequenceLength(std::string_view bytes, std::size_t i)
{
    const auto at = [&](std::size_t k) { return static_cast<std::uint8_t>(bytes[k]); };
    const std::uint8_t lead = at(i);
    if (lead < 0x80)
        return 1;
    std::size_t length = 0;
    std::uint8_t low = 0x80; // the allowed range of the second byte
    std::uint8_t high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0)
            low = 0xA0; // overlong below U+0800
        else if (lead == 0xED)
            high = 0x9F; // UTF-16 surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0)
            low = 0x90; // overlong below U+10000
        else if (lead == 0xF4)
            high = 0x8F; // above U+10FFFF
    } else {
        return 0; // continuation byte, C0/C1 overlong lead, or F5..FF
    }
    if (i + length > bytes.size())
        return 0;
    if (at(i + 1) < low || at(i + 1) > high)
        return 0;
    for (std::size_t k = 2; k < length; ++k) {
        if (at(i + k) < 0x80 || at(i + k) > 0xBF)
            return 0;
    }
    return length;
}

void appendEscaped(std::string &out, std::uint8_t byte)
{
    static constexpr char kHex[] = "0123456789ABCDEF";
    out += "\\x";
    out += kHex[byte >> 4];
    out += kHex[byte & 0x0F];
}

bool isControl(std::string_view bytes, std::size_t i, std::size_t length)
{
    const auto lead = static_cast<std::uint8_t>(bytes[i]);
    if (length == 1)
        return lead < 0x20 || lead == 0x7F;
    // U+0080..U+009F are encoded as C2 80..C2 9F.
    return length == 2 && lead == 0xC2 && static_cast<std::uint8_t>(bytes[i + 1]) <= 0x9F;
}

std::string escape(std::string_view bytes, bool escapeControls)
{
    std::string out;
    out.reserve(bytes.size());
    std::size_t i = 0;
    while (i < bytes.size()) {
        const std::size_t length = validSequenceLength(bytes, i);
        if (length == 0 || (escapeControls && isControl(bytes, i, length))) {
            const std::size_t count = length == 0 ? 1 : length;
            for (std::size_t k = 0; k < count; ++k)
                appendEscaped(out, static_cast<std::uint8_t>(bytes[i + k]));
            i += count;
        } else {
            out.append(bytes.substr(i, length));
            i += length;
        }
    }
    return out;
}

} // namespace

bool isValidUtf8(std::string_view bytes)
{
    std::size_t i = 0;
    while (i < bytes.size()) {
        const std::size_t length = validSequenceLength(bytes, i);
        if (length == 0)
            return false;
        i += length;
    }
    return true;
}

std::string escapeInvalidUtf8(std::string_view bytes)
{
    return escape(bytes, false);
}

std::string unescapeInvalidUtf8(std::string_view text)
{
    const auto hexValue = [](char c) {
        if (c >= '0' && c <= '9')
            return c - '0';
        if (c >= 'A' && c <= 'F')
            return c - 'A' + 10;
        if (c >= 'a' && c <= 'f')
            return c - 'a' + 10;
        return -1;
    };
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        if (text[i] == '\\' && i + 3 < text.size() && text[i + 1] == 'x') {
            const int high = hexValue(text[i + 2]);
            const int low = hexValue(text[i + 3]);
            if (high >= 8 && low >= 0) {
                out += static_cast<char>(high * 16 + low);
                i += 4;
                continue;
            }
        }
        out += text[i++];
    }
    return out;
}

std::string escapeForTerminal(std::string_view bytes)
{
    return escape(bytes, true);
}

std::string csvField(std::string_view bytes)
{
    const std::string text = escapeInvalidUtf8(bytes);
    if (text.find_first_of(",\"\r\n") == std::string::npos)
        return text;
    std::string quoted = "\"";
    for (const char c : text) {
        if (c == '"')
            quoted += '"';
        quoted += c;
    }
    quoted += '"';
    return quoted;
}

} // namespace loaderlab
