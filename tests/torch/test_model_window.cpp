// The window with a real LibTorch model as the step: the model panel starts and
// reconfigures a running resnet18, the stats show step time beside wait time and the
// step's peak memory, and a broken TorchScript file is reported by name while the run
// goes on with the previous step. The Experiments tab's "Find max batch" runs the
// finder main() registers on the side panel's model, shows each attempt, and stops.

#include "../app/window_test_support.h"
#include "app/window/main_window.h"

#include "core/config/marker_text.h"
#include "core/consumer/model_consumer_factory.h"
#include "core/memory/max_batch_search.h"
#include "core/run/max_batch_hook.h"
#include "core/torch/torch_consumer_registration.h"
#include "widgets/experiments/experiments_view.h"
#include "widgets/experiments/max_batch_panel.h"
#include "widgets/lessons/lesson_panel.h"
#include "widgets/session/run_session.h"
#include "widgets/settings/control_panel.h"
#include "widgets/settings/model_panel.h"

#include "tests/support/test_main.h"
#include "tests/support/widget_child.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QtTest>

using namespace loaderlab;

namespace {

bool hasMarker(const TraceLog &trace, const std::string &text)
{
    for (const auto &marker : trace.markers()) {
        if (markerText(marker).find(text) != std::string::npos)
            return true;
    }
    return false;
}

} // namespace

class TestModelWindow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void modelPanelDrivesARealModel();
    void findMaxBatchShowsAttemptsAndStops();
    void moreDevicesLessonRunsEachRankCount();

private:
    QTemporaryDir m_dir;
};

void TestModelWindow::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("LoaderLabTests"));
    registerTorchConsumer(); // what main() does in a build with LibTorch
}

