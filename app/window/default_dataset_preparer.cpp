#include "app/window/default_dataset_preparer.h"

#include "core/tools/default_dataset.h"

#include <QDir>

#include <stdexcept>

namespace loaderlab {

DefaultDatasetPreparer::DefaultDatasetPreparer(QObject *parent)
    : QObject(parent)
    , m_task(new BackgroundTask(this))
{
    connect(m_task, &BackgroundTask::progress, this, [this](qint64 done, qint64 total) {
        Q_EMIT progress(static_cast<int>(done), static_cast<int>(total));
    });
}

QString DefaultDatasetPreparer::defaultPath()
{
    return QString::fromStdString(loaderlab::defaultImageFolderPath());
}

bool DefaultDatasetPreparer::exists()
{
    const QDir dir(defaultPath());
    return dir.exists() && !dir.isEmpty();
}

void DefaultDatasetPreparer::prepare()
{
    m_task->start(
        &DefaultDatasetPreparer::ensureFolder,
        [this](const std::string &path) { Q_EMIT ready(QString::fromStdString(path)); },
        [this](const QString &error) { Q_EMIT failed(error); });
}

std::string DefaultDatasetPreparer::ensureFolder(const BackgroundTask::Control &control)
{
    // Thrown from the progress callback, a stop ends the generation (the generator
    // removes its partial folder).
    return loaderlab::ensureDefaultImageFolder([&control](std::int64_t done, std::int64_t total) {
        if (control.stopRequested())
            throw std::runtime_error("generating the default dataset stopped");
        control.progress(done, total);
    });
}

} // namespace loaderlab
