#pragma once

// What the plots share: the trace's nanoseconds in the axes' units, the spacing of
// the per-batch dots, and the colour of a median line.

#include <QColor>

namespace loaderlab::plotunits {

inline constexpr double kNsPerS = 1e9;
inline constexpr double kNsPerMs = 1e6;
// A series is drawn as dots while each batch has this many pixels, else as a line.
inline constexpr double kPixelsPerDot = 3.0;
inline const QColor kMedianColor{213, 94, 0}; // Okabe-Ito vermillion

} // namespace loaderlab::plotunits
