#pragma once

// toSafeJson: the last step before any JSON file is written. nlohmann::json's
// dump() throws on a string that is not valid UTF-8, and a file name can be any
// bytes, so a run summary naming such a file could not be written at all. Its
// error_handler_t::replace would write U+FFFD and lose the bytes; here each
// invalid byte becomes the text `\xHH` instead (see safe_text.h).

#include <nlohmann/json.hpp>

namespace loaderlab {

// Returns `value` with every string and object key passed through
// escapeInvalidUtf8. Values that are already valid are left as they are.
nlohmann::json toSafeJson(nlohmann::json value);

} // namespace loaderlab
