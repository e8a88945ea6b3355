// The window given 1280x800 (a laptop's screen) stays 1280 px wide, in English and in
// German: when it opens, and after each action that once made it grow past the
// screen: keeping runs, showing Experiments' predicted view, following a run another
// process writes. And the side tabs' scrolled content (Settings, What if) fits its
// column whole, nothing cut at the right; every lesson's Start button is in view. A child whose
// minimum width grows makes the whole window grow with it, pushing plots, buttons and table columns
// off the screen; a failure names the widest children so the culprit is found at once.

#include "app/window/language.h"
#include "app/window/main_window.h"
#include "window_test_support.h"

#include "core/io/trace_csv.h"
#include "core/trace/trace_log.h"
#include "widgets/experiments/experiments_view.h"
#include "widgets/experiments/sweep_axes_editor.h"
#include "widgets/experiments/sweep_cells_model.h"
#include "widgets/session/run_list.h"
#include "widgets/session/run_session.h"

#include "tests/support/followed_run.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <QComboBox>
#include <QLabel>
#include <QLayout>
#include <QListWidget>
#include <QProcess>
#include <QPushButton>
#include <QScopeGuard>
#include <QScrollArea>
#include <QTabWidget>
#include <QToolButton>

#include <algorithm>
#include <cstring>
#include <vector>

#include <csignal>
#include <sys/types.h>

using namespace loaderlab;
namespace fr = followed_run;

