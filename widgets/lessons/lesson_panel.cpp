#include "widgets/lessons/lesson_panel.h"

#include "widgets/common/engine_text.h"
#include "widgets/common/form_helpers.h"

#include "core/engine/engine.h"
#include "core/lessons/lesson_runner.h"
#include "core/lessons/lesson_setup.h"

#include <QCoreApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QRegularExpression>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <filesystem>

namespace loaderlab {

using State = LessonTracker::State;
using formhelpers::named;

namespace {

QString text(const std::string &s)
{
    return QString::fromStdString(s);
}

// A lesson's text (core/lessons/lesson_catalog.cpp, context "Lesson") in the window's
// language. One made from a pattern and a number ("4 workers" from "%1 workers") is
// found by its pattern: the numbers become %1, %2, ... again.
QString translated(const std::string &s)
{
    const QString english = text(s);
    const QString exact = QCoreApplication::translate("Lesson", s.c_str());
    if (exact != english)
        return exact;
    static const QRegularExpression number(QStringLiteral("\\b\\d+\\b"));
    QStringList numbers;
    QString pattern = english;
    for (qsizetype at = 0;;) {
        const QRegularExpressionMatch match = number.match(pattern, at);
        if (!match.hasMatch())
            break;
        numbers << match.captured();
        const QString placeholder = QLatin1Char('%') + QString::number(numbers.size());
        pattern.replace(match.capturedStart(), match.capturedLength(), placeholder);
        at = match.capturedStart() + placeholder.size();
    }
    QString german = QCoreApplication::translate("Lesson", pattern.toUtf8().constData());
    if (numbers.isEmpty() || german == pattern)
        return english;
    for (const QString &n : numbers)
        german = german.arg(n);
    return german;
}

// Why `lesson` cannot run on the engine `base` names (lessonEngineProblem()), in the
// window's language; "" when every phase can.
QString lessonProblem(const loaderlab::Lesson &lesson, const loaderlab::RunConfig &base)
{
    for (std::size_t i = 0; i < lesson.phases.size(); ++i) {
        const QString why = enginetext::problem(loaderlab::lessonPhaseConfig(lesson, base, i));
        if (!why.isEmpty())
            return LessonPanel::tr("phase '%1': %2").arg(translated(lesson.phases[i].label), why);
    }
    return {};
}

// Whether `lesson` compares an image folder with its tensor file and `base` names
// data other than a folder (lessonDataProblem: it would run on other data than the
// user's). Other lessons whose preset brings data of its own (model-trade's synthetic
// samples) run whatever the dataset chosen, as the window's runs do.
bool needsTheFolder(const loaderlab::Lesson &lesson, const loaderlab::RunConfig &base)
{
    return lesson.needsTensorFile && !loaderlab::lessonDataProblem(lesson, base).empty();
}

// Whether a measuring run can read the data: the default dataset (the window makes
// it when it is missing), or a folder or file that is there.
std::string setupDataProblem(const loaderlab::RunConfig &measuring)
{
    if (measuring.dataset.path.empty())
        return {};
    std::error_code ec;
    if (std::filesystem::exists(measuring.dataset.path, ec))
        return {};
    return measuring.dataset.path + ": not found";
}

QLabel *wrapped(const char *name)
{
    auto *label = new QLabel;
    label->setObjectName(QLatin1String(name));
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

} // namespace

LessonPanel::LessonPanel(QWidget *parent)
    : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    m_list = new QListWidget;
    m_list->setObjectName(QStringLiteral("lessonList"));
    for (const loaderlab::Lesson &lesson : loaderlab::lessons()) {
        auto *item = new QListWidgetItem(translated(lesson.title), m_list);
        item->setData(Qt::UserRole, text(lesson.name));
        item->setToolTip(translated(lesson.title) + QStringLiteral(" (") + text(lesson.name)
                         + QLatin1Char(')'));
    }
    m_list->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_list->setTextElideMode(Qt::ElideRight);
    m_list->setMaximumHeight(m_list->sizeHintForRow(0) * 6 + 2 * m_list->frameWidth());
    layout->addWidget(m_list);

