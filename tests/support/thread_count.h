#pragma once

// Threads of this process right now, from /proc/self/task: an independent check
// that a loader left no thread behind.

#include <QDir>

inline int processThreadCount()
{
    return static_cast<int>(QDir(QStringLiteral("/proc/self/task"))
                                .entryList(QDir::Dirs | QDir::NoDotAndDotDot)
                                .size());
}
