// `loaderlab lesson NAME`: a guided lesson headless, on the default dataset, an image
// folder or a tensor file (--path) or a pipeline file (--pipeline); a lesson that
// cannot run on the data given is refused, naming it. Prints what the lesson shows
// and what to look for, sets it up on the chosen data (a lesson whose verdict needs
// the loader to be the limit, or the step to hide it, measures the data and chooses
// its step, and says what it chose and why), runs its phases (applying each guided
// step itself, after printing what the lesson says before it: the model's
// prediction in predict-then-watch), prints each phase's figures and the verdict
// computed from the traces.

#include "app/cli/cli.h"
#include "app/cli/run_options.h"
#include "app/cli/run_support.h"

#include "core/config/config_fields.h"
#include "core/config/dataset_config.h"
#include "core/config/engine_config.h"
#include "core/lessons/lesson_runner.h"
#include "core/lessons/lesson_setup.h"
#include "core/loader/open_dataset.h"
#include "core/run/output_paths.h"
#include "core/system/atomic_file.h"
#include "core/system/logging.h"
#include "core/system/regular_file.h"
#include "core/system/safe_json.h"
#include "core/system/safe_text.h"

#include <QCommandLineParser>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

namespace loaderlab::cli {
namespace {

using loaderlab::escapeForTerminal;

void printList()
{
    for (const auto &lesson : loaderlab::lessons())
        std::printf("%-24s %s\n", lesson.name.c_str(), lesson.title.c_str());
}

void printPhase(const loaderlab::LessonPhaseResult &r)
{
    const auto &w = r.waits;
    const std::string epochs = w.epochs > 1 ? " in " + std::to_string(w.epochs) + " epochs" : "";
    std::printf("  %lld batches%s: first wait %.1f ms, then median %.2f ms, p95 %.2f ms, max %.1f "
                "ms; %s; %.0f samples/s\n",
                static_cast<long long>(w.batches), epochs.c_str(), w.firstMs, w.medianMs, w.p95Ms,
                w.laterMaxMs,
                w.period > 0 ? ("spikes every " + std::to_string(w.period) + " batches").c_str()
                             : "no regular spikes",
                r.summary.samplesPerSecMean);
    if (!r.error.empty())
        std::printf("  failed: %s\n", escapeForTerminal(r.error).c_str());
}

// The settings the user gave with --set, as the config holds them: the lesson keeps
// them over its preset and its set-up.
loaderlab::ConfigSettings userSettings(const QCommandLineParser &parser,
                                       const loaderlab::RunConfig &config)
{
    loaderlab::ConfigSettings settings;
    for (const QString &assignment : parser.values(QStringLiteral("set"))) {
        const std::string key = assignment.left(assignment.indexOf(QLatin1Char('='))).toStdString();
        settings.erase(std::remove_if(settings.begin(), settings.end(),
                                      [&key](const auto &s) { return s.first == key; }),
                       settings.end());
        settings.emplace_back(key, loaderlab::getConfigField(config, key));
    }
    return settings;
}

nlohmann::json setupJson(const loaderlab::LessonSetup &setup)
{
    nlohmann::json j = setup.figures;
    j["text"] = setup.text;
    if (!j.contains("need"))
        j["need"] = loaderlab::stepNeedName(setup.need);
    if (!j.contains("user_set")) {
        nlohmann::json user = nlohmann::json::object();
        for (const auto &[key, value] : setup.userSettings)
            user[key] = value;
        j["user_set"] = user;
    }
    return j;
}

nlohmann::json resultJson(const loaderlab::Lesson &lesson, loaderlab::EngineKind engine,
                          const loaderlab::LessonSetup &setup,
                          const std::vector<loaderlab::LessonPhaseResult> &phases,
                          const loaderlab::LessonVerdict &verdict)
{
    nlohmann::json list = nlohmann::json::array();
    for (const auto &p : phases) {
        const bool simulated = p.config.consumer.kind == loaderlab::ConsumerKind::Sleep;
        nlohmann::json phase = {{"label", p.label},
                                {"workers", p.config.loader.numWorkers},
                                {"batch_size", p.config.loader.batchSize},
                                {"step_ms", simulated ? p.config.consumer.sleepPerBatchMs : 0.0},
                                {"batches", p.waits.batches},
                                {"epochs", p.waits.epochs},
                                {"samples", p.waits.samples},
                                {"skipped", p.waits.skipped},
                                {"epoch_start_max_wait_ms", p.waits.epochStartMaxMs},
                                {"first_wait_ms", p.waits.firstMs},
                                {"median_wait_ms", p.waits.medianMs},
                                {"p95_wait_ms", p.waits.p95Ms},
                                {"period", p.waits.period},
                                {"samples_per_sec", p.summary.samplesPerSecMean},
                                {"error", p.error}};
        if (!p.briefing.text.empty())
            phase["briefing"] = {{"text", p.briefing.text}, {"figures", p.briefing.figures}};
        list.push_back(std::move(phase));
    }
    return {{"format", "loaderlab-lesson-1"},
            {"lesson", lesson.name},
            {"engine", loaderlab::engineKindName(engine)},
            {"title", lesson.title},
            {"observed", verdict.observed},
            {"applies", verdict.applies},
            {"verdict", verdict.text},
            {"figures", verdict.figures},
            {"setup", setupJson(setup)},
            {"phases", list}};
}

// Opens the lesson's data to refuse what cannot be read; a file that is no tensor
// file is told what --path takes.
void openLessonData(const loaderlab::DatasetConfig &dataset)
{
    try {
        loaderlab::openDataset(dataset);
    } catch (const loaderlab::DatasetError &e) {
        if (dataset.kind != loaderlab::DatasetKind::TensorFile)
            throw;
        throw loaderlab::DatasetError(std::string(e.what())
                                      + "; --path takes an image folder or a LoaderLab tensor "
                                        "file (loaderlab preprocess)");
    }
}

} // namespace

int lessonCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Runs a guided lesson headless and says whether its pattern showed.\n"
                       "loaderlab lesson --list names them."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("name"), QStringLiteral("the lesson"));
    parser.addOptions({
        {QStringLiteral("list"), QStringLiteral("list the lessons")},
        {QStringLiteral("path"),
         QStringLiteral("an image folder, or a LoaderLab tensor file (loaderlab preprocess), to "
                        "use instead of the default dataset"),
         QStringLiteral("path")},
        {QStringLiteral("pipeline"),
         QStringLiteral("your Python pipeline file instead of an image folder (on PyTorch's "
                        "DataLoader; docs/your-pipeline.md)"),
         QStringLiteral("file")},
        {QStringLiteral("set"),
         QStringLiteral("set a config field, e.g. --set dataset.args.size=64 (repeatable)"),
         QStringLiteral("key=value")},
        {QStringLiteral("json"), QStringLiteral("write the verdict and figures as JSON"),
         QStringLiteral("file")},
        {QStringLiteral("log-level"),
         QStringLiteral("trace, debug, info, warn (default), error, off"), QStringLiteral("level"),
         QStringLiteral("warn")},
    });
    // The engine the lesson runs on: LoaderLab's or PyTorch's DataLoader, judged alike.
    parser.addOption(configFieldOption(loaderlab::configField("engine")));
    if (const auto code = parseCommandLine(parser, arguments, "lesson"))
        return *code;
    if (rejectPositionals(parser, 1, "lesson"))
        return kUsage;
    if (parser.isSet(QStringLiteral("list"))) {
        printList();
        return kOk;
    }
    const std::string name = parser.positionalArguments().value(0).toStdString();
    const loaderlab::Lesson *lesson = loaderlab::findLesson(name);
    if (!lesson) {
        std::fprintf(stderr, "loaderlab lesson: %s: %s; the lessons are:\n",
                     name.empty() ? "which lesson?" : escapeForTerminal(name).c_str(),
                     name.empty() ? "give a name" : "no such lesson");
        for (const auto &l : loaderlab::lessons())
            std::fprintf(stderr, "  %s\n", l.name.c_str());
        return kUsage;
    }
    loaderlab::RunConfig base;
    loaderlab::ConfigSettings settings;
    std::string jsonPath;
    try {
        loaderlab::setupLogging(parser.value(QStringLiteral("log-level")).toStdString());
        if (parser.isSet(QStringLiteral("path")) && parser.isSet(QStringLiteral("pipeline")))
            throw std::invalid_argument("--path and --pipeline: give one dataset");
        if (parser.isSet(QStringLiteral("path"))) {
            base.dataset.path = pathFromArgument(parser.value(QStringLiteral("path")));
            base.dataset.kind = pathDatasetKind(base.dataset.path);
            if (base.dataset.kind == loaderlab::DatasetKind::Python)
                throw std::invalid_argument("--path " + base.dataset.path
                                            + ": a pipeline file: give it with --pipeline");
        }
        if (parser.isSet(QStringLiteral("pipeline"))) {
            base.dataset.kind = loaderlab::DatasetKind::Python;
            base.dataset.path = pathFromArgument(parser.value(QStringLiteral("pipeline")));
        }
        applySetOptions(parser, base);
        settings = userSettings(parser, base);
        if (!applyConfigFieldOption(parser, loaderlab::configField("engine"), base))
            base.engine = loaderlab::engineForDataset(base.dataset.kind, base.engine);
        if (const std::string why = loaderlab::lessonEngineProblem(*lesson, base); !why.empty())
            throw std::invalid_argument(std::string("--engine ")
                                        + loaderlab::engineKindName(base.engine) + ": " + why);
        jsonPath = pathFromArgument(parser.value(QStringLiteral("json")));
        loaderlab::checkOutputPaths({{"--json", jsonPath}}, {base.dataset.path});
        // A folder or file that cannot be a dataset (missing, empty, a file that is no
        // tensor file) is refused before the lesson starts, as `run` refuses it.
        // A pipeline file is Python's to open: whether it is a readable file.
        if (base.dataset.kind == loaderlab::DatasetKind::Python) {
            if (const std::string problem = loaderlab::regularFileProblem(base.dataset.path);
                !problem.empty())
                throw std::invalid_argument(base.dataset.path + ": " + problem);
        } else if (!base.dataset.path.empty()) {
            openLessonData(base.dataset);
        }
        // A lesson whose phases cannot run on the data given (its own synthetic data,
        // a comparison that needs the image folder) says so rather than ignore it.
        if (const std::string why = loaderlab::lessonDataProblem(*lesson, base); !why.empty())
            throw std::invalid_argument(why);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "loaderlab lesson: %s\n", escapeForTerminal(e.what()).c_str());
        return kUsage;
    }

    std::printf("%s\n\n%s\n\nLook for: %s\n\n", lesson->title.c_str(), lesson->explanation.c_str(),
                lesson->expected.c_str());
    std::fflush(stdout);
    const StopSignals handlers;
    SignalStop stop; // the work runs on this thread; a signal stops it
    std::vector<loaderlab::LessonPhaseResult> phases;
    loaderlab::LessonSetup setup;
    try {
        if (loaderlab::lessonMeasuresData(*lesson))
            std::fprintf(stderr, "measuring how fast the data loads, to set the lesson up\n");
        setup = loaderlab::setUpLesson(*lesson, base, settings, stop.token());
        if (!setup.text.empty())
            std::printf("Set-up: %s\n", escapeForTerminal(setup.text).c_str());
        std::fflush(stdout);
        phases = loaderlab::runLesson(
            *lesson, base, stop.token(),
            [&](const loaderlab::LessonProgress &p) {
                if (!p.note.empty()) {
                    std::fprintf(stderr, "%s\n", escapeForTerminal(p.note).c_str());
                } else if (!p.result) {
                    if (p.briefing)
                        std::printf("Before phase %zu: %s\n", p.phase + 1,
                                    p.briefing->text.c_str());
                    std::printf("Phase %zu/%zu: %s%s%s\n", p.phase + 1, lesson->phases.size(),
                                p.step->label.c_str(), p.step->instruction.empty() ? "" : " — ",
                                p.step->instruction.c_str());
                } else {
                    printPhase(*p.result);
                }
                std::fflush(stdout);
            },
            setup);
    } catch (const std::invalid_argument &e) {
        // Settings or a dataset refused before a phase started: usage or input.
        std::fprintf(stderr, "loaderlab lesson: %s\n", escapeForTerminal(e.what()).c_str());
        return kUsage;
    } catch (const loaderlab::DatasetError &e) {
        std::fprintf(stderr, "loaderlab lesson: %s\n", escapeForTerminal(e.what()).c_str());
        return kUsage;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "loaderlab lesson: %s\n", escapeForTerminal(e.what()).c_str());
        return kFailed;
    }
    if (const int signal = stop.signal(); signal != 0) {
        std::fprintf(stderr, "loaderlab lesson: stopped by signal %d\n", signal);
        return kInterruptedBase + signal;
    }
    const loaderlab::LessonVerdict verdict = loaderlab::lessonVerdictWithSetup(
        lesson->verdict(phases), setup);
    std::printf("\nVerdict: %s\n", verdict.text.c_str());
    if (!jsonPath.empty()) {
        try {
            const auto json = loaderlab::toSafeJson(
                resultJson(*lesson, base.engine, setup, phases, verdict));
            loaderlab::writeFileAtomically(jsonPath,
                                           [&](std::ostream &out) { out << json.dump(2) << '\n'; });
        } catch (const std::exception &e) {
            std::fprintf(stderr, "loaderlab lesson: %s\n", escapeForTerminal(e.what()).c_str());
            return kFailed;
        }
    }
    return kOk;
}

} // namespace loaderlab::cli
