#include "app/window/gui_main.h"

#include "app/window/default_dataset_preparer.h"
#include "app/window/language.h"
#include "app/window/main_window.h"

#include "core/config/run_config_json.h"
#include "core/system/safe_text.h"

#include "widgets/experiments/experiments_view.h"
#include "widgets/session/run_session.h"
#include "widgets/settings/control_panel.h"
#include "widgets/settings/engine_choice.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QSaveFile>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <functional>

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

bool saveScreenshot(QWidget &window, const QString &path)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || !window.grab().save(&file, "PNG") || !file.commit()) {
        std::fprintf(stderr, "loaderlab: cannot write %s: %s\n", qPrintable(path),
                     qPrintable(file.errorString()));
        return false;
    }
    return true;
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
    parser.setApplicationDescription(QStringLiteral("LoaderLab: see and tune data loading."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOptions({
        {QStringLiteral("config"), QStringLiteral("Start with this JSON configuration."),
         QStringLiteral("file")},
        {QStringLiteral("lang"), QStringLiteral("Language (en, de) for this session."),
         QStringLiteral("code")},
        {QStringLiteral("screenshot"), QStringLiteral("Run, save a PNG of the window, and quit."),
         QStringLiteral("file")},
        {QStringLiteral("seconds"),
         QStringLiteral("With --screenshot or --json: run this long (default 3)."),
         QStringLiteral("s"), QStringLiteral("3")},
        {QStringLiteral("json"), QStringLiteral("Run, write the summary as JSON, and quit."),
         QStringLiteral("file")},
        {QStringLiteral("size"),
         QStringLiteral("The window's size, WIDTHxHEIGHT (default 1400x900)."),
         QStringLiteral("WxH"), QStringLiteral("1400x900")},
        {QStringLiteral("view"),
         QStringLiteral("The tab shown: live (default) or experiments. With --screenshot and "
                        "experiments: run the sweep, save the window when it ends, and quit."),
         QStringLiteral("name"), QStringLiteral("live")},
        {QStringLiteral("sweep"),
         QStringLiteral("With --view experiments: open this sweep results folder and run the "
                        "cells it lacks (as Resume), instead of the view's default sweep."),
         QStringLiteral("dir")},
        {QStringLiteral("keep-batches"),
         QStringLiteral("Keep only the last N batches of a run in memory (0: all), as `run "
                        "--keep-batches` does; the figures still cover every batch (default "
                        "%1).")
             .arg(loaderlab::kDefaultKeepBatches),
         QStringLiteral("N"), QString::number(loaderlab::kDefaultKeepBatches)},
    });
    parser.process(app);

    // `loaderlab workers=4` or a misspelt command would otherwise open the window
    // as if nothing had been asked.
    if (const QStringList extra = parser.positionalArguments(); !extra.isEmpty()) {
        std::fprintf(stderr,
                     "loaderlab: '%s' is not a command (run, make-dataset, preprocess, info, "
                     "bench-model) nor a window option; see loaderlab --help\n",
                     qPrintable(extra.first()));
        return 2;
    }

    if (parser.isSet(QStringLiteral("lang"))
        && !language::isAvailable(parser.value(QStringLiteral("lang")))) {
        QStringList codes;
        for (const auto &[code, name] : language::available())
            codes << code;
        std::fprintf(stderr, "loaderlab: --lang %s: unknown language (available: %s)\n",
                     qPrintable(parser.value(QStringLiteral("lang"))),
                     qPrintable(codes.join(QStringLiteral(", "))));
        return 2;
    }
    const QString view = parser.value(QStringLiteral("view"));
    if (view != QLatin1String("live") && view != QLatin1String("experiments")) {
        std::fprintf(stderr, "loaderlab: --view %s: expected live or experiments\n",
                     qPrintable(view));
        return 2;
    }
    const bool experiments = view == QLatin1String("experiments");
    const QStringList size = parser.value(QStringLiteral("size")).split(QLatin1Char('x'));
    const int width = size.value(0).toInt();
    const int height = size.size() == 2 ? size.value(1).toInt() : 0;
    if (width < 200 || height < 200 || width > 10000 || height > 10000) {
        std::fprintf(stderr, "loaderlab: --size %s: expected WIDTHxHEIGHT, 200 to 10000 each\n",
                     qPrintable(parser.value(QStringLiteral("size"))));
        return 2;
    }
    bool keepIsNumber = false;
    const qlonglong keep = parser.value(QStringLiteral("keep-batches")).toLongLong(&keepIsNumber);
    const std::string keepError =
        keepIsNumber && keep >= 0
            ? loaderlab::keepBatchesError(keep)
            : "--keep-batches: expected an integer >= 0, got '"
                  + parser.value(QStringLiteral("keep-batches")).toStdString() + "'";
    if (!keepError.empty()) {
        std::fprintf(stderr, "loaderlab: %s\n", loaderlab::escapeForTerminal(keepError).c_str());
        return 2;
    }
    if (parser.isSet(QStringLiteral("sweep")) && !experiments) {
        std::fprintf(stderr, "loaderlab: --sweep DIR needs --view experiments\n");
        return 2;
    }
    language::install(app, parser.isSet(QStringLiteral("lang"))
                               ? parser.value(QStringLiteral("lang"))
                               : language::configured());

    MainWindow window;
    window.session()->setKeepBatches(static_cast<std::size_t>(keep));
    const bool stored = QSettings().contains(QStringLiteral("run/config"));
    if (parser.isSet(QStringLiteral("config"))) {
        try {
            window.applyConfig(
                loaderlab::loadRunConfig(parser.value(QStringLiteral("config")).toStdString()));
        } catch (const std::exception &e) {
            std::fprintf(stderr, "loaderlab: %s\n", loaderlab::escapeForTerminal(e.what()).c_str());
            return 2;
        }
    } else if (!stored) {
        window.applyConfig(firstStartConfig());
    }
    window.resize(width, height);
    window.showExperiments(experiments);
    window.show();

    const bool automatic = parser.isSet(QStringLiteral("screenshot"))
                           || parser.isSet(QStringLiteral("json"));
    const int seconds = std::max(1, parser.value(QStringLiteral("seconds")).toInt());
    int exitCode = 0;
    // Saves the screenshot (if asked) once the last refresh has painted, and quits.
    const auto finishAutomatic = [&] {
        QTimer::singleShot(200, &window, [&] {
            if (parser.isSet(QStringLiteral("screenshot"))
                && !saveScreenshot(window, parser.value(QStringLiteral("screenshot"))))
                exitCode = 1;
            QApplication::quit();
        });
    };
    const auto startSweep = [&] {
        ExperimentsView *sweeps = window.experimentsView();
        QString error;
        const bool started = parser.isSet(QStringLiteral("sweep"))
                                 ? sweeps->resume(parser.value(QStringLiteral("sweep")), &error)
                                 : sweeps->start(&error);
        if (!started) {
            std::fprintf(stderr, "loaderlab: %s\n", qPrintable(error));
            exitCode = 2;
            QApplication::quit();
            return;
        }
        QObject::connect(sweeps, &ExperimentsView::finished, &window, finishAutomatic);
    };
    // A config that asks for PyTorch's DataLoader runs on it, once the probe has
    // found Python with torch, or not at all (exit 2 with the reason).
    std::function<void()> startAutomatic;
    const auto engineReady = [&] {
        EngineChoice *engine = window.engineChoice();
        if (engine->choicePending()) {
            QObject::connect(engine, &EngineChoice::probeDone, &window, startAutomatic,
                             Qt::SingleShotConnection);
            return false;
        }
        if (!engine->unmetChoice().isEmpty()) {
            std::fprintf(stderr, "loaderlab: %s\n", qPrintable(engine->unmetChoice()));
            exitCode = 2;
            QApplication::quit();
            return false;
        }
        return true;
    };
    startAutomatic = [&] {
        if (!engineReady())
            return;
        if (experiments && parser.isSet(QStringLiteral("screenshot"))) {
            startSweep();
            return;
        }
        if (!window.startRun()) {
            // The window says why in its status bar; a script reads stderr.
            std::fprintf(stderr, "loaderlab: %s\n",
                         qPrintable(window.statusBar()->currentMessage()));
            exitCode = 2;
            QApplication::quit();
            return;
        }
        QTimer::singleShot(seconds * 1000, &window, [&] {
            window.session()->stop();
            if (parser.isSet(QStringLiteral("json"))) {
                QString error;
                if (!window.exportSummaryJson(parser.value(QStringLiteral("json")), &error)) {
                    std::fprintf(stderr, "loaderlab: %s\n", qPrintable(error));
                    exitCode = 1;
                }
            }
            finishAutomatic();
        });
    };

    DefaultDatasetPreparer preparer;
    const loaderlab::RunConfig initial = window.controlPanel()->config();
    const bool needsDefault = initial.dataset.kind == loaderlab::DatasetKind::ImageFolder
                              && QString::fromStdString(initial.dataset.path)
                                     == DefaultDatasetPreparer::defaultPath()
                              && !DefaultDatasetPreparer::exists();
    if (needsDefault) {
        window.controlPanel()->setEnabled(false);
        QObject::connect(&preparer, &DefaultDatasetPreparer::progress, &window,
                         [&](int done, int total) {
                             window.statusBar()->showMessage(
                                 QCoreApplication::translate(
                                     "Gui", "Preparing the default dataset: %1 of %2 images…")
                                     .arg(done)
                                     .arg(total));
                         });
        QObject::connect(
            &preparer, &DefaultDatasetPreparer::ready, &window, [&](const QString &path) {
                window.controlPanel()->setEnabled(true);
                window.statusBar()->showMessage(
                    QCoreApplication::translate("Gui", "Default dataset ready: %1").arg(path),
                    5000);
                if (automatic)
                    startAutomatic();
                else if (parser.isSet(QStringLiteral("sweep")))
                    startSweep();
            });
        QObject::connect(&preparer, &DefaultDatasetPreparer::failed, &window,
                         [&](const QString &error) {
                             window.controlPanel()->setEnabled(true);
                             window.controlPanel()->showDatasetError(error);
                             if (automatic) {
                                 exitCode = 2;
                                 QApplication::quit();
                             }
                         });
        preparer.prepare();
    } else if (automatic) {
        QTimer::singleShot(0, &window, startAutomatic);
    } else if (parser.isSet(QStringLiteral("sweep"))) {
        QTimer::singleShot(0, &window, startSweep);
    }

    const int code = QApplication::exec();
    return exitCode != 0 ? exitCode : code;
}

} // namespace loaderlab
