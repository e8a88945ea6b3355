#pragma once

// AutoRun: what the window does by itself when its options ask for it (--screenshot,
// --json, --sweep), once it shows and its dataset is there. One sequence, one step
// a slot:
//   start        -> waitForEngine (a config that asks for PyTorch's DataLoader waits
//                   for the probe, and runs on it or not at all)
//                -> startRun, then stopRun after --seconds (stop, write --json)
//                   or startSweep, then the sweep's end
//   finish       -> 200 ms later, once the last refresh has painted: saveAndQuit
//                   (the --screenshot, then quit).
// A step that cannot go on prints "loaderlab: REASON" on stderr and quits with exit
// code 2; an output that cannot be written gives 1 (exitCode()). With --sweep alone
// the sequence is startSweep then finish; without these options it does nothing.

#include "app/window/window_options.h"

#include <QObject>

namespace loaderlab {

class MainWindow;

class AutoRun : public QObject
{
    Q_OBJECT

public:
    // `window` outlives this object.
    AutoRun(MainWindow &window, WindowOptions options, QObject *parent = nullptr);

    // 0, or the exit code the sequence ended with (QApplication::exec()'s otherwise).
    int exitCode() const { return m_exitCode; }

    // Begins the sequence: call once the event loop runs and the dataset is there.
    void start();
    // The default dataset could not be made (the window shows why): a --screenshot or
    // --json run quits with exit code 2; --sweep alone leaves the window open.
    void datasetFailed();

private:
    void waitForEngine();
    void startRun();
    void stopRun();
    void startSweep();
    void finish();
    void saveAndQuit();
    // Prints "loaderlab: REASON" on stderr and quits with `exitCode`.
    void fail(const QString &reason, int exitCode);

    MainWindow &m_window;
    const WindowOptions m_options;
    int m_exitCode = 0;
};

} // namespace loaderlab
