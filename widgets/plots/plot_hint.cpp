#include "widgets/plots/plot_hint.h"

#include <QVariant>

namespace loaderlab::plothint {

namespace {

constexpr double kMargin = 8.0; // each side, between the text and the axes
const char *const kFullText = "loaderlabFullText";
const char *const kFollows = "loaderlabFollowsLayout";

void rewrap(QCPItemText *item)
{
    const QCustomPlot *plot = item->parentPlot();
    const double room = plot->axisRect()->width() - 2 * kMargin;
    if (room <= 0)
        return;
    const QString wrapped =
        wrapToWidth(item->property(kFullText).toString(), QFontMetricsF(item->font(), plot), room);
    if (wrapped != item->text())
        item->setText(wrapped);
}

} // namespace

QString wrapToWidth(const QString &text, const QFontMetricsF &metrics, double width)
{
    QStringList lines;
    for (const QString &paragraph : text.split(QLatin1Char('\n'))) {
        QString line;
        for (const QString &word : paragraph.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
            const QString longer = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
            if (!line.isEmpty() && metrics.horizontalAdvance(longer) > width) {
                lines << line;
                line = word;
            } else {
                line = longer;
            }
        }
        lines << line;
    }
    return lines.join(QLatin1Char('\n'));
}

void setWrappedText(QCPItemText *item, const QString &text)
{
    item->setProperty(kFullText, text);
    item->setText(text);
    if (!item->property(kFollows).toBool()) {
        item->setProperty(kFollows, true);
        QObject::connect(item->parentPlot(), &QCustomPlot::afterLayout, item,
                         [item] { rewrap(item); });
    }
    rewrap(item);
}

} // namespace loaderlab::plothint
