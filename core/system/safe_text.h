#pragma once

// Text made from bytes we do not control (file names, paths, messages that quote
// them) before it goes where only text is allowed: JSON needs valid UTF-8, and a
// terminal or log must not receive control characters that move the cursor,
// change colours or forge extra lines.
//
// Both functions keep every byte recoverable: a byte that cannot be shown as is
// becomes the four characters `\xHH` (two upper-case hex digits). A name that
// already contains the literal text `\xHH` reads the same after escaping; names
// like that are rare enough that no extra escaping of backslashes is done, so
// ordinary names (Windows-style ones included) pass unchanged.

#include <string>
#include <string_view>

namespace loaderlab {

// True when `bytes` is well-formed UTF-8 (no overlong forms, no surrogates,
// nothing above U+10FFFF, no truncated sequence).
bool isValidUtf8(std::string_view bytes);

// Valid UTF-8 sequences pass unchanged; each byte that is not part of one becomes
// `\xHH`. The result is always valid UTF-8.
std::string escapeInvalidUtf8(std::string_view bytes);

// The inverse of escapeInvalidUtf8: each `\xHH` with HH from 80 to FF becomes
// that byte again (other text, `\x41` included, is kept). Exact for every result
// of escapeInvalidUtf8 whose input did not itself hold such literal text.
std::string unescapeInvalidUtf8(std::string_view text);

// escapeInvalidUtf8, and also C0 control characters (U+0000..U+001F, newline and
// tab included), DEL (U+007F) and C1 control characters (U+0080..U+009F, whose
// bytes are escaped one by one) become `\xHH`: "a\nb" prints as `a\x0Ab`. For
// anything that names a file on stderr or in a log.
std::string escapeForTerminal(std::string_view bytes);

// One CSV field per RFC 4180: escapeInvalidUtf8, then, if the text holds a comma,
// a double quote, CR or LF, wrapped in double quotes with each quote doubled.
std::string csvField(std::string_view bytes);

} // namespace loaderlab