namespace {

constexpr int kScreenWidth = 1280;
constexpr int kScreenHeight = 800;

// The descendants with the widest minimum sizes, widest first: where a window too
// wide for the screen gets its width from, as a layout counts them: a minimum width
// set, else the minimum size hint, or the size hint where the size policy will not
// shrink the widget; a tab's pages count while hidden.
QString widestChildren(const QWidget &window)
{
    std::vector<std::pair<int, QString>> widths;
    for (const QWidget *w : window.findChildren<QWidget *>()) {
        if (w->isWindow())
            continue;
        const bool shrinks = w->sizePolicy().horizontalPolicy() & QSizePolicy::ShrinkFlag;
        const int least = w->minimumWidth() > 0 ? w->minimumWidth()
                          : shrinks             ? w->minimumSizeHint().width()
                                                : w->sizeHint().width();
        const QWidget *parent = w->parentWidget();
        widths.emplace_back(
            least,
            QStringLiteral("%1 '%2' in %3 '%4': %5 px%6")
                .arg(QString::fromLatin1(w->metaObject()->className()), w->objectName(),
                     parent ? QString::fromLatin1(parent->metaObject()->className()) : QString(),
                     parent ? parent->objectName() : QString())
                .arg(least)
                .arg(shrinks ? QString() : QStringLiteral(" (hint)")));
    }
    // What the rows of the widest named pages' layouts need.
    for (const QWidget *w : window.findChildren<QWidget *>(QStringLiteral("sweepResults"))) {
        for (int i = 0; w->layout() && i < w->layout()->count(); ++i) {
            QLayoutItem *item = w->layout()->itemAt(i);
            widths.emplace_back(item->minimumSize().width(), QStringLiteral("row %1 of %2: %3 px")
                                                                 .arg(i)
                                                                 .arg(w->objectName())
                                                                 .arg(item->minimumSize().width()));
            if (QLayout *row = item->layout()) {
                for (int j = 0; j < row->count(); ++j) {
                    QLayoutItem *cell = row->itemAt(j);
                    const QWidget *cw = cell->widget();
                    widths.emplace_back(
                        cell->minimumSize().width(),
                        QStringLiteral("  item %1.%2 %3 '%4': %5 px")
                            .arg(i)
                            .arg(j)
                            .arg(cw ? QString::fromLatin1(cw->metaObject()->className())
                                    : QString(),
                                 cw ? (cw->objectName().isEmpty()
                                           ? (qobject_cast<const QLabel *>(cw)
                                                  ? qobject_cast<const QLabel *>(cw)->text()
                                                  : QString())
                                           : cw->objectName())
                                    : QString())
                            .arg(cell->minimumSize().width()));
                }
            }
        }
    }
    std::sort(widths.begin(), widths.end(),
              [](const auto &a, const auto &b) { return a.first > b.first; });
    QStringList out;
    for (std::size_t k = 0; k < std::min<std::size_t>(60, widths.size()); ++k)
        out << widths[k].second;
    return out.join(QLatin1Char('\n'));
}

// Fails, naming the widest children, when `window` is wider than the screen or its
// minimum size would make it so.
bool fitsTheScreen(const QWidget &window, const char *after)
{
    QApplication::processEvents();
    const int width = window.width();
    const int least = window.minimumSizeHint().width();
    if (width <= kScreenWidth && least <= kScreenWidth)
        return true;
    qWarning("after %s the window is %d px wide, at least %d:\n%s", after, width, least,
             qPrintable(widestChildren(window)));
    return false;
}

// Fails, naming the widest children, when a side tab's scrolled content is wider than
// its column: a horizontal scroll bar, or content cut at the right.
bool sideTabsFitTheirColumn(MainWindow &window, const char *after)
{
    auto *tabs = window.findChild<QTabWidget *>(QStringLiteral("sideTabs"));
    bool fits = true;
    for (const char *name : {"settingsScroll", "whatIfScroll"}) {
        auto *scroll = window.findChild<QScrollArea *>(QLatin1String(name));
        if (!tabs || !scroll)
            return false;
        for (int i = 0; i < tabs->count(); ++i) {
            if (tabs->widget(i)->isAncestorOf(scroll))
                tabs->setCurrentIndex(i);
        }
        QApplication::processEvents();
        // With a run to calibrate from, What if fills its figures (longer than their
        // dashes) once shown.
        if (std::strcmp(name, "whatIfScroll") == 0 && window.session()->trace()) {
            auto *figure = window.findChild<QLabel *>(QStringLiteral("whatIfSamplesPerSec"));
            if (!QTest::qWaitFor([figure] { return figure->text() != QStringLiteral("–"); },
                                 20'000))
                qWarning("after %s What if showed no figures", after);
            QApplication::processEvents();
        }
        const int needed = scroll->widget()->minimumSizeHint().width();
        const int room = scroll->viewport()->width();
        if (needed <= room)
            continue;
        qWarning("after %s %s needs %d px in a column of %d:\n%s", after, name, needed, room,
                 qPrintable(widestChildren(*scroll->widget())));
        fits = false;
    }
    tabs->setCurrentIndex(0);
    return fits;
}

// Fails, naming the lesson, when choosing a lesson leaves its Start button below the
// Lessons tab's visible part, or when what the running lesson says (progress, verdict)
// comes after its reading (explanation, steps), a screen further down.
bool lessonActionsInView(MainWindow &window)
{
    auto *tabs = window.findChild<QTabWidget *>(QStringLiteral("sideTabs"));
    auto *scroll = window.findChild<QScrollArea *>(QStringLiteral("lessonScroll"));
    auto *list = window.findChild<QListWidget *>(QStringLiteral("lessonList"));
    auto *start = window.findChild<QPushButton *>(QStringLiteral("startLessonButton"));
    if (!tabs || !scroll || !list || !start)
        return false;
    tabs->setCurrentWidget(scroll);
    bool inView = true;
    for (int row = 0; row < list->count(); ++row) {
        list->setCurrentRow(row);
        QApplication::processEvents();
        const int bottom = start->mapTo(scroll->viewport(), QPoint(0, start->height())).y();
        if (bottom > scroll->viewport()->height()) {
            qWarning("lesson '%s': Start lesson ends at %d px in a tab %d px tall",
                     qPrintable(list->item(row)->text()), bottom, scroll->viewport()->height());
            inView = false;
        }
    }
    QLayout *layout = scroll->widget()->layout();
    const auto at = [&](const char *name) {
        return layout->indexOf(scroll->widget()->findChild<QWidget *>(QLatin1String(name)));
    };
    for (const char *said : {"lessonProgress", "lessonVerdict"}) {
        if (at(said) < 0 || at(said) > at("lessonExplanation") || at(said) > at("lessonSteps")) {
            qWarning("%s comes after the lesson's explanation or steps", said);
            inView = false;
        }
    }
    tabs->setCurrentIndex(0);
    return inView;
}

} // namespace

class TestWindowFitsScreen : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void staysOnTheScreenInEnglish() { staysOnTheScreen(); }
    // Last: German stays installed for the rest of the process.
    void staysOnTheScreenInGerman()
    {
        language::install(*QCoreApplication::instance(), QStringLiteral("de"));
        staysOnTheScreen();
    }

private:
    void staysOnTheScreen();
    void keepTwoRuns(MainWindow &window);
    void liveRunBesideABusyLoop(MainWindow &window);
    void showPredictedExperiments(MainWindow &window);
    void followARun(MainWindow &window);

    QTemporaryDir m_dir;
    int m_round = 0; // each round's files apart
};

void TestWindowFitsScreen::staysOnTheScreen()
{
    ++m_round;
    MainWindow window;
    window.resize(kScreenWidth, kScreenHeight);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(fitsTheScreen(window, "opening"));
    QVERIFY(sideTabsFitTheirColumn(window, "opening"));
    QVERIFY(lessonActionsInView(window));
    keepTwoRuns(window);
    QVERIFY(fitsTheScreen(window, "keeping two runs"));
    QVERIFY(sideTabsFitTheirColumn(window, "keeping two runs"));
    liveRunBesideABusyLoop(window);
    if (QTest::currentTestFailed())
        return;
    showPredictedExperiments(window);
    QVERIFY(fitsTheScreen(window, "Experiments' Predicted"));
    window.showExperiments(false);
    followARun(window);
    QVERIFY(fitsTheScreen(window, "following a run"));
    QVERIFY(sideTabsFitTheirColumn(window, "following a run"));
}

void TestWindowFitsScreen::keepTwoRuns(MainWindow &window)
{
    for (const int workers : {1, 2}) {
        window.applyConfig(windowtest::fastConfig(workers, 4096));
        QVERIFY(window.startRun());
        QTRY_VERIFY(window.session()->trace() && window.session()->trace()->size() > 30);
        window.session()->stop();
        QTRY_VERIFY(window.session()->finished());
        QVERIFY(window.session()->keepRun() > 0);
    }
}

// A live run of 2 ranks beside a CPU-bound program, as a laptop often is: What if,
// calibrated from it, says how busy the machine was, offers to predict for it as it
// was, and gives the slowest rank's wait.
void TestWindowFitsScreen::liveRunBesideABusyLoop(MainWindow &window)
{
    // Detached, so it is not LoaderLab's child (whose CPU would count as its own).
    qint64 busy = 0;
    QVERIFY(QProcess::startDetached(QStringLiteral("sh"),
                                    {QStringLiteral("-c"), QStringLiteral("while :; do :; done")},
                                    {}, &busy));
    const auto stopBusy = qScopeGuard([busy] { ::kill(static_cast<pid_t>(busy), SIGKILL); });
    RunConfig config = windowtest::fastConfig(1, 4096);
    config.consumer.sleepPerBatchMs = 4.0;
    config.epochs = 0;
    config.devices = 2; // What if's Slowest rank then has a figure
    window.applyConfig(config);
    QVERIFY(window.startRun());
    QTRY_VERIFY_WITH_TIMEOUT(window.session()->trace()->size() > 200, 20'000);
    window.session()->stop(); // its machine load is known once it has ended
    QTRY_VERIFY(window.session()->finished());
    auto *tabs = window.findChild<QTabWidget *>(QStringLiteral("sideTabs"));
    auto *whatIf = window.findChild<QScrollArea *>(QStringLiteral("whatIfScroll"));
    for (int i = 0; i < tabs->count(); ++i) {
        if (tabs->widget(i)->isAncestorOf(whatIf))
            tabs->setCurrentIndex(i);
    }
    auto *run = window.findChild<QComboBox *>(QStringLiteral("whatIfRun"));
    run->setCurrentIndex(run->findData(RunList::kLiveId));
    auto *note = window.findChild<QLabel *>(QStringLiteral("whatIfBusyMachine"));
    QTRY_VERIFY_WITH_TIMEOUT(note->isVisibleTo(&window), 30'000);
    auto *slowest = window.findChild<QLabel *>(QStringLiteral("whatIfStragglers"));
    QTRY_VERIFY(slowest->text() != QStringLiteral("–"));
    QVERIFY(sideTabsFitTheirColumn(window, "a live run beside a busy loop"));
}

void TestWindowFitsScreen::showPredictedExperiments(MainWindow &window)
{
    window.showExperiments(true);
    ExperimentsView *view = window.experimentsView();
    auto *editor = childNamed<SweepAxesEditor>(view, "sweepAxesEditor");
    editor->setDefinition({});
    QVERIFY(editor->setAxisValues("loader.num_workers", {1, 2}));
    QVERIFY(editor->setAxisValues("loader.batch_size", {16, 32}));
    editor->setBudget({SweepBudget::Kind::Samples, 640});
    editor->setRepeats(1);
    view->setResultsFolder(m_dir.filePath(QStringLiteral("sweep-%1").arg(m_round)));
    QString error;
    QVERIFY2(view->start(&error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(!view->running(), 120'000);
    auto *model = childNamed<SweepCellsModel>(view, "sweepCellsModel");
    QCOMPARE(model->records().size(), std::size_t{4});
    childNamed<QToolButton>(view, "sweepPredictedToggle")->click();
    QTRY_VERIFY_WITH_TIMEOUT(model->prediction() != nullptr, 30'000);
}

void TestWindowFitsScreen::followARun(MainWindow &window)
{
    const std::string stem =
        m_dir.filePath(QStringLiteral("followed-%1").arg(m_round)).toStdString();
    fr::writeJson(stem + ".json", fr::summaryJson("running"));
    fr::append(stem + ".csv", traceCsvHeader() + '\n' + fr::csvText(fr::rows(0, 20)));
    QString error;
    QVERIFY2(window.followRun(QString::fromStdString(stem + ".csv"), &error), qPrintable(error));
    QTRY_VERIFY(window.session()->runs()->runs().size() >= 4);
    QTest::qWait(300); // the follower's first polls
}

LOADERLAB_TEST_MAIN(TestWindowFitsScreen)
#include "test_window_fits_screen.moc"
