#pragma once

// A hint in the middle of a plot (what an empty plot is for, why a plot has no line),
// its text wrapped to the plot's axis rect at every layout: a plot item draws its text
// on one line per '\n', and at 1280 px or in German (a third longer than English) a
// fixed break leaves the lines cut on both sides.

#include "widgets/plots/qcustomplot_include.h"

#include <QFontMetricsF>
#include <QString>

namespace loaderlab::plothint {

// Sets `item`'s text to `text`, each of its '\n'-separated paragraphs broken at spaces
// into lines no wider than its plot's axis rect (less a margin), now and after each
// layout of the plot. A word wider than the room stays whole on a line of its own.
void setWrappedText(QCPItemText *item, const QString &text);

// Sets `title`'s text to `text` wrapped (as above) to its plot's width, now and when the
// plot is resized: a narrow plot's title otherwise runs into its neighbours.
void setWrappedTitle(QCPTextElement *title, const QString &text);

// `text` broken so: the function the item uses, for a given width in pixels.
QString wrapToWidth(const QString &text, const QFontMetricsF &metrics, double width);

} // namespace loaderlab::plothint
