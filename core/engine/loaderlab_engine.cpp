#include "core/engine/loaderlab_engine.h"

#include <stdexcept>

namespace loaderlab {

void LoaderLabEngine::start(const RunConfig &config, const EngineCancel &)
{
    if (config.engine != EngineKind::LoaderLab)
        throw std::invalid_argument(std::string("LoaderLab's engine cannot run a config for the ")
                                    + engineLabel(config.engine) + " engine");
    m_run.start(config);
}

} // namespace loaderlab
