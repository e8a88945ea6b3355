#include "app/cli/window_option_table.h"

#include "core/trace/trace_log.h"

namespace loaderlab {

QList<QCommandLineOption> windowOptionList()
{
    return {
        {QStringLiteral("config"), QStringLiteral("Start with this JSON configuration."),
         QStringLiteral("FILE")},
        {QStringLiteral("lang"), QStringLiteral("Language (en, de) for this session."),
         QStringLiteral("CODE")},
        {QStringLiteral("screenshot"), QStringLiteral("Run, save a PNG of the window, and quit."),
         QStringLiteral("FILE")},
        {QStringLiteral("seconds"),
         QStringLiteral("With --screenshot or --json: run this long (default 3)."),
         QStringLiteral("S"), QStringLiteral("3")},
        {QStringLiteral("json"), QStringLiteral("Run, write the summary as JSON, and quit."),
         QStringLiteral("FILE")},
        {QStringLiteral("size"),
         QStringLiteral("The window's size, WIDTHxHEIGHT (default 1400x900)."),
         QStringLiteral("WxH"), QStringLiteral("1400x900")},
        {QStringLiteral("view"),
         QStringLiteral("The tab shown: live (default) or experiments; or limits, the Limits "
                        "of this machine dialog. With --screenshot and experiments: run the "
                        "sweep, save the window when it ends, and quit; and limits: after the "
                        "run, measure the ceilings, save the dialog, and quit."),
         QStringLiteral("NAME"), QStringLiteral("live")},
        {QStringLiteral("sweep"),
         QStringLiteral("With --view experiments: open this sweep results folder and run the "
                        "cells it lacks (as Resume), instead of the view's default sweep."),
         QStringLiteral("DIR")},
        {QStringLiteral("keep-batches"),
         QStringLiteral("Keep only the last N batches of a run in memory (0: all), as `run "
                        "--keep-batches` does; the figures still cover every batch (default "
                        "%1).")
             .arg(kDefaultKeepBatches),
         QStringLiteral("N"), QString::number(kDefaultKeepBatches)},
    };
}

QString windowOptionsHelp()
{
    constexpr qsizetype kColumn = 21; // where the descriptions start
    constexpr qsizetype kWidth = 80;  // wrapped here
    QString out;
    for (const QCommandLineOption &option : windowOptionList()) {
        QString line = QStringLiteral("  --") + option.names().first();
        if (!option.valueName().isEmpty())
            line += QLatin1Char(' ') + option.valueName();
        line = line.leftJustified(kColumn);
        qsizetype words = 0; // on this line
        for (const QString &word : option.description().split(QLatin1Char(' '))) {
            if (words > 0 && line.size() + 1 + word.size() > kWidth) {
                out += line + QLatin1Char('\n');
                line = QString(kColumn, QLatin1Char(' '));
                words = 0;
            }
            line += (words++ > 0 ? QStringLiteral(" ") : QString()) + word;
        }
        out += line + QLatin1Char('\n');
    }
    return out;
}

} // namespace loaderlab
