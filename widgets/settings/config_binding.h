#pragma once

// ConfigBinding: ties side-panel controls to config fields by key path
// ("loader.num_workers"). A bound control takes its range, its tooltip (the field's
// translated help) and its value from the config table (core/config/config_fields.h);
// read() writes every bound control into a RunConfig through the same checked
// setter the JSON config and the command line use, write() shows a RunConfig.

#include "core/config/run_config.h"

#include <QList>
#include <QString>

#include <functional>
#include <string>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QObject;
class QSpinBox;
class QTableWidget;

namespace loaderlab {

struct ConfigField;

class ConfigBinding
{
public:
    // Each returns the control. Spin boxes get the field's range (clamped to what
    // the control can hold); a combo must hold the field's choice names as item data.
    QSpinBox *bind(std::string_view key, QSpinBox *spin);
    QDoubleSpinBox *bind(std::string_view key, QDoubleSpinBox *spin);
    // `inverted`: the box shows the opposite ("Deliver out of order" for in_order).
    QCheckBox *bind(std::string_view key, QCheckBox *check, bool inverted = false);
    QComboBox *bind(std::string_view key, QComboBox *combo);
    // A two-choice field as a check box: checked is `on`, unchecked `off`.
    QCheckBox *bindChoice(std::string_view key, QCheckBox *check, std::string on, std::string off);
    // A path: bytes that are not UTF-8 show as \xHH and come back as bytes
    // (widgets/common/path_text.h).
    QLineEdit *bindPath(std::string_view key, QLineEdit *edit);
    // An Object field (dataset.args) as a table of names and values, one entry per
    // row; a value reads as the command line's --set reads it (42, true, text).
    // Rows without a name are left out.
    QTableWidget *bindEntries(std::string_view key, QTableWidget *table);

    // Throws loaderlab::ConfigError naming the key if a control holds a value the
    // field refuses.
    void read(loaderlab::RunConfig &config) const;
    // Does not block signals; the caller does (see controls()).
    void write(const loaderlab::RunConfig &config) const;
    QList<QObject *> controls() const;

    static const loaderlab::ConfigField &field(std::string_view key);

private:
    struct Binding
    {
        std::string key;
        QObject *control;
        std::function<void(loaderlab::RunConfig &)> read;
        std::function<void(const loaderlab::RunConfig &)> write;
    };
    void add(std::string_view key, QObject *control,
             std::function<void(loaderlab::RunConfig &)> read,
             std::function<void(const loaderlab::RunConfig &)> write);

    std::vector<Binding> m_bindings;
};

} // namespace loaderlab
