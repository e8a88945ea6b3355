#include "app/engine_manager.h"

#include "core/consumer/model_consumer_factory.h"
#include "core/system/torch_info.h"

#include "widgets/control_panel.h"
#include "widgets/engine_choice.h"

using namespace loaderlab;

EngineManager::EngineManager(ControlPanel *controls, QObject *parent)
    : QObject(parent)
    , m_choice(new EngineChoice)
{
    m_choice->setObjectName(QStringLiteral("engineChoice"));

    const TorchInfo torch = torchInfo();
    controls->setPinMemoryAvailable(
        torch.cudaAvailable,
        torch.cudaAvailable
            ? QString()
            : tr("Pinned memory speeds up copies to a GPU; no CUDA device is available "
                 "(LibTorch %1).")
                  .arg(torch.linked ? QString::fromStdString(torch.version) : tr("not linked")));
    // Registered by main() when the build has LibTorch; empty otherwise.
    controls->setModelCapabilities(modelCapabilities());
}

RunSession::Engine EngineManager::chosenEngine() const
{
    return m_choice->pytorchChosen() ? RunSession::Engine::PyTorch : RunSession::Engine::LoaderLab;
}

QString EngineManager::liveChangeRefusal(RunSession::Engine engine)
{
    if (engine == RunSession::Engine::PyTorch)
        return tr("PyTorch's DataLoader cannot change settings while it runs; they apply at "
                  "the next Start.");
    return {};
}

QString EngineManager::pauseRefusal(RunSession::Engine engine)
{
    if (engine == RunSession::Engine::PyTorch)
        return tr("PyTorch's DataLoader cannot pause; Stop ends the run.");
    return {};
}
