#pragma once

// DefaultDatasetPreparer: makes the default image folder on first start, on a
// background thread (a BackgroundTask), so a new user can press Start within seconds
// while the window stays responsive. Progress and the result come back as signals on
// the GUI thread. Destroyed while generating, it stops the generation (the partial
// folder is removed) without waiting for it.

#include "widgets/common/background_task.h"

#include <QObject>
#include <QString>

#include <string>

namespace loaderlab {

class DefaultDatasetPreparer : public QObject
{
    Q_OBJECT

public:
    explicit DefaultDatasetPreparer(QObject *parent = nullptr);

    static QString defaultPath();
    static bool exists();

    void prepare();
    // For a BackgroundTask's work: the default folder, generated (or waited for while
    // another LoaderLab process generates it) when missing, with progress. A stop
    // request ends the generation and throws; the wait for another process's lock is
    // not interruptible, which is why this never runs on the GUI thread.
    static std::string ensureFolder(const BackgroundTask::Control &control);

Q_SIGNALS:
    void progress(int done, int total);
    void ready(const QString &path);
    void failed(const QString &error);

private:
    BackgroundTask *m_task;
};

} // namespace loaderlab
