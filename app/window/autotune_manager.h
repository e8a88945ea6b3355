#pragma once

// AutotuneManager: while the control panel's Autotune box is checked and a run of
// LoaderLab's loader goes, an Autotuner (core/autotune) drives its workers and
// prefetch (and the batch size when allowed); its trials and moves are live
// reconfigurations with autotune markers, which the plots draw, and the panel's
// controls follow the run.

#include <QObject>
#include <QString>

#include <memory>

namespace loaderlab {

class Autotuner;

class ControlPanel;
class RunSession;

class AutotuneManager : public QObject
{
    Q_OBJECT

public:
    AutotuneManager(RunSession *session, ControlPanel *controls, QObject *parent);
    ~AutotuneManager() override;

    // The autotuner driving the run, or nullptr (Autotune off, or no run going).
    const loaderlab::Autotuner *autotuner() const { return m_autotuner.get(); }
    // Starts or stops the autotuner as the Autotune box and the run's state say.
    void update();
    void stop();
    // The controls show the settings the autotuner has moved the run to.
    void follow();

Q_SIGNALS:
    void report(const QString &message);

private:
    RunSession *m_session;
    ControlPanel *m_controls;
    std::unique_ptr<loaderlab::Autotuner> m_autotuner;
    bool m_autotuneBatch = false; // the running autotuner's options
    bool m_modelSearch = true;
};

} // namespace loaderlab
