// toSafeJson: escapes invalid UTF-8 anywhere in a JSON value (see safe_json.h).

#include "core/system/safe_json.h"

#include "core/system/safe_text.h"

#include <string>

namespace loaderlab {
namespace {

void makeSafe(nlohmann::json &value)
{
    if (value.is_string()) {
        auto &text = value.get_ref<std::string &>();
        if (!isValidUtf8(text))
            text = escapeInvalidUtf8(text);
    } else if (value.is_array()) {
        for (auto &element : value)
            makeSafe(element);
    } else if (value.is_object()) {
        bool keysValid = true;
        for (auto it = value.begin(); it != value.end(); ++it) {
            makeSafe(it.value());
            keysValid = keysValid && isValidUtf8(it.key());
        }
        if (!keysValid) {
            nlohmann::json renamed = nlohmann::json::object();
            for (auto it = value.begin(); it != value.end(); ++it)
                renamed[escapeInvalidUtf8(it.key())] = std::move(it.value());
            value = std::move(renamed);
        }
    }
}

} // namespace

nlohmann::json toSafeJson(nlohmann::json value)
{
    makeSafe(value);
    return value;
}

} // namespace loaderlab
