#include "widgets/experiments/sweep_axes_editor.h"

#include "core/config/config_fields.h"
#include "widgets/common/form_helpers.h"
#include "widgets/common/marker_text.h"
#include "widgets/experiments/sweep_text.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace loaderlab {

using nlohmann::json;

namespace {

constexpr int kKeyRole = Qt::UserRole;
constexpr int kValueRole = Qt::UserRole + 1; // the value as JSON text

// The axes offered at first, with their values; the ones checked make the default
// sweep, workers x batch size as the research notes ran it.
struct DefaultAxis
{
    const char *key;
    std::vector<json> values;
    std::vector<json> checked;
};

// Every value a choice field takes (dataset.kind: every kind of the dataset table).
std::vector<json> allChoices(std::string_view key)
{
    std::vector<json> values;
    for (std::string_view choice : configField(key).choices)
        values.emplace_back(std::string(choice));
    return values;
}

const std::vector<DefaultAxis> &defaultAxes()
{
    static const std::vector<DefaultAxis> axes = {
        {"engine", allChoices("engine"), {}},
        {"loader.num_workers", {0, 1, 2, 4, 8}, {1, 2, 4}},
        {"loader.batch_size", {16, 32, 64, 128, 256}, {32, 128}},
        {"loader.prefetch_factor", {1, 2, 4}, {}},
        {"consumer.sleep_per_batch_ms", {0.0, 5.0, 10.0, 20.0}, {}},
        {"dataset.kind", allChoices("dataset.kind"), {}},
        {"devices", {1, 2, 4}, {}},
    };
    return axes;
}

json parseValue(const std::string &key, const QString &text)
{
    RunConfig probe;
    setConfigFieldFromText(probe, key, text.trimmed().toStdString()); // throws naming the key
    return getConfigField(probe, key);
}

} // namespace

SweepAxesEditor::SweepAxesEditor(QWidget *parent)
    : QWidget(parent)
{
    using formhelpers::named;
    m_tree = named(new QTreeWidget, "sweepAxes",
                   tr("Check the values each axis takes; an axis with none checked is left out. "
                      "The other settings come from the side panel."));
    m_tree->setHeaderHidden(true);
    m_tree->setRootIsDecorated(true);
    m_tree->setUniformRowHeights(true);
    for (const DefaultAxis &d : defaultAxes()) {
        QTreeWidgetItem *axis = axisItem(d.key, true);
        for (const json &v : d.values) {
            valueItem(axis, v)->setCheckState(0, std::find(d.checked.begin(), d.checked.end(), v)
                                                         != d.checked.end()
                                                     ? Qt::Checked
                                                     : Qt::Unchecked);
        }
        axis->setExpanded(!d.checked.empty());
    }
    connect(m_tree, &QTreeWidget::itemChanged, this, &SweepAxesEditor::updateCount);

    m_addEdit = named(new QLineEdit, "addValueEdit",
                      tr("A value for the selected axis, e.g. 12 for workers; Return adds it."));
    m_addEdit->setPlaceholderText(tr("Add a value to the selected axis"));
    auto *add = named(new QPushButton(tr("Add")), "addValueButton", m_addEdit->toolTip());
    connect(add, &QPushButton::clicked, this, &SweepAxesEditor::addFromEdit);
    connect(m_addEdit, &QLineEdit::returnPressed, this, &SweepAxesEditor::addFromEdit);
    m_addError = new QLabel;
    m_addError->setWordWrap(true);
    m_addError->setStyleSheet(QStringLiteral("color: #b00000"));
    m_addError->hide();

    m_budgetKind = named(new QComboBox, "budgetKind",
                         tr("How long each cell runs: the same number of samples for every cell "
                            "(as the research notes compare them), of batches, or seconds."));
    m_budgetKind->addItem(tr("samples"), QStringLiteral("samples"));
    m_budgetKind->addItem(tr("batches"), QStringLiteral("batches"));
    m_budgetKind->addItem(tr("seconds"), QStringLiteral("seconds"));
    m_budget = named(new QDoubleSpinBox, "budgetAmount", m_budgetKind->toolTip());
    m_budget->setRange(1, 1e9); // its width is that of the largest value
    m_budget->setDecimals(0);
    m_budget->setValue(SweepBudget{}.amount);
    m_repeats = named(new QSpinBox, "repeatsSpin",
                      tr("Runs of every cell, in alternating rounds, so the recommendation can "
                         "tell a real margin from noise."));
    m_repeats->setRange(1, 1000);
    connect(m_budgetKind, &QComboBox::currentIndexChanged, this, [this] {
        m_budget->setDecimals(budget().kind == SweepBudget::Kind::Seconds ? 1 : 0);
        updateCount();
    });
    connect(m_budget, &QDoubleSpinBox::valueChanged, this, &SweepAxesEditor::updateCount);
    connect(m_repeats, &QSpinBox::valueChanged, this, &SweepAxesEditor::updateCount);
    m_count = named(new QLabel, "runCount", {});
    m_count->setWordWrap(true);

    auto *form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(tr("Per cell"), formhelpers::row(m_budget, m_budgetKind));
    form->addRow(tr("Repeats"), m_repeats);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tree, 1);
    layout->addWidget(formhelpers::row(m_addEdit, add));
    layout->addWidget(m_addError);
    layout->addLayout(form);
    layout->addWidget(m_count);
    updateCount();
}

