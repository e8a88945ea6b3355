// The run list (live run + kept and opened runs), its view with the side-by-side
// figures, and the engine choice's PyTorch detection.

#include "core/engine/pytorch/pytorch_run.h"

#include "widgets/session/run_list.h"
#include "widgets/session/run_list_view.h"
#include "widgets/settings/engine_choice.h"

#include "tests/support/test_main.h"
#include "tests/support/widget_child.h"

#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTableWidget>
#include <QToolButton>
#include <QtTest>

#include <set>

using namespace loaderlab;

namespace {

RunEntry finishedRun(int workers, double samplesPerSec, double waitMean)
{
    RunEntry run;
    auto trace = std::make_shared<TraceLog>();
    TraceRecord r;
    r.index = 0;
    trace->append(r);
    run.trace = trace;
    run.config.loader.numWorkers = workers;
    run.config.loader.batchSize = 32;
    run.workers = workers;
    run.summary.samplesPerSecMean = samplesPerSec;
    run.summary.waitMeanMs = waitMean;
    run.summary.waitP95Ms = 2 * waitMean;
    run.summary.inputBoundShare = 0.25;
    run.summary.firstBatchLatencyMs = 123.4;
    run.summary.batches = 77;
    return run;
}

QStringList column(const QTableWidget *table, int c)
{
    QStringList out;
    for (int row = 0; row < table->rowCount(); ++row)
        out << table->item(row, c)->text();
    return out;
}

} // namespace

class TestRunList : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void addAndRemoveRuns();
    void visibilityDecidesTheOverlays();
    void viewRowsMatchTheRuns();
    void viewCheckboxAndRemoveButtonChangeTheList();
    void pytorchGreyedOutWithTheReason();
    void pytorchChoosableWhereTorchImports();
};

void TestRunList::addAndRemoveRuns()
{
    RunList runs;
    QSignalSpy changed(&runs, &RunList::overlaysChanged);
    QCOMPARE(runs.runs().size(), std::size_t(1));
    QVERIFY(runs.live().live);
    QCOMPARE(runs.live().colour, RunList::liveColour());

    const int a = runs.add(finishedRun(2, 1000, 1.5));
    const int b = runs.add(finishedRun(4, 2000, 0.5));
    QCOMPARE(changed.count(), 2);
    QCOMPARE(runs.runs().size(), std::size_t(3));
    QVERIFY(a != b && a != RunList::kLiveId && b != RunList::kLiveId);
    QCOMPARE(runs.find(a)->name, QStringLiteral("2 workers, batch 32"));
    // Every run a colour of its own, none the live run's.
    const std::set<QRgb> colours{runs.runs()[0].colour.rgb(), runs.runs()[1].colour.rgb(),
                                 runs.runs()[2].colour.rgb()};
    QCOMPARE(colours.size(), std::size_t(3));

    runs.remove(RunList::kLiveId); // the live run stays
    QCOMPARE(runs.runs().size(), std::size_t(3));
    const QColor freed = runs.find(a)->colour;
    runs.remove(a);
    QCOMPARE(runs.runs().size(), std::size_t(2));
    QVERIFY(!runs.find(a));
    QCOMPARE(runs.find(b)->summary.samplesPerSecMean, 2000.0);
    // A freed colour is given again.
    const int c = runs.add(finishedRun(1, 10, 1));
    QCOMPARE(runs.find(c)->colour, freed);
    QVERIFY(runs.find(c)->colour != runs.find(b)->colour);
    runs.add(finishedRun(3, 10, 1));
    runs.clearKept();
    QCOMPARE(runs.runs().size(), std::size_t(1));
    QVERIFY(runs.runs()[0].live);
}

