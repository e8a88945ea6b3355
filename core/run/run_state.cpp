#include "core/run/run_state.h"

namespace loaderlab {

const char *runStateName(RunState state)
{
    switch (state) {
    case RunState::Idle:
        return "idle";
    case RunState::Running:
        return "running";
    case RunState::Paused:
        return "paused";
    case RunState::Finished:
        return "finished";
    case RunState::Stopped:
        return "stopped";
    case RunState::Failed:
        return "failed";
    }
    return "";
}

} // namespace loaderlab