QTreeWidgetItem *SweepAxesEditor::axisItem(const std::string &key, bool create)
{
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
        QTreeWidgetItem *item = m_tree->topLevelItem(i);
        if (item->data(0, kKeyRole).toString().toStdString() == key)
            return item;
    }
    const ConfigField *field = findConfigField(key);
    if (!create || !field)
        return nullptr;
    auto *item = new QTreeWidgetItem(m_tree);
    item->setText(0,
                  tr("%1 (%2)").arg(markertext::fieldLabel(*field), QString::fromStdString(key)));
    item->setToolTip(0, markertext::fieldHelp(*field));
    item->setData(0, kKeyRole, QString::fromStdString(key));
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsUserCheckable
                   | Qt::ItemIsAutoTristate);
    return item;
}

QTreeWidgetItem *SweepAxesEditor::valueItem(QTreeWidgetItem *axis, const json &value)
{
    const QString text = QString::fromStdString(value.dump());
    for (int i = 0; i < axis->childCount(); ++i) {
        if (axis->child(i)->data(0, kValueRole).toString() == text)
            return axis->child(i);
    }
    auto *item = new QTreeWidgetItem(axis);
    item->setText(0, sweeptext::axisValue(axis->data(0, kKeyRole).toString().toStdString(), value));
    item->setData(0, kValueRole, text);
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsUserCheckable);
    item->setCheckState(0, Qt::Unchecked);
    return item;
}

std::vector<SweepAxis> SweepAxesEditor::axes() const
{
    std::vector<SweepAxis> out;
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
        const QTreeWidgetItem *item = m_tree->topLevelItem(i);
        SweepAxis axis{item->data(0, kKeyRole).toString().toStdString(), {}};
        for (int v = 0; v < item->childCount(); ++v) {
            if (item->child(v)->checkState(0) == Qt::Checked)
                axis.values.push_back(
                    json::parse(item->child(v)->data(0, kValueRole).toString().toStdString()));
        }
        if (!axis.values.empty())
            out.push_back(std::move(axis));
    }
    return out;
}

SweepBudget SweepAxesEditor::budget() const
{
    SweepBudget budget;
    const QString kind = m_budgetKind->currentData().toString();
    budget.kind = kind == QLatin1String("batches")   ? SweepBudget::Kind::Batches
                  : kind == QLatin1String("seconds") ? SweepBudget::Kind::Seconds
                                                     : SweepBudget::Kind::Samples;
    budget.amount = m_budget->value();
    return budget;
}

int SweepAxesEditor::repeats() const
{
    return m_repeats->value();
}

std::int64_t SweepAxesEditor::runCount() const
{
    std::int64_t runs = repeats();
    for (const SweepAxis &axis : axes())
        runs *= static_cast<std::int64_t>(axis.values.size());
    return axes().empty() ? 0 : runs;
}

bool SweepAxesEditor::setAxisValues(const std::string &key, const std::vector<json> &values,
                                    QString *error)
{
    QTreeWidgetItem *axis = axisItem(key, true);
    if (!axis) {
        if (error)
            *error = tr("%1: unknown key").arg(QString::fromStdString(key));
        return false;
    }
    const QSignalBlocker blocker(m_tree);
    for (int i = 0; i < axis->childCount(); ++i)
        axis->child(i)->setCheckState(0, Qt::Unchecked);
    for (const json &v : values) {
        try {
            RunConfig probe;
            setConfigField(probe, key, v);
            valueItem(axis, getConfigField(probe, key))->setCheckState(0, Qt::Checked);
        } catch (const std::exception &e) {
            if (error)
                *error = QString::fromStdString(e.what());
            updateCount();
            return false;
        }
    }
    axis->setExpanded(!values.empty());
    updateCount();
    return true;
}

bool SweepAxesEditor::addValue(const std::string &key, const QString &text, QString *error)
{
    QTreeWidgetItem *axis = axisItem(key, false);
    try {
        if (!axis)
            throw ConfigError(key, "not an axis here");
        const QSignalBlocker blocker(m_tree);
        valueItem(axis, parseValue(key, text))->setCheckState(0, Qt::Checked);
        axis->setExpanded(true);
    } catch (const std::exception &e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
    updateCount();
    return true;
}

void SweepAxesEditor::addFromEdit()
{
    QTreeWidgetItem *item = m_tree->currentItem();
    if (item && item->parent())
        item = item->parent();
    QString error = tr("Select an axis first.");
    if (item
        && addValue(item->data(0, kKeyRole).toString().toStdString(), m_addEdit->text(), &error)) {
        m_addEdit->clear();
        m_addError->hide();
        return;
    }
    m_addError->setText(error);
    m_addError->show();
}

void SweepAxesEditor::setBudget(const SweepBudget &budget)
{
    formhelpers::selectData(m_budgetKind,
                            QString::fromLatin1(loaderlab::sweepBudgetKindName(budget.kind)));
    m_budget->setValue(budget.amount);
}

void SweepAxesEditor::setRepeats(int repeats)
{
    m_repeats->setValue(repeats);
}

void SweepAxesEditor::setDefinition(const SweepDefinition &definition)
{
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i)
        setAxisValues(m_tree->topLevelItem(i)->data(0, kKeyRole).toString().toStdString(), {});
    for (const SweepAxis &axis : definition.axes)
        setAxisValues(axis.key, axis.values);
    setBudget(definition.budget);
    setRepeats(definition.repeats);
}

void SweepAxesEditor::updateCount()
{
    const auto checked = axes();
    QStringList sizes;
    for (const SweepAxis &axis : checked)
        sizes << QString::number(axis.values.size());
    const std::int64_t runs = runCount();
    if (checked.empty())
        m_count->setText(tr("Check at least one value."));
    else
        m_count->setText(tr("%1 values × %2 repeat(s) = %n run(s)", nullptr, static_cast<int>(runs))
                             .arg(sizes.join(QStringLiteral(" × ")))
                             .arg(repeats()));
    Q_EMIT changed();
}

} // namespace loaderlab
