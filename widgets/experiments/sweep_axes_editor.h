#pragma once

// SweepAxesEditor: the set-up of a sweep in the Experiments view. Each axis is a config
// field (by key path, as `loaderlab sweep --axis`) with a list of values to check; a
// value can be added to the selected axis (checked against the field's type and range).
// An axis with no value checked is not part of the sweep. Below: the budget per cell
// (samples by default, 10,240 as the CLI) and the repeats, and how many runs that makes.

#include "core/sweep/sweep.h"

#include <QWidget>

#include <string>
#include <vector>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTreeWidget;
class QTreeWidgetItem;

namespace loaderlab {

class SweepAxesEditor : public QWidget
{
    Q_OBJECT

public:
    explicit SweepAxesEditor(QWidget *parent = nullptr);

    // The axes with at least one value checked, values in list order.
    std::vector<loaderlab::SweepAxis> axes() const;
    loaderlab::SweepBudget budget() const;
    int repeats() const;
    // Runs the sweep would make: the checked values multiplied, times the repeats.
    std::int64_t runCount() const;

    // Checks exactly `values` on the axis `key` (added if missing); an empty list
    // leaves the axis out. False with the reason for a value the field refuses.
    bool setAxisValues(const std::string &key, const std::vector<nlohmann::json> &values,
                       QString *error = nullptr);
    // Adds `text` (parsed by the field's type) to axis `key`, checked.
    bool addValue(const std::string &key, const QString &text, QString *error = nullptr);
    void setBudget(const loaderlab::SweepBudget &budget);
    void setRepeats(int repeats);
    // Shows a definition (a sweep opened from its folder): its axes checked, others not.
    void setDefinition(const loaderlab::SweepDefinition &definition);

Q_SIGNALS:
    void changed();

private:
    QTreeWidgetItem *axisItem(const std::string &key, bool create);
    QTreeWidgetItem *valueItem(QTreeWidgetItem *axis, const nlohmann::json &value);
    void addFromEdit();
    void updateCount();

    QTreeWidget *m_tree = nullptr;
    QLineEdit *m_addEdit = nullptr;
    QLabel *m_addError = nullptr;
    QComboBox *m_budgetKind = nullptr;
    QDoubleSpinBox *m_budget = nullptr;
    QSpinBox *m_repeats = nullptr;
    QLabel *m_count = nullptr;
};

} // namespace loaderlab
