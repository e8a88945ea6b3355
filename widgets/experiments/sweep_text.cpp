#include "widgets/experiments/sweep_text.h"

#include "core/config/config_fields.h"
#include "widgets/common/marker_text.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>

namespace loaderlab::sweeptext {

QString axisValue(const std::string &key, const nlohmann::json &value)
{
    const ConfigField *field = findConfigField(key);
    return QString::fromStdString(field ? configValueText(*field, value) : value.dump());
}
namespace {

// "%.1f %%" under 10, "%.0f %%" from 10 on, as core writes it.
QString percent(double p)
{
    return QString::number(p, 'f', p < 10 ? 1 : 0) + QStringLiteral(" %");
}

// The values of the axes that choose the settings (grouping == false) or that say
// what runs (true); where `other` is given, only those in which it differs.
QString joined(const SweepAnalysis &analysis, const SweepCellStats &cell, bool grouping,
               const SweepCellStats *same = nullptr)
{
    QStringList parts;
    for (std::size_t a = 0; a < analysis.keys.size(); ++a) {
        if (isSweepGroupAxis(analysis.keys[a]) != grouping
            || (same && same->values[a] == cell.values[a]))
            continue;
        parts << value(analysis.keys[a], cell.values[a]);
    }
    return parts.join(QStringLiteral(", "));
}

} // namespace

const std::vector<const SweepFigure *> &figures()
{
    static const std::vector<const SweepFigure *> order = [] {
        std::vector<const SweepFigure *> out;
        for (const SweepFigureId id :
             {SweepFigureId::SamplesPerSecond, SweepFigureId::EndToEnd,
              SweepFigureId::InputBoundShare, SweepFigureId::FirstBatch, SweepFigureId::WaitP95})
            out.push_back(&sweepFigure(id));
        for (const SweepFigure &f : sweepFigures()) {
            if (std::find(out.begin(), out.end(), &f) == out.end())
                out.push_back(&f);
        }
        return out;
    }();
    return order;
}

QString figureLabel(const SweepFigure &figure)
{
    return QCoreApplication::translate("SweepText", figure.label);
}

QString figureHeading(const SweepFigure &figure)
{
    return QCoreApplication::translate("SweepText", figure.heading);
}

QString figureValue(const SweepFigure &figure, double value, int decimals)
{
    const QString number = QString::number(figure.shown(value), 'f', decimals);
    return figure.share ? number + QStringLiteral(" %") : number;
}

QString value(const std::string &key, const nlohmann::json &value)
{
    const ConfigField *field = findConfigField(key);
    const QString text = QString::fromStdString(field ? configValueText(*field, value)
                                                      : value.dump());
    if (key == "loader.num_workers")
        return text == QLatin1String("1")
                   ? QCoreApplication::translate("SweepText", "1 worker")
                   : QCoreApplication::translate("SweepText", "%1 workers").arg(text);
    if (key == "loader.batch_size")
        return QCoreApplication::translate("SweepText", "batch %1").arg(text);
    if (key == "loader.prefetch_factor")
        return QCoreApplication::translate("SweepText", "prefetch %1").arg(text);
    const QString name = field ? markertext::fieldLabel(*field) : QString::fromStdString(key);
    return name + QLatin1Char(' ') + text;
}

QString values(const std::vector<std::string> &keys, const std::vector<nlohmann::json> &values,
               int skip)
{
    QStringList parts;
    for (std::size_t a = 0; a < keys.size() && a < values.size(); ++a) {
        if (static_cast<int>(a) != skip)
            parts << value(keys[a], values[a]);
    }
    return parts.join(QStringLiteral(", "));
}

QString recommendation(const SweepAnalysis &analysis, const SweepRecommendation &rec)
{
    if (!rec.best)
        return {};
    const SweepCellStats &best = *rec.best;
    const QString group = joined(analysis, best, true);
    const QString settings = joined(analysis, best, false);
    QString sentence = group.isEmpty() ? QString() : group + QStringLiteral(": ");
    sentence += settings.isEmpty() ? QCoreApplication::translate("SweepText", "the best cell")
                                   : settings;
    sentence += QCoreApplication::translate("SweepText", " (%1 s end to end, %2 samples/s)")
                    .arg(QString::number(best.endToEndMean, 'f', 3),
                         QString::number(best.throughputMean, 'f', 0));
    if (rec.runnerUp) {
        if (rec.moreWorkersAddNothing) {
            const auto &keys = analysis.keys;
            const auto w = std::find(keys.begin(), keys.end(), "loader.num_workers");
            if (w != keys.end())
                sentence +=
                    QStringLiteral("; ")
                    + QCoreApplication::translate("SweepText", "more workers add nothing past %1")
                          .arg(QString::fromStdString(
                              best.values[static_cast<std::size_t>(w - keys.begin())].dump()));
        }
        const QString diff = joined(analysis, *rec.runnerUp, false, &best);
        sentence += QStringLiteral("; ")
                    + QCoreApplication::translate("SweepText", "%1 is %2 slower")
                          .arg(diff.isEmpty()
                                   ? QCoreApplication::translate("SweepText", "the runner-up")
                                   : diff,
                               percent(rec.marginPercent));
        if (!rec.noiseKnown)
            sentence += QCoreApplication::translate(
                "SweepText",
                " (one run per cell: the spread is unknown; set Repeats to 2 or more)");
        else if (rec.withinNoise)
            sentence += QCoreApplication::translate("SweepText",
                                                    ", within noise (repeats spread %1)")
                            .arg(percent(rec.noisePercent));
        else
            sentence += QCoreApplication::translate("SweepText",
                                                    ", more than the repeats' spread of %1")
                            .arg(percent(rec.noisePercent));
    }
    if (rec.fastest && rec.fastest != rec.best)
        sentence += QStringLiteral("; ")
                    + QCoreApplication::translate("SweepText", "highest throughput with %1")
                          .arg(joined(analysis, *rec.fastest, false));
    return sentence;
}

} // namespace loaderlab::sweeptext
