#pragma once

// RunConfig as a QVariant (QSignalSpy reads signals that carry one), declared once:
// the test files of a folder are compiled together (unity build), where a second
// Q_DECLARE_METATYPE of one type is a redefinition.

#include "core/config/run_config.h"

#include <QMetaType>

Q_DECLARE_METATYPE(loaderlab::RunConfig)
