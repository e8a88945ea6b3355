#pragma once

// WindowOptions: the command-line options of the window (`loaderlab` without a
// command), parsed and checked without a widget, so that each refusal is testable.
// --screenshot FILE renders the window after a short run; --seconds S with --json
// FILE runs for S seconds with live plots and writes the summary (used to compare
// the GUI's throughput with the headless CLI's); --view experiments shows the
// Experiments tab, and with --screenshot runs its sweep (or resumes the one in
// --sweep DIR) and saves the window when the sweep ends; --view limits opens the
// Limits of this machine dialog, and with --screenshot measures the ceilings after the
// run and saves the dialog once they are drawn. What the options start
// once the window shows is AutoRun's (auto_run.h).

#include "core/trace/trace_log.h"

#include <QString>
#include <QStringList>

#include <cstddef>
#include <optional>

class QCommandLineParser;

namespace loaderlab {

struct WindowOptions
{
    std::optional<QString> configFile; // --config: instead of the stored config
    std::optional<QString> language;   // --lang: instead of the configured one
    std::optional<QString> screenshot; // --screenshot
    std::optional<QString> json;       // --json
    std::optional<QString> sweepDir;   // --sweep (needs --view experiments)
    int seconds = 3;                   // --seconds, at least 1
    int width = 1400;                  // --size WIDTHxHEIGHT
    int height = 900;
    bool experiments = false;                      // --view experiments (else live)
    bool limits = false;                           // --view limits
    std::size_t keepBatches = kDefaultKeepBatches; // --keep-batches (0: all)

    // --screenshot or --json: run, save what was asked, quit.
    bool automatic() const { return screenshot.has_value() || json.has_value(); }
};

// Declares the window's options on `parser`, with --help and --version.
void addWindowOptions(QCommandLineParser &parser);

// The options `parser` has parsed, checked. Throws std::invalid_argument naming the
// option and the reason ("--size 10x10: expected WIDTHxHEIGHT, 200 to 10000 each"),
// or a stray word that is neither a command nor an option, with the commands.
WindowOptions windowOptionsFrom(const QCommandLineParser &parser);

// `arguments` (the program first, as QCoreApplication::arguments()) as options.
// Throws std::invalid_argument as windowOptionsFrom() does, and with the parser's
// text for an unknown option or a missing value ("Unknown option 'bogus'.").
// --help and --version are runGui()'s: QCommandLineParser::process prints them.
WindowOptions parseWindowOptions(const QStringList &arguments);

} // namespace loaderlab
