#pragma once

// The window's command-line options (`loaderlab` without a command) as one table: the
// window parses them (app/window/window_options.h) and `loaderlab --help`, which runs
// without a display, lists them beside the commands.

#include <QCommandLineOption>
#include <QList>
#include <QString>

namespace loaderlab {

QList<QCommandLineOption> windowOptionList();

// "  --size WxH         The window's size, ...": one line per window option, wrapped
// at 80 columns.
QString windowOptionsHelp();

} // namespace loaderlab
