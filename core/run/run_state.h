#pragma once

// RunState: where a run of either engine is (core/engine/engine.h), from Idle to one
// of its three ends.

namespace loaderlab {

enum class RunState { Idle, Running, Paused, Finished, Stopped, Failed };

// "idle", "running", "paused", "finished", "stopped", "failed": the word the JSON
// report, the sweep records and the command line use.
const char *runStateName(RunState state);

} // namespace loaderlab