void TestRunList::visibilityDecidesTheOverlays()
{
    RunList runs;
    const int a = runs.add(finishedRun(2, 1000, 1.5));
    const int b = runs.add(finishedRun(4, 2000, 0.5));
    QCOMPARE(runs.visibleOverlays().size(), std::size_t(2));
    QSignalSpy changed(&runs, &RunList::overlaysChanged);
    runs.setVisible(a, false);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(runs.visibleOverlays().size(), std::size_t(1));
    QCOMPARE(runs.visibleOverlays()[0]->id, b);
    runs.setVisible(a, false); // no change, no signal
    QCOMPARE(changed.count(), 1);
    runs.setVisible(a, true);
    QCOMPARE(runs.visibleOverlays().size(), std::size_t(2));
    // The live run is never an overlay: the plots draw it themselves.
    runs.setLive(std::make_shared<TraceLog>(), {}, 2);
    QCOMPARE(runs.visibleOverlays().size(), std::size_t(2));
}

void TestRunList::viewRowsMatchTheRuns()
{
    RunList runs;
    RunListView view(&runs);
    QTableWidget *table = childNamed<QTableWidget>(&view, "runsTable");
    QTableWidget *stats = childNamed<QTableWidget>(&view, "runStatsTable");
    QCOMPARE(table->rowCount(), 1);
    QCOMPARE(stats->rowCount(), 0); // the live run has no trace yet

    const int a = runs.add(finishedRun(2, 1234.5, 1.5));
    RunEntry second = finishedRun(4, 2000, 0.25);
    second.name = QStringLiteral("opened one");
    second.source = QStringLiteral("/somewhere/run.csv");
    runs.add(second);
    QCOMPARE(table->rowCount(), 3);
    QCOMPARE(column(table, 1),
             QStringList({QStringLiteral("live run"), QStringLiteral("2 workers, batch 32"),
                          QStringLiteral("opened one")}));
    QCOMPARE(table->item(2, 2)->text(), QStringLiteral("run.csv"));
    QCOMPARE(stats->rowCount(), 2);
    QCOMPARE(column(stats, RunListView::RunColumn),
             QStringList({QStringLiteral("2 workers, batch 32"), QStringLiteral("opened one")}));
    QCOMPARE(column(stats, RunListView::SamplesPerSecColumn),
             QStringList({QStringLiteral("1234.5"), QStringLiteral("2000.0")}));
    QCOMPARE(column(stats, RunListView::WaitMeanColumn),
             QStringList({QStringLiteral("1.50"), QStringLiteral("0.25")}));
    QCOMPARE(column(stats, RunListView::WaitP95Column),
             QStringList({QStringLiteral("3.00"), QStringLiteral("0.50")}));
    QCOMPARE(stats->item(0, RunListView::InputBoundColumn)->text(), QStringLiteral("25.0 %"));
    QCOMPARE(stats->item(0, RunListView::FirstBatchColumn)->text(), QStringLiteral("123.4"));
    QCOMPARE(stats->item(0, RunListView::BatchesColumn)->text(), QStringLiteral("77"));
    QCOMPARE(stats->item(1, RunListView::RunColumn)->foreground().color(), runs.runs()[2].colour);

    // The live run gets a row once it has a trace, with its figures as they come.
    runs.setLive(std::make_shared<TraceLog>(), {}, 2);
    RunSummary live;
    live.samplesPerSecMean = 555.5;
    runs.setLiveSummary(live);
    QCOMPARE(stats->rowCount(), 3);
    QCOMPARE(stats->item(0, RunListView::RunColumn)->text(), QStringLiteral("live run"));
    QCOMPARE(stats->item(0, RunListView::SamplesPerSecColumn)->text(), QStringLiteral("555.5"));

    runs.setVisible(a, false);
    QCOMPARE(stats->rowCount(), 2);
    QCOMPARE(table->rowCount(), 3); // still listed, unticked
    QCOMPARE(table->item(1, 0)->checkState(), Qt::Unchecked);
    runs.remove(a);
    QCOMPARE(table->rowCount(), 2);
    QCOMPARE(stats->rowCount(), 2);
    runs.rename(runs.runs()[1].id, QStringLiteral("renamed"));
    QCOMPARE(stats->item(1, RunListView::RunColumn)->text(), QStringLiteral("renamed"));
}

