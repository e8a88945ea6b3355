#include "app/default_dataset_preparer.h"

#include "core/tools/default_dataset.h"

#include <QDir>
#include <QFileInfo>
#include <QMetaObject>

DefaultDatasetPreparer::DefaultDatasetPreparer(QObject *parent)
    : QObject(parent)
{
}

DefaultDatasetPreparer::~DefaultDatasetPreparer() = default;

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
    m_thread = std::jthread([this] {
        try {
            const std::string path = loaderlab::ensureDefaultImageFolder(
                [this](std::int64_t done, std::int64_t total) {
                    QMetaObject::invokeMethod(
                        this, [this, done, total] { Q_EMIT progress(int(done), int(total)); },
                        Qt::QueuedConnection);
                });
            QMetaObject::invokeMethod(
                this, [this, path] { Q_EMIT ready(QString::fromStdString(path)); },
                Qt::QueuedConnection);
        } catch (const std::exception &e) {
            const QString error = QString::fromStdString(e.what());
            QMetaObject::invokeMethod(
                this, [this, error] { Q_EMIT failed(error); }, Qt::QueuedConnection);
        }
    });
}
