#pragma once

// Figures as the window shows them: not localised and with fixed decimals, so a
// figure reads as the command line's and the docs' output does and can be compared
// with them digit for digit.

#include <QString>

namespace loaderlab::figuretext {

inline QString number(double value, int decimals = 1)
{
    return QString::number(value, 'f', decimals);
}

} // namespace loaderlab::figuretext
