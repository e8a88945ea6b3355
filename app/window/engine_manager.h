#pragma once

// EngineManager: which engine Start runs and what the build and the machine offer.
// It owns the engine choice (LoaderLab's loader or PyTorch's DataLoader, whose probe
// runs in the background), tells the control panel whether pinned memory (CUDA) and
// LibTorch models are there, and words what an engine cannot do (core's
// engineCannot(), in the window's language) so the run side asks instead of
// switching on the engine itself.

#include "widgets/session/run_session.h"

#include <QObject>
#include <QString>

namespace loaderlab {

class ControlPanel;
class EngineChoice;

class EngineManager : public QObject
{
    Q_OBJECT

public:
    EngineManager(ControlPanel *controls, QObject *parent);

    EngineChoice *choice() const { return m_choice; }
    loaderlab::EngineKind chosenEngine() const;
    // Why `engine` cannot do `feature`, for the status bar and tooltips; empty when
    // it can.
    static QString refusal(loaderlab::EngineKind engine, loaderlab::EngineFeature feature);

private:
    EngineChoice *m_choice = nullptr;
};

} // namespace loaderlab
