#include "app/window/engine_manager.h"

#include "core/consumer/model_consumer_factory.h"
#include "core/system/torch_info.h"

#include "widgets/settings/control_panel.h"
#include "widgets/settings/engine_choice.h"

namespace loaderlab {

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
    // What the chosen engine cannot run is greyed out, with its reason.
    connect(m_choice, &EngineChoice::pytorchChosenChanged, controls,
            [this, controls] { controls->setEngine(chosenEngine()); });
}

EngineKind EngineManager::chosenEngine() const
{
    return m_choice->chosen();
}

QString EngineManager::refusal(EngineKind engine, EngineFeature feature)
{
    if (engineCannot(engine, feature).empty())
        return {};
    const QString name = QString::fromUtf8(engineLabel(engine));
    switch (feature) {
    case EngineFeature::Reconfigure:
        return tr("%1 cannot change settings while it runs; they apply at the next Start.")
            .arg(name);
    case EngineFeature::Pause:
        return tr("%1 cannot pause; Stop ends the run.").arg(name);
    case EngineFeature::ModelStep:
        return tr("%1 runs the simulated step, not a LibTorch model.").arg(name);
    case EngineFeature::DataParallel: // both engines run data-parallel ranks
        return {};
    case EngineFeature::SampleParallel:
        return tr("%1 builds each batch in one worker.").arg(name);
    case EngineFeature::PeakMemory:
    case EngineFeature::MaxBatch:
        return tr("%1 does not measure a model's memory.").arg(name);
    }
    return QString::fromStdString(engineCannot(engine, feature));
}

} // namespace loaderlab
