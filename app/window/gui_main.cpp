#include "app/window/gui_main.h"

#include "app/window/auto_run.h"
#include "app/window/default_dataset_preparer.h"
#include "app/window/language.h"
#include "app/window/main_window.h"
#include "app/window/window_options.h"

#include "core/config/run_config_json.h"
#include "core/system/safe_text.h"

#include "widgets/session/run_session.h"
#include "widgets/settings/control_panel.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>

#include <cstdio>
#include <stdexcept>

namespace loaderlab {

namespace {

// What a new user sees: the generated JPEG folder, 2 workers, batch 32 and a 10 ms
// simulated step, so the spikes every 2 batches are visible at once.
loaderlab::RunConfig firstStartConfig()
{
    loaderlab::RunConfig config;
    config.dataset.kind = loaderlab::DatasetKind::ImageFolder;
    config.dataset.path = DefaultDatasetPreparer::defaultPath().toStdString();
    config.consumer.kind = loaderlab::ConsumerKind::Sleep;
    config.consumer.sleepPerBatchMs = 10.0;
    return config;
}

// The config the window starts with: --config, else the stored one, else the first
// start's. Returns false, having said why on stderr, when --config cannot be read.
bool applyStartConfig(MainWindow &window, const WindowOptions &options)
{
    const bool stored = QSettings().contains(QStringLiteral("run/config"));
    if (options.configFile) {
        try {
            window.applyConfig(loaderlab::loadRunConfig(options.configFile->toStdString()));
        } catch (const std::exception &e) {
            std::fprintf(stderr, "loaderlab: %s\n", loaderlab::escapeForTerminal(e.what()).c_str());
            return false;
        }
    } else if (!stored) {
        window.applyConfig(firstStartConfig());
    }
    return true;
}

// Whether the window's dataset is the default folder, not made yet.
bool needsDefaultDataset(const MainWindow &window)
{
    const loaderlab::RunConfig initial = window.controlPanel()->config();
    return initial.dataset.kind == loaderlab::DatasetKind::ImageFolder
           && QString::fromStdString(initial.dataset.path) == DefaultDatasetPreparer::defaultPath()
           && !DefaultDatasetPreparer::exists();
}

// Makes the default folder with progress in the status line (the side panel waits),
// then starts `autoRun`.
void prepareDefaultDataset(DefaultDatasetPreparer &preparer, MainWindow &window, AutoRun &autoRun)
{
    window.controlPanel()->setEnabled(false);
    QObject::connect(&preparer, &DefaultDatasetPreparer::progress, &window,
                     [&window](int done, int total) {
                         window.statusBar()->showMessage(
                             QCoreApplication::translate(
                                 "Gui", "Preparing the default dataset: %1 of %2 images…")
                                 .arg(done)
                                 .arg(total));
                     });
    QObject::connect(
        &preparer, &DefaultDatasetPreparer::ready, &window,
        [&window, &autoRun](const QString &path) {
            window.controlPanel()->setEnabled(true);
            window.statusBar()->showMessage(
                QCoreApplication::translate("Gui", "Default dataset ready: %1").arg(path), 5000);
            autoRun.start();
        });
    QObject::connect(&preparer, &DefaultDatasetPreparer::failed, &window,
                     [&window, &autoRun](const QString &error) {
                         window.controlPanel()->setEnabled(true);
                         window.controlPanel()->showDatasetError(error);
                         autoRun.datasetFailed();
                     });
    preparer.prepare();
}

} // namespace

int runGui(int argc, char **argv)
{
    // No nice value for the window thread: threads inherit it, so the engine's threads
    // (started from this thread) would be starved by any other busy process. The
    // window's share is kept small by RunSession's RefreshGovernor instead.
    QApplication app(argc, argv);
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/loaderlab.svg")));

    QCommandLineParser parser;
    addWindowOptions(parser);
    parser.process(app); // --help, --version, an unknown option: Qt prints and exits
    WindowOptions options;
    try {
        options = windowOptionsFrom(parser);
    } catch (const std::invalid_argument &e) {
        std::fprintf(stderr, "loaderlab: %s\n", e.what());
        return 2;
    }
    language::install(app, options.language ? *options.language : language::configured());

    MainWindow window;
    window.session()->setKeepBatches(options.keepBatches);
    if (!applyStartConfig(window, options))
        return 2;
    window.resize(options.width, options.height);
    window.showExperiments(options.experiments);
    window.show();
    if (options.limits && !options.automatic())
        window.showLimits(); // --view limits without --screenshot: opened, not measured

    AutoRun autoRun(window, options);
    DefaultDatasetPreparer preparer;
    if (needsDefaultDataset(window))
        prepareDefaultDataset(preparer, window, autoRun);
    else
        QTimer::singleShot(0, &autoRun, &AutoRun::start);

    const int code = QApplication::exec();
    return autoRun.exitCode() != 0 ? autoRun.exitCode() : code;
}

} // namespace loaderlab
