#pragma once

// LessonPanel: the guided lessons in the window (core/lessons). Lists the lessons;
// the chosen one shows its explanation, the pattern to look for and its steps.
// *Start lesson* asks the window to put the lesson's preset into the controls and
// start a run (startRequested). A lesson whose verdict depends on the step against
// the loader first asks for a short measuring run on the chosen data (no step, the
// binding phase's workers; core/lessons/lesson_setup.h), shows what it measured and
// the step it chose, and then asks for the lesson's run with that step. The panel
// then follows the live run (LessonTracker):
// each phase's progress and figures, the next guided step ("Now set workers to 3.",
// done by hand or with *Apply step*: stepRequested) with what the lesson says
// before it (the model's prediction, in predict-then-watch), and the verdict the core
// computes from the phases' traces — provisional while the last phase runs, final
// when it has its batches (then finished()).

#include "core/lessons/lesson.h"
#include "core/trace/trace_log.h"
#include "widgets/lessons/lesson_panel_tracker.h"

#include <QElapsedTimer>
#include <QWidget>

#include <functional>
#include <memory>
#include <utility>

class QLabel;
class QListWidget;
class QPushButton;
class QTimer;

namespace loaderlab {

class LessonPanel : public QWidget
{
    Q_OBJECT

public:
    explicit LessonPanel(QWidget *parent = nullptr);

    // Where a lesson's preset starts from: the side panel's config.
    void setConfigSource(std::function<loaderlab::RunConfig()> source);
    // The source's engine changed: says again whether the chosen lesson can run.
    void updateAvailability() { showLesson(); }
    // Lessons that need a LibTorch model are disabled, with the reason, without one.
    void setModelAvailable(bool available);

    // Selects the lesson by name (as `loaderlab lesson NAME`); false if there is none.
    bool chooseLesson(const QString &name);
    const loaderlab::Lesson *chosenLesson() const;
    void startLesson();
    void stopLesson();
    void applyStep();

    // A new run (its trace), and new batches in it: the window calls these.
    void setTrace(std::shared_ptr<const loaderlab::TraceLog> trace);
    void refresh();

    const loaderlab::LessonTracker &tracker() const { return m_tracker; }
    // How the phases' CPU load is sampled (LessonTracker::setCpuSampler); for tests.
    void setCpuSampler(std::function<loaderlab::CpuSample()> sampler)
    {
        m_tracker.setCpuSampler(std::move(sampler));
    }
    // The verdict text on screen (empty before there is one).
    QString verdictText() const;

Q_SIGNALS:
    // Put `config` (the lesson's first phase) into the controls and start a run.
    void startRequested(const loaderlab::RunConfig &config);
    // Apply the lesson's settings of `config` (the next phase) to the run.
    void stepRequested(const loaderlab::RunConfig &config);
    void finished();

private:
    void onLessonSelected();
    // While setting up: once the measuring run has its batches (or its time is up),
    // the set-up from its trace, and the lesson's run with it.
    void checkSetUp();
    void finishSetUp();
    void showLesson();
    void showProgress();
    QString stepsText() const;
    QString phaseLine(const loaderlab::LessonPhaseResult &phase) const;

    std::function<loaderlab::RunConfig()> m_configSource;
    bool m_modelAvailable = false;
    loaderlab::LessonTracker m_tracker;

    QListWidget *m_list = nullptr;
    QLabel *m_title = nullptr;
    QLabel *m_explanation = nullptr;
    QLabel *m_expected = nullptr;
    QLabel *m_unavailable = nullptr;
    QLabel *m_steps = nullptr;
    QLabel *m_progress = nullptr;
    QLabel *m_setup = nullptr;
    QLabel *m_briefing = nullptr;
    QLabel *m_figures = nullptr;
    QLabel *m_verdict = nullptr;
    QPushButton *m_startButton = nullptr;
    QPushButton *m_applyButton = nullptr;
    QPushButton *m_stopButton = nullptr;
    QTimer *m_setupTimer = nullptr; // checks the measuring run while setting up
    QElapsedTimer m_setupClock;     // since the measuring run's trace came
    QElapsedTimer m_setupMeasuring; // since its first batch
};

} // namespace loaderlab