void TestModelWindow::modelPanelDrivesARealModel()
{
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    ModelPanel *panel = window.controlPanel()->modelPanel();
    QVERIFY(panel->isEnabled());

    // The device list tells the truth about this machine.
    auto *device = childNamed<QComboBox>(panel, "deviceCombo");
    const ModelCapabilities capabilities = modelCapabilities();
    if (!capabilities.cudaAvailable) {
        const int cuda = device->findData(QStringLiteral("cuda"));
        QVERIFY(cuda > 0);
        QVERIFY(!(device->model()->flags(device->model()->index(cuda, 0)) & Qt::ItemIsEnabled));
        QVERIFY(!capabilities.cudaUnavailableReason.empty());
        QVERIFY(device->itemData(cuda, Qt::ToolTipRole)
                    .toString()
                    .contains(QString::fromStdString(capabilities.cudaUnavailableReason)));
    } else {
        QCOMPARE(device->count(), 1 + capabilities.cudaDevices);
    }

    RunConfig config;
    config.dataset.syntheticShape = {3, 32, 32};
    config.dataset.syntheticSamples = 512;
    config.loader.numWorkers = 1;
    config.loader.batchSize = 4;
    config.consumer.kind = ConsumerKind::Model;
    config.consumer.model.name = "resnet18";
    config.consumer.model.threads = 1;
    config.consumer.model.numClasses = 10;
    window.applyConfig(config);
    QVERIFY(panel->isChecked());
    QVERIFY(window.startRun());
    RunSession *session = window.session();
    QTRY_VERIFY_WITH_TIMEOUT(session->trace()->size() >= 8, 60'000);
    QCOMPARE(session->state(), RunState::Running);
    for (const TraceRecord &r : session->trace()->records(0, 8))
        QVERIFY2(r.computeNs() > 0 && r.computeStartNs >= r.deliveryNs, "a real step per batch");

    // Step time beside wait time, and the step's peak memory.
    auto *perBatch = childNamed<QLabel>(&window, "computeLabel");
    auto *peak = childNamed<QLabel>(&window, "peakMemoryLabel");
    QTRY_VERIFY_WITH_TIMEOUT(peak->text().endsWith(QStringLiteral("MiB")), 10'000);
    QVERIFY2(perBatch->text().contains(QStringLiteral("step"))
                 && perBatch->text().contains(QStringLiteral("wait")),
             qPrintable(perBatch->text()));

    // A training step, chosen in the panel, reaches the running engine.
    auto *mode = childNamed<QComboBox>(panel, "modeCombo");
    mode->setCurrentIndex(mode->findData(QVariant::fromValue(ModelMode::Train)));
    QTRY_VERIFY_WITH_TIMEOUT(session->config().consumer.model.mode == ModelMode::Train, 30'000);
    QTRY_VERIFY_WITH_TIMEOUT(hasMarker(*session->trace(), "mode inference -> train"), 10'000);

    // A file that is not a TorchScript module: named in the panel, the run goes on
    // training resnet18.
    const QString broken = m_dir.filePath(QStringLiteral("broken.pt"));
    {
        QFile file(broken);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("this is not a TorchScript archive\n");
    }
    auto *model = childNamed<QComboBox>(panel, "modelCombo");
    model->setCurrentIndex(model->count() - 1); // "TorchScript file…"
    auto *path = childNamed<QLineEdit>(panel, "scriptPathEdit");
    QVERIFY(path->isEnabled());
    path->setText(broken);
    QTest::keyClick(path, Qt::Key_Return);
    auto *error = childNamed<QLabel>(panel, "modelErrorLabel");
    QTRY_VERIFY_WITH_TIMEOUT(!error->isHidden(), 30'000);
    QVERIFY2(error->text().contains(broken)
                 && error->text().contains(QStringLiteral("TorchScript")),
             qPrintable(error->text()));
    const std::size_t before = session->trace()->size();
    QTRY_VERIFY_WITH_TIMEOUT(session->trace()->size() >= before + 3, 30'000);
    QCOMPARE(session->state(), RunState::Running);
    QVERIFY(session->config().consumer.model.scriptPath.empty());
    QCOMPARE(session->config().consumer.model.mode, ModelMode::Train);

    session->stop();
    QCOMPARE(session->state(), RunState::Stopped);
    QCOMPARE(session->engine().liveThreads(), 0);
}

void TestModelWindow::findMaxBatchShowsAttemptsAndStops()
{
    setMaxBatchFinderHook(&torchmodels::findMaxBatch); // what main() does with LibTorch
    MainWindow window;
    RunConfig config;
    config.dataset.syntheticShape = {3, 64, 64};
    config.consumer.kind = ConsumerKind::Model;
    config.consumer.model.name = "resnet18";
    config.consumer.model.threads = 1;
    config.consumer.model.numClasses = 10;
    config.memoryBudgetMb = 2048; // bounds the search should the stop not work
    window.applyConfig(config);
    window.showExperiments(true);
    MaxBatchPanel *panel = childNamed<MaxBatchPanel>(&window, "maxBatchPanel");
    auto *find = childNamed<QPushButton>(panel, "findMaxBatchButton");
    QVERIFY(find->isEnabled());
    QTest::mouseClick(find, Qt::LeftButton);
    QVERIFY(panel->running());
    QVERIFY(!find->isEnabled());

    // Attempts come back while the search goes on; Stop ends it between two of them.
    auto *progress = childNamed<QLabel>(panel, "maxBatchProgress");
    QTRY_VERIFY_WITH_TIMEOUT(progress->text().contains(QStringLiteral(": fits (peak ")), 60'000);
    childNamed<QPushButton>(panel, "stopMaxBatchButton")->click();
    QTRY_VERIFY_WITH_TIMEOUT(!panel->running(), 30'000);
    QVERIFY(find->isEnabled());
    QVERIFY2(panel->largestFit() >= 1,
             qPrintable(childNamed<QLabel>(panel, "maxBatchResult")->text()));
    QCOMPARE(panel->suggested(), suggestedBatch(panel->largestFit()));
    const QString result = childNamed<QLabel>(panel, "maxBatchResult")->text();
    QVERIFY2(result.contains(QStringLiteral("Largest batch that fits: %1").arg(panel->largestFit()))
                 && result.contains(QStringLiteral("stopped before the search ended"))
                 && result.contains(QStringLiteral("Suggested: %1").arg(panel->suggested()))
                 && result.contains(QStringLiteral("resnet18")),
             qPrintable(result));
    setMaxBatchFinderHook({});
}

// The lesson whose steps change the ranks: each step starts a new run with the
// phase's ranks (they are fixed for a run), its ranks exchange a real gradient, and
// the verdict names the speedups and the ranks' time.
void TestModelWindow::moreDevicesLessonRunsEachRankCount()
{
    MainWindow window;
    window.show();
    LessonPanel *panel = window.lessonPanel();
    QVERIFY(panel->chooseLesson(QStringLiteral("more-devices")));
    childNamed<QPushButton>(panel, "startLessonButton")->click();
    for (const int devices : {2, 4}) {
        QTRY_COMPARE_WITH_TIMEOUT(panel->tracker().state(), LessonTracker::State::WaitingForStep,
                                  60'000);
        const auto before = window.session()->trace();
        childNamed<QPushButton>(panel, "applyStepButton")->click();
        QTRY_VERIFY_WITH_TIMEOUT(window.session()->trace() != before, 30'000);
        QCOMPARE(window.session()->config().devices, devices);
        QCOMPARE(window.session()->config().gradientMb, 46.8);
    }
    QTRY_COMPARE_WITH_TIMEOUT(panel->tracker().state(), LessonTracker::State::Done, 60'000);
    const QString shown = panel->verdictText();
    QVERIFY2(shown.contains(QStringLiteral("2 ranks "))
                 && shown.contains(QStringLiteral("4 ranks "))
                 && shown.contains(QStringLiteral("of its time exchanging the gradient")),
             qPrintable(shown));
    window.session()->stop();
    QTRY_VERIFY(window.session()->finished());
}

LOADERLAB_TEST_MAIN(TestModelWindow)
#include "test_model_window.moc"