    m_title = wrapped("lessonTitle");
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_explanation = wrapped("lessonExplanation");
    m_expected = wrapped("lessonExpected");
    m_unavailable = wrapped("lessonUnavailable");
    m_unavailable->setStyleSheet(QStringLiteral("color: #c62828;"));
    m_steps = wrapped("lessonSteps");
    m_steps->setTextFormat(Qt::RichText);
    m_progress = wrapped("lessonProgress");
    m_setup = wrapped("lessonSetup");
    m_briefing = wrapped("lessonBriefing");
    m_figures = wrapped("lessonFigures");
    m_verdict = wrapped("lessonVerdict");
    // The title, the buttons and what the running lesson says come first, the
    // lesson's reading after them: on a laptop's side column the explanation and the
    // steps fill a screen, and Start, the progress and the verdict must stay in view.
    layout->addWidget(m_title);
    layout->addWidget(m_unavailable);

    auto *buttons = new QHBoxLayout;
    m_startButton = named(new QPushButton(tr("Start lesson")), "startLessonButton",
                          tr("Put the lesson's settings into the controls and start a run."));
    m_applyButton = named(new QPushButton(tr("Apply step")), "applyStepButton",
                          tr("Make the next step's change for you (or make it in the controls)."));
    m_stopButton = named(new QPushButton(tr("Stop lesson")), "stopLessonButton",
                         tr("Stop following the lesson; the run goes on."));
    buttons->addWidget(m_startButton);
    buttons->addWidget(m_applyButton);
    buttons->addWidget(m_stopButton);
    layout->addLayout(buttons);
    for (QLabel *label : {m_progress, m_setup, m_briefing, m_figures, m_verdict, m_explanation,
                          m_expected, m_steps})
        layout->addWidget(label);
    layout->addStretch(1);
    m_setupTimer = new QTimer(this);
    m_setupTimer->setInterval(250);
    connect(m_setupTimer, &QTimer::timeout, this, &LessonPanel::checkSetUp);

