#pragma once

// Include QCustomPlot through here. Its header uses the `signals`, `slots` and
// `foreach` keywords, which the project turns off with QT_NO_KEYWORDS (they clash
// with LibTorch and other libraries); they are defined for this header only.

#ifdef QT_NO_KEYWORDS
#define signals Q_SIGNALS
#define slots Q_SLOTS
#define foreach Q_FOREACH
#include <qcustomplot.h>
#undef signals
#undef slots
#undef foreach
#else
#include <qcustomplot.h>
#endif
