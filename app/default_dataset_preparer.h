#pragma once

// DefaultDatasetPreparer: makes the default image folder on first start, on a
// background thread, so a new user can press Start within seconds while the window
// stays responsive. Progress and the result come back as queued signals.

#include <QObject>
#include <QString>

#include <thread>

class DefaultDatasetPreparer : public QObject
{
    Q_OBJECT

public:
    explicit DefaultDatasetPreparer(QObject *parent = nullptr);
    ~DefaultDatasetPreparer() override; // waits for the generator to finish

    static QString defaultPath();
    static bool exists();

    void prepare();

Q_SIGNALS:
    void progress(int done, int total);
    void ready(const QString &path);
    void failed(const QString &error);

private:
    std::jthread m_thread;
};
