#pragma once

// EngineManager: which engine Start runs and what the build and the machine offer.
// It owns the engine choice (LoaderLab's loader or PyTorch's DataLoader, whose probe
// runs in the background), tells the control panel whether pinned memory (CUDA) and
// LibTorch models are there, and says what a running engine refuses (live changes,
// pause) so the run side asks instead of switching on the engine itself.

#include "widgets/run_session.h"

#include <QObject>
#include <QString>

class ControlPanel;
class EngineChoice;

class EngineManager : public QObject
{
    Q_OBJECT

public:
    EngineManager(ControlPanel *controls, QObject *parent);

    EngineChoice *choice() const { return m_choice; }
    RunSession::Engine chosenEngine() const;
    // Why `engine` cannot apply changed settings while it runs; empty when it can.
    static QString liveChangeRefusal(RunSession::Engine engine);
    // Why a run of `engine` cannot pause; empty when it can.
    static QString pauseRefusal(RunSession::Engine engine);

private:
    EngineChoice *m_choice = nullptr;
};
