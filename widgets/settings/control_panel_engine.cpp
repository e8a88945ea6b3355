// The side panel's choices that the chosen engine cannot run: greyed out, each with
// the engine's reason (enginetext::problem() of the config with that choice) as tooltip.
// Values already set stay: Start then refuses with the same reason.

#include "widgets/settings/control_panel.h"

#include "core/config/config_fields.h"
#include "widgets/common/engine_text.h"
#include "widgets/settings/model_panel.h"

#include <QComboBox>
#include <QSlider>
#include <QSpinBox>
#include <QStandardItemModel>

namespace loaderlab {

namespace {

// Greys out the entries of a combo bound to `key` that `engine` cannot run.
void limitChoices(QComboBox *combo, const RunConfig &base, std::string_view key)
{
    auto *model = qobject_cast<QStandardItemModel *>(combo->model());
    for (int row = 0; model && row < combo->count(); ++row) {
        RunConfig probe = base;
        setConfigField(probe, key, combo->itemData(row).toString().toStdString());
        const QString why = enginetext::problem(probe);
        QStandardItem *item = model->item(row);
        item->setEnabled(why.isEmpty());
        item->setToolTip(why);
    }
}

} // namespace

void ControlPanel::setEngine(EngineKind engine)
{
    RunConfig base = config();
    base.engine = engine;
    // Each choice judged alone: from a config the engine can run otherwise.
    base.devices = 1;
    base.loader.strategy = Strategy::PerWorkerBatch;
    base.consumer.kind = ConsumerKind::Sleep;
    base.dataset.kind = DatasetKind::Synthetic;

    RunConfig parallel = base;
    parallel.devices = 2;
    const QString devices = enginetext::problem(parallel);
    for (QWidget *control :
         {static_cast<QWidget *>(m_devicesSlider), static_cast<QWidget *>(m_devicesSpin)}) {
        control->setEnabled(devices.isEmpty());
        control->setToolTip(devices.isEmpty() ? m_devicesToolTip : devices);
    }

    limitChoices(m_strategyCombo, base, "loader.strategy");
    limitChoices(m_datasetKindCombo, base, "dataset.kind");

    RunConfig model = base;
    model.consumer.kind = ConsumerKind::Model;
    const QString noModel = enginetext::problem(model);
    m_modelPanel->setEnabled(noModel.isEmpty());
    m_modelPanel->setToolTip(noModel);
}

} // namespace loaderlab
