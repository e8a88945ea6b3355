// MainWindow's lessons: the side panel's Lessons tab with the LessonPanel. A lesson's preset goes
// into the control panel and starts a run; its steps are applied like any change of the controls
// (live, with a marker; a new run for another dataset); when every phase ran, the run stops so the
// plots stay on the lesson.

#include "app/main_window.h"

#include "app/default_dataset_preparer.h"

#include "core/config/config_fields.h"
#include "core/consumer/model_consumer_factory.h"
#include "core/lessons/lesson_runner.h"
#include "core/tools/default_dataset.h"

#include "widgets/control_panel.h"
#include "widgets/lesson_panel.h"
#include "widgets/run_session.h"

#include <QApplication>
#include <QScrollArea>

using namespace loaderlab;

QWidget *MainWindow::buildLessonPanel()
{
    m_lessons = new LessonPanel;
    m_lessons->setObjectName(QStringLiteral("lessonPanel"));
    m_lessons->setConfigSource([this] { return m_controls->config(); });
    m_lessons->setModelAvailable(modelCapabilities().available());
    auto *scroll = new QScrollArea;
    scroll->setWidget(m_lessons);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

    connect(m_lessons, &LessonPanel::startRequested, this, &MainWindow::startLesson);
    connect(m_lessons, &LessonPanel::stepRequested, this, &MainWindow::applyLessonStep);
    connect(m_lessons, &LessonPanel::finished, this, [this] {
        m_session->stop();
        report(tr("Lesson done: the verdict is in the Lessons tab."));
    });
    return scroll;
}

void MainWindow::startLesson(const RunConfig &lessonConfig)
{
    RunConfig config = lessonConfig;
    // The preset reads an image folder: the user's, or the default dataset.
    if (config.dataset.kind == DatasetKind::ImageFolder && config.dataset.path.empty()) {
        try {
            config.dataset.path = DefaultDatasetPreparer::exists()
                                      ? DefaultDatasetPreparer::defaultPath().toStdString()
                                      : ensureDefaultImageFolder();
        } catch (const std::exception &e) {
            report(tr("Cannot start the lesson: %1").arg(QString::fromStdString(e.what())));
            m_lessons->stopLesson();
            return;
        }
    }
    // The autotuner would change what the lesson measures.
    m_controls->setAutotuneEnabled(false);
    applyConfig(config);
    if (!startRun())
        m_lessons->stopLesson();
}

void MainWindow::applyLessonStep(const RunConfig &target)
{
    RunConfig config = m_controls->config();
    bool datasetChanged = false;
    for (const std::string &key : m_lessons->tracker().keys()) {
        const auto value = getConfigField(target, key);
        if (getConfigField(config, key) == value)
            continue;
        setConfigField(config, key, value);
        datasetChanged = datasetChanged || key.rfind("dataset.", 0) == 0;
    }
    const Lesson *lesson = m_lessons->tracker().lesson();
    if (!(datasetChanged && lesson && lesson->needsTensorFile
          && config.dataset.kind == DatasetKind::TensorFile)) {
        applyLessonConfig(config, datasetChanged);
        return;
    }
    // The image folder preprocessed into a tensor file (cached): seconds of work the
    // first time, on a thread of its own.
    const RunConfig current = m_controls->config();
    const std::string folder = current.dataset.kind == DatasetKind::ImageFolder
                                   ? current.dataset.path
                                   : std::string();
    report(tr("Preparing the lesson's tensor file…"));
    m_lessonPreparer = std::jthread([this, folder, config] {
        RunConfig prepared = config;
        QString error;
        try {
            prepared.dataset.path = lessonTensorFile(folder.empty() ? ensureDefaultImageFolder()
                                                                    : folder);
        } catch (const std::exception &e) {
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(
            this,
            [this, prepared, error] {
                if (!error.isEmpty())
                    report(tr("Cannot prepare the tensor file: %1").arg(error));
                else
                    applyLessonConfig(prepared, true);
            },
            Qt::QueuedConnection);
    });
}

void MainWindow::applyLessonConfig(RunConfig config, bool datasetChanged)
{
    config.maxBatches = 0;
    applyConfig(config);
    // As if the controls had been changed by hand: live, or a new run for a dataset.
    if (datasetChanged)
        onDatasetSettingsChanged();
    else
        onLoaderSettingsChanged();
}
