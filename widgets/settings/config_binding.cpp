#include "widgets/settings/config_binding.h"

#include "core/config/config_fields.h"
#include "widgets/common/marker_text.h"
#include "widgets/common/path_text.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QTableWidget>

#include <algorithm>
#include <limits>

namespace loaderlab {

using nlohmann::json;

namespace {

int clampToInt(double value)
{
    return static_cast<int>(std::clamp(value, static_cast<double>(std::numeric_limits<int>::min()),
                                       static_cast<double>(std::numeric_limits<int>::max())));
}

} // namespace

const loaderlab::ConfigField &ConfigBinding::field(std::string_view key)
{
    const loaderlab::ConfigField *f = loaderlab::findConfigField(key);
    if (!f)
        throw loaderlab::ConfigError(std::string(key), "unknown key");
    return *f;
}

void ConfigBinding::add(std::string_view key, QObject *control,
                        std::function<void(RunConfig &)> read,
                        std::function<void(const RunConfig &)> write)
{
    m_bindings.push_back({std::string(key), control, std::move(read), std::move(write)});
}

QSpinBox *ConfigBinding::bind(std::string_view key, QSpinBox *spin)
{
    const auto &f = field(key);
    spin->setRange(clampToInt(f.min), clampToInt(f.max));
    spin->setToolTip(markertext::fieldHelp(f));
    add(
        key, spin,
        [key = std::string(key), spin](RunConfig &c) {
            loaderlab::setConfigField(c, key, spin->value());
        },
        [key = std::string(key), spin](const RunConfig &c) {
            spin->setValue(clampToInt(loaderlab::getConfigField(c, key).get<double>()));
        });
    return spin;
}

QDoubleSpinBox *ConfigBinding::bind(std::string_view key, QDoubleSpinBox *spin)
{
    const auto &f = field(key);
    spin->setRange(f.min, f.max);
    spin->setToolTip(markertext::fieldHelp(f));
    add(
        key, spin,
        [key = std::string(key), spin](RunConfig &c) {
            loaderlab::setConfigField(c, key, spin->value());
        },
        [key = std::string(key), spin](const RunConfig &c) {
            spin->setValue(loaderlab::getConfigField(c, key).get<double>());
        });
    return spin;
}

QCheckBox *ConfigBinding::bind(std::string_view key, QCheckBox *check, bool inverted)
{
    check->setToolTip(markertext::fieldHelp(field(key)));
    add(
        key, check,
        [key = std::string(key), check, inverted](RunConfig &c) {
            loaderlab::setConfigField(c, key, check->isChecked() != inverted);
        },
        [key = std::string(key), check, inverted](const RunConfig &c) {
            check->setChecked(loaderlab::getConfigField(c, key).get<bool>() != inverted);
        });
    return check;
}

QCheckBox *ConfigBinding::bindChoice(std::string_view key, QCheckBox *check, std::string on,
                                     std::string off)
{
    check->setToolTip(markertext::fieldHelp(field(key)));
    add(
        key, check,
        [key = std::string(key), check, on, off](RunConfig &c) {
            loaderlab::setConfigField(c, key, check->isChecked() ? on : off);
        },
        [key = std::string(key), check, on](const RunConfig &c) {
            check->setChecked(loaderlab::getConfigField(c, key).get<std::string>() == on);
        });
    return check;
}

QComboBox *ConfigBinding::bind(std::string_view key, QComboBox *combo)
{
    combo->setToolTip(markertext::fieldHelp(field(key)));
    add(
        key, combo,
        [key = std::string(key), combo](RunConfig &c) {
            loaderlab::setConfigField(c, key, combo->currentData().toString().toStdString());
        },
        [key = std::string(key), combo](const RunConfig &c) {
            const int index = combo->findData(
                QString::fromStdString(loaderlab::getConfigField(c, key).get<std::string>()));
            if (index >= 0)
                combo->setCurrentIndex(index);
        });
    return combo;
}

QLineEdit *ConfigBinding::bindPath(std::string_view key, QLineEdit *edit)
{
    edit->setToolTip(markertext::fieldHelp(field(key)));
    add(
        key, edit,
        [key = std::string(key), edit](RunConfig &c) {
            loaderlab::setConfigField(c, key, loaderlab::pathFromText(edit->text()));
        },
        [key = std::string(key), edit](const RunConfig &c) {
            edit->setText(
                loaderlab::pathToText(loaderlab::getConfigField(c, key).get<std::string>()));
        });
    return edit;
}

QTableWidget *ConfigBinding::bindEntries(std::string_view key, QTableWidget *table)
{
    table->setToolTip(markertext::fieldHelp(field(key)));
    add(
        key, table,
        [key = std::string(key), table](RunConfig &c) {
            RunConfig entries = c;
            loaderlab::setConfigField(entries, key, json::object());
            for (int row = 0; row < table->rowCount(); ++row) {
                const QTableWidgetItem *name = table->item(row, 0);
                const QTableWidgetItem *value = table->item(row, 1);
                if (!name || name->text().trimmed().isEmpty())
                    continue;
                loaderlab::setConfigFieldFromText(
                    entries, key + "." + name->text().trimmed().toStdString(),
                    value ? value->text().toStdString() : std::string());
            }
            loaderlab::setConfigField(c, key, loaderlab::getConfigField(entries, key));
        },
        [key = std::string(key), table](const RunConfig &c) {
            const json entries = loaderlab::getConfigField(c, key);
            table->setRowCount(0);
            for (const auto &[name, value] : entries.items()) {
                const int row = table->rowCount();
                table->insertRow(row);
                table->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(name)));
                // Text that would read back as a number or boolean shows quoted.
                const bool plain = value.is_string() && !json::accept(value.get<std::string>());
                table->setItem(row, 1,
                               new QTableWidgetItem(QString::fromStdString(
                                   plain ? value.get<std::string>() : value.dump())));
            }
            table->insertRow(table->rowCount()); // an empty row to add one
        });
    return table;
}

void ConfigBinding::read(RunConfig &config) const
{
    for (const Binding &b : m_bindings)
        b.read(config);
}

void ConfigBinding::write(const RunConfig &config) const
{
    for (const Binding &b : m_bindings)
        b.write(config);
}

QList<QObject *> ConfigBinding::controls() const
{
    QList<QObject *> out;
    for (const Binding &b : m_bindings)
        out << b.control;
    return out;
}

} // namespace loaderlab