void TestRunList::viewCheckboxAndRemoveButtonChangeTheList()
{
    RunList runs;
    RunListView view(&runs);
    const int a = runs.add(finishedRun(2, 1000, 1.5));
    runs.add(finishedRun(3, 1000, 1.5));
    QTableWidget *table = childNamed<QTableWidget>(&view, "runsTable");
    // Unticking the box hides the run (applied once the table's signal has returned).
    table->item(1, 0)->setCheckState(Qt::Unchecked);
    QTRY_VERIFY(!runs.find(a)->visible);
    QCOMPARE(runs.visibleOverlays().size(), std::size_t(1));
    table->item(1, 0)->setCheckState(Qt::Checked);
    QTRY_VERIFY(runs.find(a)->visible);
    // Editing the name renames the run; the live run's name is not editable.
    QVERIFY(!(table->item(0, 1)->flags() & Qt::ItemIsEditable));
    table->item(1, 1)->setText(QStringLiteral("my baseline"));
    QTRY_COMPARE(runs.find(a)->name, QStringLiteral("my baseline"));
    // The live run has no remove button; the others do.
    QVERIFY(!table->cellWidget(0, 3));
    auto *remove = qobject_cast<QToolButton *>(table->cellWidget(1, 3));
    QVERIFY(remove);
    remove->click();
    QTRY_VERIFY(!runs.find(a));
    QCOMPARE(table->rowCount(), 2);
}

void TestRunList::pytorchGreyedOutWithTheReason()
{
    qputenv("LOADERLAB_PYTHON", "/nonexistent/python3-for-loaderlab-test");
    EngineChoice choice;
    QSignalSpy done(&choice, &EngineChoice::probeDone);
    auto *model = qobject_cast<QStandardItemModel *>(
        childNamed<QComboBox>(&choice, "engineCombo")->model());
    QVERIFY(!model->item(1)->isEnabled()); // greyed while it checks
    QVERIFY(done.wait(30'000));
    qunsetenv("LOADERLAB_PYTHON");
    QVERIFY(choice.probed());
    QVERIFY(!choice.pytorchAvailable());
    QVERIFY(!model->item(1)->isEnabled());
    const QString reason = choice.pytorchProblem();
    QVERIFY2(reason.contains(QStringLiteral("/nonexistent/python3-for-loaderlab-test")),
             qPrintable(reason));
    QCOMPARE(model->item(1)->toolTip(), reason);
    auto *note = choice.findChild<QLabel *>(QStringLiteral("engineNote"));
    QVERIFY(note && !note->isHidden());
    QVERIFY2(note->text().contains(reason), qPrintable(note->text()));
    // Not choosable from code either.
    childNamed<QComboBox>(&choice, "engineCombo")->setCurrentIndex(1);
    QCOMPARE(childNamed<QComboBox>(&choice, "engineCombo")->currentIndex(), 0);
    QVERIFY(!choice.pytorchChosen());
}

void TestRunList::pytorchChoosableWhereTorchImports()
{
    const std::string problem = pytorchEngineProblem(pytorchEnginePython());
    EngineChoice choice;
    QSignalSpy done(&choice, &EngineChoice::probeDone);
    QVERIFY(done.wait(60'000));
    auto *model = qobject_cast<QStandardItemModel *>(
        childNamed<QComboBox>(&choice, "engineCombo")->model());
    // Whatever this machine has, the choice says the same as the engine's own check.
    QCOMPARE(choice.pytorchProblem(), QString::fromStdString(problem));
    QCOMPARE(model->item(1)->isEnabled(), problem.empty());
    if (!problem.empty())
        QSKIP("no Python with torch and torchvision here");
    QSignalSpy chosen(&choice, &EngineChoice::pytorchChosenChanged);
    childNamed<QComboBox>(&choice, "engineCombo")->setCurrentIndex(1);
    QVERIFY(choice.pytorchChosen());
    QCOMPARE(chosen.count(), 1);
    QCOMPARE(chosen.at(0).at(0).toBool(), true);
}

LOADERLAB_TEST_MAIN(TestRunList)
#include "test_run_list.moc"
