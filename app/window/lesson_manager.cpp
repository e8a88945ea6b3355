#include "app/window/lesson_manager.h"

#include "app/window/default_dataset_preparer.h"
#include "app/window/run_manager.h"

#include "core/config/config_fields.h"
#include "core/consumer/model_consumer_factory.h"
#include "core/lessons/lesson_runner.h"

#include "widgets/common/background_task.h"
#include "widgets/lessons/lesson_panel.h"
#include "widgets/session/run_session.h"
#include "widgets/settings/control_panel.h"

#include <QScrollArea>

namespace loaderlab {

LessonManager::LessonManager(RunSession *session, ControlPanel *controls, RunManager *runs,
                             QObject *parent)
    : QObject(parent)
    , m_session(session)
    , m_controls(controls)
    , m_runs(runs)
    , m_preparer(new BackgroundTask(this))
{
    m_panel = new LessonPanel;
    m_panel->setObjectName(QStringLiteral("lessonPanel"));
    m_panel->setConfigSource([this] { return m_runs->chosenConfig(); });
    m_panel->setModelAvailable(modelCapabilities().available());
    m_view = new QScrollArea;
    m_view->setObjectName(QStringLiteral("lessonScroll"));
    m_view->setWidget(m_panel);
    m_view->setWidgetResizable(true);
    m_view->setFrameShape(QFrame::NoFrame);
    m_view->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

    connect(m_panel, &LessonPanel::startRequested, this, &LessonManager::startLesson);
    connect(m_panel, &LessonPanel::stepRequested, this, &LessonManager::applyLessonStep);
    connect(m_panel, &LessonPanel::finished, this, [this] {
        m_session->stop();
        Q_EMIT report(tr("Lesson done: the verdict is in the Lessons tab."));
    });
    connect(m_preparer, &BackgroundTask::progress, this, [this](qint64 done, qint64 total) {
        Q_EMIT report(tr("Preparing the default dataset: %1 of %2 images…").arg(done).arg(total));
    });
}

bool LessonManager::preparing() const
{
    return m_preparer->running();
}

void LessonManager::startLesson(const RunConfig &lessonConfig)
{
    // The preset reads an image folder: the user's, or the default dataset (made on a
    // thread of its own when it is not there yet).
    const bool needsDefault = lessonConfig.dataset.kind == DatasetKind::ImageFolder
                              && lessonConfig.dataset.path.empty();
    if (!needsDefault || DefaultDatasetPreparer::exists()) {
        RunConfig config = lessonConfig;
        if (needsDefault)
            config.dataset.path = DefaultDatasetPreparer::defaultPath().toStdString();
        m_preparer->cancel(); // an older lesson's preparation is not wanted any more
        runLesson(std::move(config));
        return;
    }
    Q_EMIT report(tr("Preparing the default dataset…"));
    m_preparer->start(
        &DefaultDatasetPreparer::ensureFolder,
        [this, lessonConfig](const std::string &path) {
            RunConfig config = lessonConfig;
            config.dataset.path = path;
            runLesson(std::move(config));
        },
        [this](const QString &error) {
            Q_EMIT report(tr("Cannot start the lesson: %1").arg(error));
            m_panel->stopLesson();
        });
}

void LessonManager::runLesson(RunConfig config)
{
    // The autotuner would change what the lesson measures.
    m_controls->setAutotuneEnabled(false);
    m_controls->setConfig(config);
    if (!m_runs->startConfiguredRun()) // with the lesson's replay, where it has one
        m_panel->stopLesson();
}

void LessonManager::applyLessonStep(const RunConfig &target)
{
    RunConfig config = m_controls->config();
    bool datasetChanged = false;
    for (const std::string &key : m_panel->tracker().keys()) {
        const auto value = getConfigField(target, key);
        if (getConfigField(config, key) == value)
            continue;
        setConfigField(config, key, value);
        // A new dataset, or another count of ranks, is a new run.
        datasetChanged = datasetChanged || key.rfind("dataset.", 0) == 0 || key == "devices";
    }
    const Lesson *lesson = m_panel->tracker().lesson();
    if (!(datasetChanged && lesson && lesson->needsTensorFile
          && config.dataset.kind == DatasetKind::TensorFile)) {
        applyLessonConfig(config, datasetChanged);
        return;
    }
    // The image folder preprocessed into a tensor file (cached): seconds of work the
    // first time. A second request (Apply clicked again) replaces this one; the first
    // stops after the image it is writing.
    const RunConfig current = m_controls->config();
    const std::string folder = current.dataset.kind == DatasetKind::ImageFolder
                                   ? current.dataset.path
                                   : std::string();
    Q_EMIT report(tr("Preparing the lesson's tensor file…"));
    m_preparer->start(
        [folder](const BackgroundTask::Control &control) {
            const std::string images = folder.empty()
                                           ? DefaultDatasetPreparer::ensureFolder(control)
                                           : folder;
            return lessonTensorFile(images, {}, control.stopToken());
        },
        [this, config](const std::string &path) {
            RunConfig prepared = config;
            prepared.dataset.path = path;
            applyLessonConfig(prepared, true);
        },
        [this](const QString &error) {
            Q_EMIT report(tr("Cannot prepare the tensor file: %1").arg(error));
        });
}

void LessonManager::applyLessonConfig(RunConfig config, bool datasetChanged)
{
    config.maxBatches = 0;
    m_controls->setConfig(config);
    // As if the controls had been changed by hand: live, or a new run for a dataset.
    m_runs->applyControls(datasetChanged);
}

} // namespace loaderlab
