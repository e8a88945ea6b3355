#pragma once

// The options of `loaderlab run` and how they become a RunConfig: a --config file
// first, then every flag given on the command line on top of it.

#include "core/config/config_fields.h"
#include "core/config/run_config.h"

#include <QCommandLineParser>

#include <stdexcept>
#include <string>

namespace loaderlab::cli {

// The option of one config field (a non-empty `flag`), with its help showing the key
// and the default; other commands reuse it so that a setting has one name everywhere.
QCommandLineOption configFieldOption(const loaderlab::ConfigField &field);

// Sets `field` in `config` from its option when the option was given; returns whether
// it was. Throws std::invalid_argument "--flag: key: reason".
bool applyConfigFieldOption(const QCommandLineParser &parser, const loaderlab::ConfigField &field,
                            loaderlab::RunConfig &config);

void addRunOptions(QCommandLineParser &parser);

// Applies each `--set KEY=VALUE` the parser saw to `config`, in order. Throws
// std::invalid_argument naming the option and what is wrong: "--set: expected
// KEY=VALUE, got 'TEXT'" or "--set: KEY: reason" (an unknown key, a bad value).
void applySetOptions(const QCommandLineParser &parser, loaderlab::RunConfig &config);

// The dataset a path names when nothing else says which: a folder is an image folder,
// a `.py` file a pipeline file, another file a tensor file (what `loaderlab preprocess`
// writes); a path that is not there is taken for a folder (and refused as one).
loaderlab::DatasetKind pathDatasetKind(const std::string &path);

// Throws std::invalid_argument naming the option and the reason. A --path given
// without --dataset, a --set of dataset.kind or a --config file's kind other than
// synthetic (the default) chooses its dataset with pathDatasetKind.
loaderlab::RunConfig runConfigFromOptions(const QCommandLineParser &parser);

} // namespace loaderlab::cli
