#pragma once

// The window: `loaderlab` without a command. Options for docs and measurements:
// --screenshot FILE renders the window after a short run; --seconds S with --json
// FILE runs for S seconds with live plots and writes the summary (used to compare
// the GUI's throughput with the headless CLI's); --view experiments shows the
// Experiments tab, and with --screenshot runs its sweep (or resumes the one in
// --sweep DIR) and saves the window when the sweep ends.

namespace loaderlab {

int runGui(int argc, char **argv);

} // namespace loaderlab
