#include "widgets/plots/plot_hint.h"

#include <QEvent>
#include <QVariant>

namespace loaderlab::plothint {

namespace {

constexpr double kMargin = 8.0; // each side, between the text and the axes
const char *const kFullText = "loaderlabFullText";
const char *const kFollows = "loaderlabFollowsLayout";
const char *const kWrapper = "loaderlabTitleWrapper";

void rewrap(QCPItemText *item)
{
    const QCustomPlot *plot = item->parentPlot();
    const double room = plot->axisRect()->width() - 2 * kMargin;
    if (room <= 0)
        return;
    const QString wrapped = wrapToWidth(item->property(kFullText).toString(),
                                        QFontMetricsF(item->font(), plot), room);
    if (wrapped != item->text())
        item->setText(wrapped);
}

// Re-wraps a plot's title when the plot is resized (before it lays itself out).
class TitleWrapper : public QObject
{
public:
    TitleWrapper(QCPTextElement *title, QCustomPlot *plot)
        : QObject(plot)
        , m_title(title)
        , m_plot(plot)
    {
        plot->installEventFilter(this);
    }

    void setText(const QString &text)
    {
        m_text = text;
        wrap();
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (watched == m_plot && event->type() == QEvent::Resize)
            wrap();
        return false;
    }

private:
    void wrap()
    {
        const double room = m_plot->width() - 2 * kMargin;
        m_title->setText(
            room > 0 ? wrapToWidth(m_text, QFontMetricsF(m_title->font(), m_plot), room) : m_text);
    }

    QCPTextElement *m_title;
    QCustomPlot *m_plot;
    QString m_text;
};

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

void setWrappedTitle(QCPTextElement *title, const QString &text)
{
    // The title's own wrapper, kept on it (the class has no meta-object to find it by).
    auto *wrapper = static_cast<TitleWrapper *>(title->property(kWrapper).value<QObject *>());
    if (!wrapper) {
        wrapper = new TitleWrapper(title, title->parentPlot());
        title->setProperty(kWrapper, QVariant::fromValue<QObject *>(wrapper));
    }
    wrapper->setText(text);
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
