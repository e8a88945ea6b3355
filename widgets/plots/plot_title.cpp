#include "widgets/plots/plot_title.h"

#include "core/engine/engine.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QStringList>

namespace loaderlab::plottitle {

QString settings(const RunConfig &config, const std::set<std::string> &omitted)
{
    // A field is left out when its key or a group above it is omitted.
    auto shown = [&](std::string key) {
        for (;;) {
            if (omitted.contains(key))
                return false;
            const std::size_t dot = key.rfind('.');
            if (dot == std::string::npos)
                return true;
            key.resize(dot);
        }
    };
    const LoaderConfig &loader = config.loader;
    QStringList parts;
    if (shown("engine"))
        parts << QString::fromUtf8(engineLabel(config.engine));
    if (shown("loader.num_workers"))
        parts << (loader.numWorkers == 1 ? QCoreApplication::translate("PlotTitle", "1 worker")
                                         : QCoreApplication::translate("PlotTitle", "%1 workers")
                                               .arg(loader.numWorkers));
    if (shown("loader.batch_size"))
        parts << QCoreApplication::translate("PlotTitle", "batch %1").arg(loader.batchSize);
    if (shown("loader.prefetch_factor"))
        parts << QCoreApplication::translate("PlotTitle", "prefetch %1").arg(loader.prefetchFactor);
    if (shown("loader.strategy") && loader.strategy != Strategy::PerWorkerBatch)
        parts << QString::fromUtf8(strategyName(loader.strategy));
    if (shown("loader.pin_memory"))
        parts << (loader.pinMemory ? QCoreApplication::translate("PlotTitle", "pin memory on")
                                   : QCoreApplication::translate("PlotTitle", "pin memory off"));
    if (shown("devices") && config.devices > 1)
        parts << QCoreApplication::translate("PlotTitle", "%1 devices").arg(config.devices);

    const ConsumerConfig &step = config.consumer;
    if (shown("consumer.kind") && step.kind == ConsumerKind::None) {
        parts << QCoreApplication::translate("PlotTitle", "no step");
    } else if (shown("consumer.kind") && step.kind == ConsumerKind::Sleep) {
        QStringList sleep;
        if (shown("consumer.sleep_per_batch_ms") && step.sleepPerBatchMs > 0)
            sleep << QCoreApplication::translate("PlotTitle", "%1 ms per batch")
                         .arg(step.sleepPerBatchMs);
        if (shown("consumer.sleep_per_sample_ms") && step.sleepPerSampleMs > 0)
            sleep << QCoreApplication::translate("PlotTitle", "%1 ms per sample")
                         .arg(step.sleepPerSampleMs);
        parts << QCoreApplication::translate("PlotTitle", "step: sleep %1")
                     .arg(sleep.isEmpty() ? QCoreApplication::translate("PlotTitle", "0 ms")
                                          : sleep.join(QStringLiteral(" + ")));
    } else if (shown("consumer.kind") && step.kind == ConsumerKind::Model) {
        const ModelConfig &model = step.model;
        QStringList details;
        if (shown("consumer.model.mode"))
            details << QString::fromUtf8(modelModeName(model.mode));
        if (shown("consumer.model.device"))
            details << QString::fromStdString(model.device);
        if (shown("consumer.model.precision"))
            details << QString::fromUtf8(modelPrecisionName(model.precision));
        const QString name = !model.scriptPath.empty()
                                 ? QFileInfo(QString::fromStdString(model.scriptPath)).fileName()
                                 : QString::fromStdString(model.name);
        QString text = QCoreApplication::translate("PlotTitle", "step: model %1")
                           .arg(shown("consumer.model.name") ? name : QString());
        if (!details.isEmpty())
            text += QStringLiteral(" (") + details.join(QStringLiteral(", ")) + QLatin1Char(')');
        parts << text.simplified();
    }
    return parts.join(QStringLiteral(", "));
}

QString dataset(const DatasetConfig &dataset)
{
    const DatasetKindInfo &info = datasetKindInfo(dataset.kind);
    const QString kind = QCoreApplication::translate("DatasetKind", info.label.data());
    if (dataset.kind == DatasetKind::Synthetic) {
        const SampleShape &s = dataset.syntheticShape;
        return QCoreApplication::translate("PlotTitle", "%1 %2 × %3x%4x%5")
            .arg(kind)
            .arg(dataset.syntheticSamples)
            .arg(s.channels)
            .arg(s.height)
            .arg(s.width);
    }
    QString text = kind;
    const QString name =
        QFileInfo(QDir::cleanPath(QString::fromStdString(dataset.path))).fileName();
    if (!name.isEmpty())
        text += QLatin1Char(' ') + name;
    if (info.imageTransform)
        text += QStringLiteral(" (") + QString::fromUtf8(transformKindName(dataset.transform))
                + QLatin1Char(')');
    return text;
}

QString exportDate()
{
    return QCoreApplication::translate("PlotTitle", "exported %1")
        .arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")));
}

} // namespace loaderlab::plottitle
