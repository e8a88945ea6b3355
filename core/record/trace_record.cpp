#include "core/record/trace_record.h"

#include <array>
#include <utility>

namespace loaderlab {
namespace {

constexpr std::array<std::pair<MarkerKind, const char *>, 8> kMarkerKinds{{
    {MarkerKind::Reconfigure, "reconfigure"},
    {MarkerKind::Pause, "pause"},
    {MarkerKind::Resume, "resume"},
    {MarkerKind::Epoch, "epoch"},
    {MarkerKind::Autotune, "autotune"},
    {MarkerKind::Lesson, "lesson"},
    {MarkerKind::Note, "note"},
    {MarkerKind::Replay, "replay"},
}};

} // namespace

const char *markerKindName(MarkerKind kind)
{
    for (const auto &[k, name] : kMarkerKinds) {
        if (k == kind)
            return name;
    }
    return "note";
}

bool markerKindFromName(const std::string &name, MarkerKind &kind)
{
    for (const auto &[k, n] : kMarkerKinds) {
        if (name == n) {
            kind = k;
            return true;
        }
    }
    return false;
}

} // namespace loaderlab
