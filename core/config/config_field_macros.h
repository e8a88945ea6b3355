#pragma once

// For the two files of the config table only (config_field_table.cpp and
// config_field_table_devices.cpp): the macros that make a field's getter and setter,
// and the data-parallel fields the table takes from the second file. Not for other
// code.

#include "core/config/config_fields.h"

#include <vector>

// lupdate reads labels and help texts from these files (context "ConfigField"); core
// has no Qt, so the marker expands to the plain text here.
#ifndef QT_TRANSLATE_NOOP
#define QT_TRANSLATE_NOOP(scope, text) text
#endif

// A field's getter and setter, from the member's path in RunConfig, so that the two
// cannot name different members. `set` receives a value already checked against the
// field's type, range and choices.
#define MEMBER(path)                                                                               \
    .get = [](const RunConfig &c) -> json { return c.path; },                                      \
    .set = [](RunConfig &c, const json &v) { c.path = v.get<decltype(c.path)>(); }
// The same for a map of entries (an Object field), each value held as JSON text.
#define OBJECT_MEMBER(path)                                                                        \
    .get = [](const RunConfig &c) -> json { return entriesToJson(c.path); },                       \
    .set = [](RunConfig &c, const json &v) { c.path = entriesFromJson(v); }
// The same for an enum member, read and written by its names.
#define CHOICE_MEMBER(path, toName, fromName)                                                      \
    .get = [](const RunConfig &c) -> json { return toName(c.path); },                              \
    .set = [](RunConfig &c, const json &v) { c.path = *fromName(v.get<std::string>()); }

namespace loaderlab::configtable {

// devices, sync_devices, gradient_mb and comm_backend, in that order.
std::vector<ConfigField> dataParallelFields();

} // namespace loaderlab::configtable
