#pragma once

// The window: `loaderlab` without a command. runGui reads the window's options
// (window_options.h: --config, --lang, --size, --view, --keep-batches, and for docs
// and measurements --screenshot, --json, --seconds, --sweep), builds the window,
// makes the default dataset on first start, and hands what the options ask it to do
// by itself to AutoRun (auto_run.h).

namespace loaderlab {

int runGui(int argc, char **argv);

} // namespace loaderlab
