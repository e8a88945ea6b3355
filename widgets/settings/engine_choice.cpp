#include "widgets/settings/engine_choice.h"

#include "core/engine/engine.h"

#include "widgets/common/background_task.h"
#include "widgets/common/engine_text.h"

#include <QComboBox>
#include <QLabel>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include <utility>

namespace loaderlab {

EngineChoice::EngineChoice(QWidget *parent)
    : QGroupBox(tr("Engine"), parent)
{
    m_combo = new QComboBox;
    m_combo->setObjectName(QStringLiteral("engineCombo"));
    m_combo->addItem(tr("LoaderLab"));
    m_combo->addItem(tr("PyTorch DataLoader"));
    m_combo->setToolTip(tr("LoaderLab's loader, or the same settings on PyTorch's own "
                           "DataLoader (worker processes) as a reference."));
    m_note = new QLabel;
    m_note->setObjectName(QStringLiteral("engineNote"));
    m_note->setWordWrap(true);
    m_note->setStyleSheet(QStringLiteral("color: gray;"));
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_combo);
    layout->addWidget(m_note);

    connect(m_combo, &QComboBox::currentIndexChanged, this, [this](int index) {
        // A greyed entry cannot be clicked, but it can be set from code: not taken.
        if (index == 1 && !pytorchAvailable()) {
            m_combo->setCurrentIndex(0);
            return;
        }
        updateNote();
        Q_EMIT pytorchChosenChanged(pytorchChosen());
    });
    onProbed(tr("Checking whether Python can import torch…"));
    m_probed = false;
    // Runs Python once (the check has a time limit); the answer comes back on the GUI
    // thread. The destructor asks the probe to stop, which kills a Python still
    // checking; the answer of a stopped probe is dropped.
    m_probe = new BackgroundTask(this);
    m_probe->start(
        [](const BackgroundTask::Control &control) {
            const auto cancelled = [&control] { return control.stopRequested(); };
            return loaderlab::engineCheck(loaderlab::EngineKind::PyTorch, cancelled);
        },
        [this](const loaderlab::PythonCheck &answer) {
            m_probed = true;
            m_python = QString::fromStdString(answer.python);
            onProbed(enginetext::pythonProblem(answer));
            if (std::exchange(m_pytorchWanted, false)) {
                if (pytorchAvailable())
                    m_combo->setCurrentIndex(1);
                else
                    m_unmet = tr("PyTorch DataLoader not available: %1").arg(m_problem);
            }
            Q_EMIT probeDone();
        });
}

EngineChoice::~EngineChoice()
{
    m_probe->cancel(); // before the members its answer would fill go away
}

bool EngineChoice::pytorchChosen() const
{
    return m_combo->currentIndex() == 1 && pytorchAvailable();
}

loaderlab::EngineKind EngineChoice::chosen() const
{
    return pytorchChosen() ? loaderlab::EngineKind::PyTorch : loaderlab::EngineKind::LoaderLab;
}

void EngineChoice::choose(loaderlab::EngineKind engine)
{
    const bool pytorch = engine == loaderlab::EngineKind::PyTorch;
    m_pytorchWanted = pytorch && !m_probed;
    m_unmet = pytorch && m_probed && !pytorchAvailable()
                  ? tr("PyTorch DataLoader not available: %1").arg(m_problem)
                  : QString();
    m_combo->setCurrentIndex(pytorch ? 1 : 0);
}

void EngineChoice::onProbed(const QString &problem)
{
    m_problem = problem;
    auto *model = qobject_cast<QStandardItemModel *>(m_combo->model());
    QStandardItem *item = model->item(1);
    item->setEnabled(problem.isEmpty());
    item->setToolTip(problem.isEmpty() ? tr("Python %1 with torch").arg(m_python) : problem);
    if (!problem.isEmpty() && m_combo->currentIndex() == 1)
        m_combo->setCurrentIndex(0);
    updateNote();
}

void EngineChoice::updateNote()
{
    if (pytorchChosen()) {
        m_note->setText(tr("Image folders, tensor files, synthetic data and your Python pipeline "
                           "files: worker processes, rebuilt at the next batch when a setting "
                           "changes; several devices are rank processes."));
    } else if (!m_probed) {
        m_note->setText(m_problem);
    } else if (!m_problem.isEmpty()) {
        m_note->setText(tr("PyTorch DataLoader not available: %1").arg(m_problem));
    } else {
        m_note->clear();
    }
    m_note->setVisible(!m_note->text().isEmpty());
}

} // namespace loaderlab