    connect(m_list, &QListWidget::currentRowChanged, this, &LessonPanel::onLessonSelected);
    connect(m_startButton, &QPushButton::clicked, this, &LessonPanel::startLesson);
    connect(m_applyButton, &QPushButton::clicked, this, &LessonPanel::applyStep);
    connect(m_stopButton, &QPushButton::clicked, this, &LessonPanel::stopLesson);
    showLesson();
}

void LessonPanel::setConfigSource(std::function<loaderlab::RunConfig()> source)
{
    m_configSource = std::move(source);
}

void LessonPanel::setModelAvailable(bool available)
{
    m_modelAvailable = available;
    showLesson();
}

bool LessonPanel::chooseLesson(const QString &name)
{
    for (int row = 0; row < m_list->count(); ++row) {
        if (m_list->item(row)->data(Qt::UserRole).toString() == name) {
            m_list->setCurrentRow(row);
            return true;
        }
    }
    return false;
}

const loaderlab::Lesson *LessonPanel::chosenLesson() const
{
    const QListWidgetItem *item = m_list->currentItem();
    return item ? loaderlab::findLesson(item->data(Qt::UserRole).toString().toStdString())
                : nullptr;
}

void LessonPanel::onLessonSelected()
{
    // Another lesson: the one being followed is left (its run goes on).
    if (m_tracker.state() != State::Idle && m_tracker.lesson() != chosenLesson())
        m_tracker.stop();
    showLesson();
}

void LessonPanel::startLesson()
{
    const loaderlab::Lesson *lesson = chosenLesson();
    const loaderlab::RunConfig base = m_configSource ? m_configSource() : loaderlab::RunConfig();
    if (!lesson || (lesson->needsModel && !m_modelAvailable)
        || !loaderlab::lessonEngineProblem(*lesson, base).empty()
        || needsTheFolder(*lesson, base)) {
        showLesson(); // says why
        return;
    }
    m_setupTimer->stop();
    m_setupClock.invalidate();
    m_setupMeasuring.invalidate();
    loaderlab::LessonSetup setup;
    if (loaderlab::lessonMeasuresData(*lesson)) {
        // First a short run that measures the data; checkSetUp() then starts the
        // lesson's own run with the step chosen from it.
        loaderlab::RunConfig measuring = loaderlab::lessonSetupRunConfig(*lesson, base, {});
        const std::string problem = setupDataProblem(measuring);
        if (problem.empty()) {
            m_tracker.startSetUp(*lesson, base);
            m_setupTimer->start();
            showLesson();
            // The lesson's run replaces it: a run that ended would have the window
            // settle on its end while the next one starts.
            measuring.maxBatches = 0;
            Q_EMIT startRequested(measuring);
            return;
        }
        setup = loaderlab::lessonSetupFromRun(*lesson, base, {}, {}, 0.0, problem);
    }
    m_tracker.start(*lesson, base, setup);
    loaderlab::RunConfig config = m_tracker.phaseConfig(0);
    config.maxBatches = 0; // the lesson, not a batch limit, ends the run
    showLesson();
    Q_EMIT startRequested(config);
}

void LessonPanel::checkSetUp()
{
    if (m_tracker.state() != State::SettingUp) {
        m_setupTimer->stop();
        return;
    }
    const loaderlab::RunConfig measuring = loaderlab::lessonSetupRunConfig(*m_tracker.lesson(),
                                                                           m_tracker.base(), {});
    const std::size_t have = m_tracker.setupRecords().size();
    if (have > 0 && !m_setupMeasuring.isValid())
        m_setupMeasuring.start();
    const auto seconds = [](const QElapsedTimer &clock) {
        return clock.isValid() ? static_cast<double>(clock.elapsed()) / 1000.0 : 0.0;
    };
    // As on the command line: the batches and loading time the measuring needs, or
    // what it has when its time (from its first batch) is up; without a batch at all,
    // the preset (the text says so).
    if ((have > 0
         && loaderlab::setupMeasuringDone(*m_tracker.lesson(), measuring, have,
                                          seconds(m_setupMeasuring)))
        || (have == 0 && seconds(m_setupClock) >= loaderlab::kSetupStartSeconds))
        finishSetUp();
    else
        showProgress();
}

void LessonPanel::finishSetUp()
{
    m_setupTimer->stop();
    const loaderlab::Lesson &lesson = *m_tracker.lesson();
    const loaderlab::RunConfig base = m_tracker.base();
    const double seconds = m_setupClock.isValid() ? m_setupClock.elapsed() / 1000.0 : 0.0;
    // The batches the command line's measuring run has; the run here goes on until
    // the lesson's run replaces it.
    std::vector<loaderlab::TraceRecord> records = m_tracker.setupRecords();
    const auto needed = loaderlab::lessonSetupRunConfig(lesson, base, {}).maxBatches;
    records.resize(std::min(records.size(), static_cast<std::size_t>(needed)));
    const loaderlab::LessonSetup setup = loaderlab::lessonSetupFromRun(lesson, base, {}, records,
                                                                       seconds);
    m_tracker.start(lesson, base, setup);
    loaderlab::RunConfig config = m_tracker.phaseConfig(0);
    config.maxBatches = 0;
    showLesson();
    Q_EMIT startRequested(config);
}

void LessonPanel::stopLesson()
{
    m_setupTimer->stop();
    m_tracker.stop();
    showLesson();
}

void LessonPanel::applyStep()
{
    if (m_tracker.state() != State::WaitingForStep)
        return;
    loaderlab::RunConfig config = m_tracker.phaseConfig(m_tracker.phase());
    config.maxBatches = 0;
    Q_EMIT stepRequested(config);
}

void LessonPanel::setTrace(std::shared_ptr<const loaderlab::TraceLog> trace)
{
    if (m_tracker.state() == State::Idle || m_tracker.state() == State::Done)
        return;
    // The measuring run's time counts from when it started.
    if (m_tracker.state() == State::SettingUp && trace && !m_setupClock.isValid())
        m_setupClock.start();
    m_tracker.setTrace(std::move(trace));
    refresh();
}

void LessonPanel::refresh()
{
    if (m_tracker.state() == State::Idle || m_tracker.state() == State::Done)
        return;
    // While setting up, the panel's own timer decides when the measuring is done:
    // the lesson's run is never started from within the window's refresh.
    if (m_tracker.state() == State::SettingUp) {
        showProgress();
        return;
    }
    m_tracker.update();
    showProgress();
    if (m_tracker.state() == State::Done)
        Q_EMIT finished();
}

QString LessonPanel::verdictText() const
{
    return m_verdict->text();
}

void LessonPanel::showLesson()
{
    const loaderlab::Lesson *lesson = chosenLesson();
    m_title->setText(lesson ? translated(lesson->title) : tr("Choose a lesson above."));
    m_explanation->setText(lesson ? translated(lesson->explanation) : QString());
    m_expected->setText(lesson ? tr("Look for: %1").arg(translated(lesson->expected)) : QString());
    const bool noModel = lesson && lesson->needsModel && !m_modelAvailable;
    // The engine chosen in the side panel must be able to run every phase.
    const loaderlab::RunConfig base = m_configSource ? m_configSource() : loaderlab::RunConfig();
    const QString engineProblem = lesson && !noModel ? lessonProblem(*lesson, base) : QString();
    // And a lesson that compares a folder with its tensor file needs the folder.
    const bool needsFolder = lesson && !noModel && engineProblem.isEmpty()
                             && needsTheFolder(*lesson, base);
    const bool blocked = noModel || !engineProblem.isEmpty() || needsFolder;
    if (noModel)
        m_unavailable->setText(tr("Needs LibTorch (a model step or the gradient exchange), "
                                  "which this build does not have; `loaderlab lesson %1` "
                                  "neither.")
                                   .arg(text(lesson->name)));
    else if (!engineProblem.isEmpty())
        m_unavailable->setText(
            tr("Cannot run on %1: %2")
                .arg(QString::fromUtf8(loaderlab::engineLabel(base.engine)), engineProblem));
    else if (needsFolder)
        m_unavailable->setText(
            tr("This lesson compares an image folder with the tensor file preprocessed from "
               "it, so it needs the image folder; %1 is a preprocessed tensor file. Choose the "
               "folder as the dataset.")
                .arg(text(base.dataset.path)));
    else
        m_unavailable->clear();
    m_unavailable->setVisible(blocked);
    m_explanation->setVisible(lesson);
    m_expected->setVisible(lesson);
    showProgress();
    m_startButton->setEnabled(lesson && !blocked);
}

QString LessonPanel::stepsText() const
{
    const loaderlab::Lesson *lesson = m_tracker.lesson() ? m_tracker.lesson() : chosenLesson();
    if (!lesson)
        return {};
    const bool following = m_tracker.state() != State::Idle;
    QString html = tr("<b>Steps</b>") + QStringLiteral("<ol style=\"margin-left: 12px\">");
    for (std::size_t i = 0; i < lesson->phases.size(); ++i) {
        const loaderlab::LessonPhase &phase = lesson->phases[i];
        QString line = translated(phase.label).toHtmlEscaped();
        if (!phase.instruction.empty())
            line = translated(phase.instruction).toHtmlEscaped() + QStringLiteral(" — ") + line;
        line += tr(" (%n batches)", nullptr, static_cast<int>(phase.batches));
        if (following && i < m_tracker.phase())
            line += tr(" — done");
        else if (following && i == m_tracker.phase())
            line = QStringLiteral("<b>") + line + QStringLiteral("</b>");
        html += QStringLiteral("<li>") + line + QStringLiteral("</li>");
    }
    return html + QStringLiteral("</ol>");
}

QString LessonPanel::phaseLine(const loaderlab::LessonPhaseResult &p) const
{
    const loaderlab::WaitPattern &w = p.waits;
    const QString spikes = w.period > 0 ? tr("spikes every %1 batches").arg(w.period)
                                        : tr("no regular spikes");
    return tr("%1: %2 batches, first wait %3 ms, then median %4 ms, p95 %5 ms; %6; %7 samples/s")
        .arg(translated(p.label))
        .arg(w.batches)
        .arg(w.firstMs, 0, 'f', 1)
        .arg(w.medianMs, 0, 'f', 2)
        .arg(w.p95Ms, 0, 'f', 2)
        .arg(spikes)
        .arg(p.summary.samplesPerSecMean, 0, 'f', 0);
}

void LessonPanel::showProgress()
{
    m_steps->setText(stepsText());
    m_steps->setVisible(chosenLesson() || m_tracker.lesson());
    const State state = m_tracker.state();
    const loaderlab::Lesson *lesson = m_tracker.lesson();
    QString progress;
    if (lesson && state == State::Running) {
        progress = tr("Phase %1 of %2: %3 of %4 batches")
                       .arg(m_tracker.phase() + 1)
                       .arg(lesson->phases.size())
                       .arg(m_tracker.phaseBatches())
                       .arg(lesson->phases[m_tracker.phase()].batches);
    } else if (lesson && state == State::WaitingForStep) {
        const loaderlab::LessonPhase &phase = lesson->phases[m_tracker.phase()];
        progress = phase.instruction.empty()
                       ? tr("Waiting for the run with the lesson's settings (press Start).")
                       : tr("Next step: %1").arg(translated(phase.instruction));
    } else if (lesson && state == State::Done) {
        progress = tr("Every phase ran.");
    } else if (lesson && state == State::SettingUp) {
        const loaderlab::RunConfig measuring = loaderlab::lessonSetupRunConfig(
            *lesson, m_tracker.base(), {});
        const int workers = measuring.loader.numWorkers;
        progress = tr("Set-up: measuring how fast the data loads with %1 and no step: %2 "
                      "batches, of at least %3")
                       .arg(workers == 1 ? tr("1 worker") : tr("%1 workers").arg(workers))
                       .arg(m_tracker.setupRecords().size())
                       .arg(loaderlab::setupBatches(workers));
    }
    m_progress->setText(progress);
    m_progress->setVisible(!progress.isEmpty());

    // What the set-up measured and chose: core's sentence, English like the verdict.
    const std::string &chosen = m_tracker.setup().text;
    const bool setUp = state != State::Idle && !chosen.empty();
    m_setup->setText(setUp ? tr("Set-up: %1").arg(text(chosen)) : QString());
    m_setup->setVisible(setUp);

    // What the lesson said before each phase reached so far: from when the phase
    // before it ended (with its step still to make) to the verdict, which it is
    // compared with. Core's sentence, English like the verdict.
    QStringList said;
    if (lesson && state != State::Idle) {
        const std::size_t reached = std::min(m_tracker.phase(), lesson->phases.size() - 1);
        for (std::size_t i = 1; i <= reached; ++i) {
            if (const std::string &t = m_tracker.briefing(i).text; !t.empty())
                said << tr("Before phase %1: %2").arg(i + 1).arg(text(t));
        }
    }
    m_briefing->setText(said.join(QLatin1Char('\n')));
    m_briefing->setVisible(!said.isEmpty());

    QStringList lines;
    if (state != State::Idle) {
        for (const loaderlab::LessonPhaseResult &phase : m_tracker.phasesSoFar())
            lines << phaseLine(phase);
    }
    m_figures->setText(lines.join(QLatin1Char('\n')));
    m_figures->setVisible(!lines.isEmpty());

    const auto verdict = m_tracker.verdict();
    if (verdict) {
        const QString head = state == State::Done ? tr("Verdict:") : tr("Verdict so far:");
        m_verdict->setText(head + QLatin1Char(' ') + text(verdict->text));
        // Seen: green; not seen: amber; does not apply to this data: grey, not a failure.
        m_verdict->setStyleSheet(verdict->observed  ? QStringLiteral("color: #2e7d32;")
                                 : verdict->applies ? QStringLiteral("color: #b26a00;")
                                                    : QStringLiteral("color: #616161;"));
    } else {
        m_verdict->clear();
    }
    m_verdict->setVisible(verdict.has_value());
    m_applyButton->setEnabled(state == State::WaitingForStep
                              && !lesson->phases[m_tracker.phase()].instruction.empty());
    m_stopButton->setEnabled(state == State::Running || state == State::WaitingForStep
                             || state == State::SettingUp);
}

} // namespace loaderlab
