// `loaderlab report RUN.json [RUN2.json ...] --out report.html`: the one-file HTML
// report (core/io/html_report.h) of runs recorded with `run --csv --json`, written
// headless, the same page as the window's File → Export report.

#include "app/cli/cli.h"

#include "core/io/html_report.h"
#include "core/io/run_reader.h"
#include "core/system/safe_text.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>

#include <cstdio>
#include <filesystem>
#include <stdexcept>

namespace loaderlab::cli {

namespace {

// Whether `a` and `b` name one existing file.
bool sameFile(const std::string &a, const std::string &b)
{
    std::error_code ec;
    return std::filesystem::equivalent(a, b, ec) && !ec;
}

} // namespace

int reportCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Writes one self-contained HTML file (no script, no other file) of runs recorded with "
        "`loaderlab run --csv RUN.csv --json RUN.json`: the machine, the runs' figures side by "
        "side, the wait per batch, throughput and wait histogram of all of them as SVG, and for "
        "each run its verdict, settings, config versions, events and skipped samples. Give each "
        "run's JSON or CSV; the other file lies beside it with the same name."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("runs"),
                                 QStringLiteral("RUN.json or RUN.csv, one or more"),
                                 QStringLiteral("RUN.json [RUN2.json ...]"));
    parser.addOption(
        {QStringLiteral("out"), QStringLiteral("the HTML file to write"), QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("title"),
                      QStringLiteral("the report's title (default: LoaderLab report)"),
                      QStringLiteral("TEXT")});
    parser.addOption({QStringLiteral("plot-width"),
                      QStringLiteral("each plot's width in pixels, 400..4000 (default 960)"),
                      QStringLiteral("PX")});
    if (const auto code = parseCommandLine(parser, arguments, "report"))
        return *code;
    const QStringList inputs = parser.positionalArguments();
    if (inputs.isEmpty() || !parser.isSet(QStringLiteral("out"))) {
        std::fputs("loaderlab report: give one or more RUN.json files and --out FILE.html\n",
                   stderr);
        return kUsage;
    }
    ReportOptions options;
    try {
        if (parser.isSet(QStringLiteral("plot-width"))) {
            options.plotWidth = intOption(parser, "plot-width", 400, 4000);
            options.plotHeight = options.plotWidth / 3;
        }
    } catch (const std::invalid_argument &e) {
        std::fprintf(stderr, "loaderlab report: %s\n", e.what());
        return kUsage;
    }
    if (parser.isSet(QStringLiteral("title")))
        options.title = parser.value(QStringLiteral("title")).toStdString();
    options.version = QCoreApplication::applicationVersion().toStdString();
    options.generatedAt = QDateTime::currentDateTimeUtc()
                              .toString(QStringLiteral("yyyy-MM-dd HH:mm 'UTC'"))
                              .toStdString();
    const std::string out = pathFromArgument(parser.value(QStringLiteral("out")));
    if (QString::fromStdString(out).endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive)) {
        // The PDF is laid out by Qt's GUI text engine, which the command line (no
        // display) does not load.
        std::fputs("loaderlab report: --out writes HTML; the window's File → Export report "
                   "also writes a PDF, or print the HTML to PDF from a browser (e.g. "
                   "chromium --headless --print-to-pdf=report.pdf report.html)\n",
                   stderr);
        return kUsage;
    }

    std::vector<ReportRun> runs;
    for (const QString &input : inputs) {
        const std::string path = pathFromArgument(input);
        try {
            OpenedRun opened = openRunBeside(path);
            for (const std::string &file : {opened.csvPath, opened.jsonPath}) {
                if (sameFile(file, out)) {
                    std::fprintf(stderr,
                                 "loaderlab report: --out %s is the run's own file; choose "
                                 "another name\n",
                                 escapeForTerminal(out).c_str());
                    return kUsage;
                }
            }
            runs.push_back({reportRunName(opened.jsonPath, opened.report.config),
                            opened.jsonPath,
                            std::move(opened.report),
                            opened.trace,
                            {}});
        } catch (const std::exception &e) {
            std::fprintf(stderr, "loaderlab report: %s\n", escapeForTerminal(e.what()).c_str());
            return kUsage;
        }
    }
    try {
        saveHtmlReport(out, runs, options);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "loaderlab report: %s\n", escapeForTerminal(e.what()).c_str());
        return kFailed;
    }
    std::printf("wrote %s (%zu run%s)\n", escapeForTerminal(out).c_str(), runs.size(),
                runs.size() == 1 ? "" : "s");
    return kOk;
}

} // namespace loaderlab::cli
