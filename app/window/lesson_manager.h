#pragma once

// LessonManager: the side panel's Lessons tab. A lesson's preset goes into the
// control panel and starts a run; its steps are applied like any change of the
// controls (live, with a marker; a new run for another dataset); when every phase
// ran, the run stops so the plots stay on the lesson. What a lesson needs first (the
// default image folder, a tensor file preprocessed from the folder) is made by a
// BackgroundTask: the window keeps turning, and a newer request replaces an older one.

#include "core/config/run_config.h"

#include <QObject>
#include <QString>

class QScrollArea;

namespace loaderlab {

class BackgroundTask;
class ControlPanel;
class LessonPanel;
class RunManager;
class RunSession;

class LessonManager : public QObject
{
    Q_OBJECT

public:
    LessonManager(RunSession *session, ControlPanel *controls, RunManager *runs, QObject *parent);

    LessonPanel *panel() const { return m_panel; }
    // The panel in a scroll area, for the side panel's tab.
    QScrollArea *view() const { return m_view; }
    // True while the default folder or a tensor file is being made for the lesson.
    bool preparing() const;

Q_SIGNALS:
    void report(const QString &message);

private:
    void startLesson(const loaderlab::RunConfig &lessonConfig);
    void runLesson(loaderlab::RunConfig config);
    void applyLessonStep(const loaderlab::RunConfig &target);
    void applyLessonConfig(loaderlab::RunConfig config, bool datasetChanged);

    RunSession *m_session;
    ControlPanel *m_controls;
    RunManager *m_runs;
    LessonPanel *m_panel = nullptr;
    QScrollArea *m_view = nullptr;
    BackgroundTask *m_preparer = nullptr; // the default folder, or a lesson's tensor file
};

} // namespace loaderlab
