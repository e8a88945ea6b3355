#include "widgets/experiments/max_batch_panel.h"

#include "core/config/dataset_config.h"
#include "core/loader/open_dataset.h"
#include "core/run/max_batch_hook.h"
#include "core/system/memory_budget.h"
#include "widgets/common/background_task.h"
#include "widgets/common/form_helpers.h"

#include <QCoreApplication>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include <exception>

namespace loaderlab {

namespace {

// One sample's shape as the model gets it: the synthetic shape, the crop of an image
// folder, or what the dataset says (opening it reads only headers).
SampleShape inputShape(const RunConfig &config)
{
    switch (config.dataset.kind) {
    case DatasetKind::Synthetic:
        return config.dataset.syntheticShape;
    case DatasetKind::ImageFolder:
        return {3, config.dataset.cropSize, config.dataset.cropSize};
    default:
        return openDataset(config.dataset)->sampleShape();
    }
}

QString attemptText(const BatchAttempt &a)
{
    if (!a.fits)
        return MaxBatchPanel::tr("batch %1: does not fit (%2)")
            .arg(a.batch)
            .arg(QString::fromStdString(a.reason));
    return MaxBatchPanel::tr("batch %1: fits (peak %2, %3 ms)")
        .arg(a.batch)
        .arg(QString::fromStdString(formatBytes(a.peakBytes)))
        .arg(a.stepMs, 0, 'f', 0);
}

QString reportText(const torchmodels::MaxBatchReport &r)
{
    const SearchResult &s = r.search;
    if (s.largestFit == 0)
        return s.end == SearchEnd::Stopped
                   ? MaxBatchPanel::tr("Stopped before any batch was tried.")
                   : MaxBatchPanel::tr("Not even batch 1 fits: %1")
                         .arg(QString::fromStdString(
                             s.attempts.empty() ? std::string() : s.attempts.front().reason));
    QString where;
    if (s.end == SearchEnd::ReachedMax)
        where = MaxBatchPanel::tr(" (the largest batch tried)");
    else if (s.end == SearchEnd::AttemptCap)
        where =
            MaxBatchPanel::tr(" (out of attempts: the limit is below %1)").arg(s.smallestFailure);
    else if (s.end == SearchEnd::Stopped)
        where = MaxBatchPanel::tr(" (stopped before the search ended)");
    return MaxBatchPanel::tr("Largest batch that fits: %1%2. Suggested: %3 (%4).\n%5")
        .arg(s.largestFit)
        .arg(where)
        .arg(r.suggested)
        .arg(QCoreApplication::translate("MaxBatch", suggestionRule(s.largestFit).c_str()),
             QString::fromStdString(r.description));
}

} // namespace

MaxBatchPanel::MaxBatchPanel(QWidget *parent)
    : QGroupBox(tr("Largest batch"), parent)
{
    using formhelpers::named;
    m_available = static_cast<bool>(maxBatchFinderHook());
    m_find = named(new QPushButton(tr("Find max batch")), "findMaxBatchButton",
                   m_available
                       ? tr("Runs the side panel's LibTorch model step at batch 1, 2, 4, … until "
                            "it no longer fits in memory, then narrows it down.")
                       : tr("This build has no LibTorch: the max batch finder runs real model "
                            "steps and needs it."));
    m_stop = named(new QPushButton(tr("Stop")), "stopMaxBatchButton", tr("Stops the search."));
    m_progress = named(new QLabel, "maxBatchProgress", {});
    m_progress->setWordWrap(true);
    m_result = named(new QLabel, "maxBatchResult", {});
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_task = new BackgroundTask(this);
    connect(m_find, &QPushButton::clicked, this, [this] {
        QString error;
        if (!start(&error))
            m_result->setText(error);
    });
    connect(m_stop, &QPushButton::clicked, this, &MaxBatchPanel::stop);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(formhelpers::row(m_find, m_stop));
    layout->addWidget(m_progress);
    layout->addWidget(m_result);
    updateButtons();
}

void MaxBatchPanel::setConfigSource(std::function<RunConfig()> source)
{
    m_source = std::move(source);
}

bool MaxBatchPanel::start(QString *error)
{
    const MaxBatchFinderHook hook = maxBatchFinderHook();
    if (!hook || m_running || !m_source) {
        if (error)
            *error = !hook ? m_find->toolTip() : tr("A search is already running.");
        return false;
    }
    const RunConfig config = m_source();
    m_running = true;
    m_progress->setText(tr("Building the model…"));
    m_result->clear();
    updateButtons();
    struct Found
    {
        QString result;
        std::int64_t largest = 0;
        std::int64_t suggested = 0;
    };
    m_task->start(
        [this, hook, config](const BackgroundTask::Control &control) {
            Found found;
            try {
                torchmodels::MaxBatchRequest request;
                request.model = config.consumer.model;
                const SampleShape shape = inputShape(config);
                request.channels = shape.channels;
                request.height = shape.height;
                request.width = shape.width;
                request.memoryBudgetBytes = memoryBudgetFromMegabytes(config.memoryBudgetMb);
                // `this` only in the posted call, which runs on the GUI thread.
                const auto report = hook(
                    request, control.stopToken(), [this, &control](const BatchAttempt &a) {
                        control.post([this, line = attemptText(a)] { showAttempt(line); });
                    });
                found.result = reportText(report);
                found.largest = report.search.largestFit;
                found.suggested = report.suggested;
            } catch (const std::exception &e) {
                const std::string what = e.what();
                found.result = tr("Cannot search: %1")
                                   .arg(QString::fromStdString(what.substr(0, what.find('\n'))));
            }
            return found;
        },
        [this](const Found &found) { onEnded(found.result, found.largest, found.suggested); });
    return true;
}

void MaxBatchPanel::stop()
{
    m_task->requestStop(); // the search ends with what it found so far
}

void MaxBatchPanel::showAttempt(const QString &line)
{
    m_progress->setText(line);
}

void MaxBatchPanel::onEnded(const QString &result, std::int64_t largest, std::int64_t suggested)
{
    m_running = false;
    m_largestFit = largest;
    m_suggested = suggested;
    m_progress->clear();
    m_result->setText(result);
    updateButtons();
    Q_EMIT finished();
}

void MaxBatchPanel::updateButtons()
{
    m_find->setEnabled(m_available && !m_running);
    m_stop->setEnabled(m_running);
}

} // namespace loaderlab
