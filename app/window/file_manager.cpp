#include "app/window/file_manager.h"

#include "app/window/live_plot_area.h"
#include "app/window/report_pdf.h"
#include "app/window/run_follower.h"

#include "core/config/run_config_json.h"
#include "core/io/chrome_trace.h"
#include "core/io/html_report.h"
#include "core/io/rank_set.h"
#include "core/io/run_reader.h"
#include "core/io/summary_json.h"
#include "core/io/trace_csv.h"
#include "core/system/atomic_file.h"

#include "widgets/plots/plot_export.h"
#include "widgets/plots/plot_title.h"
#include "widgets/session/run_list.h"
#include "widgets/session/run_list_view.h"
#include "widgets/session/run_session.h"
#include "widgets/settings/control_panel.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QMessageBox>
#include <QWidget>

namespace loaderlab {

FileManager::FileManager(QWidget *window, RunSession *session, ControlPanel *controls,
                         LivePlotArea *plots)
    : QObject(window)
    , m_window(window)
    , m_session(session)
    , m_controls(controls)
    , m_plots(plots)
    , m_follower(new RunFollower(session, plots, this))
{
    connect(m_follower, &RunFollower::report, this, &FileManager::report);
}

void FileManager::openConfig()
{
    const QString path = QFileDialog::getOpenFileName(m_window, tr("Open configuration"), QString(),
                                                      tr("LoaderLab configuration (*.json)"));
    if (path.isEmpty())
        return;
    try {
        m_controls->setConfig(loadRunConfig(path.toStdString(), m_controls->config()));
        Q_EMIT report(tr("Loaded %1").arg(path));
    } catch (const std::exception &e) {
        QMessageBox::warning(m_window, tr("Open configuration"), QString::fromStdString(e.what()));
    }
}

void FileManager::saveConfig()
{
    const QString path = QFileDialog::getSaveFileName(m_window, tr("Save configuration"),
                                                      QStringLiteral("loaderlab.json"),
                                                      tr("LoaderLab configuration (*.json)"));
    if (path.isEmpty())
        return;
    try {
        saveRunConfig(path.toStdString(), m_controls->config());
        Q_EMIT report(tr("Saved %1").arg(path));
    } catch (const std::exception &e) {
        QMessageBox::warning(m_window, tr("Save configuration"), QString::fromStdString(e.what()));
    }
}

bool FileManager::exportTraceCsv(const QString &path, QString *error)
{
    return exportTraceCsv(path, RunList::kLiveId, error);
}

bool FileManager::exportTraceCsv(const QString &path, int runId, QString *error)
{
    const RunEntry *run = m_session->runs()->find(runId);
    const auto trace = runId == RunList::kLiveId ? m_session->trace() : run ? run->trace : nullptr;
    if (!trace) {
        *error = tr("There is no run to export.");
        return false;
    }
    try {
        saveTraceCsv(path.toStdString(), trace->records());
        return true;
    } catch (const std::exception &e) {
        *error = QString::fromStdString(e.what());
        return false;
    }
}

bool FileManager::exportFiguresCsv(const QString &path, QString *error)
{
    const QByteArray csv = RunListView::figuresCsv(*m_session->runs()).toUtf8();
    try {
        writeFileAtomically(path.toStdString(),
                            [&csv](std::ostream &out) { out.write(csv.data(), csv.size()); });
        return true;
    } catch (const std::exception &e) {
        *error = QString::fromStdString(e.what());
        return false;
    }
}

bool FileManager::exportSummaryJson(const QString &path, QString *error)
{
    const auto trace = m_session->trace();
    if (!trace) {
        *error = tr("There is no run to export.");
        return false;
    }
    const RunReport report = m_session->report();
    try {
        saveRunReport(path.toStdString(), report);
        return true;
    } catch (const std::exception &e) {
        *error = QString::fromStdString(e.what());
        return false;
    }
}

bool FileManager::exportChromeTrace(const QString &path, QString *error)
{
    const auto trace = m_session->trace();
    if (!trace) {
        *error = tr("There is no run to export.");
        return false;
    }
    try {
        const RunReport report = m_session->report();
        saveChromeTrace(path.toStdString(), report, trace->records(), trace->spans());
        return true;
    } catch (const std::exception &e) {
        // saveChromeTrace names the file and the reason.
        *error = QString::fromStdString(e.what());
        return false;
    }
}

bool FileManager::exportPlots(const QString &dir, const QString &format, QString *error)
{
    return exportPlots(dir, format, PlotExportOptions(), error);
}

bool FileManager::exportPlots(const QString &dir, const QString &format,
                              const PlotExportOptions &options, QString *error)
{
    return m_plots->exportPlots(dir, format, options, plotsTitle(), error);
}

QString FileManager::plotsTitle() const
{
    const RunList *runs = m_session->runs();
    std::vector<const RunEntry *> shown;
    if (m_session->trace() && runs->live().visible)
        shown.push_back(&runs->live());
    for (const RunEntry *overlay : runs->visibleOverlays())
        shown.push_back(overlay);
    if (shown.empty())
        return tr("No run · %1").arg(plottitle::exportDate());
    const RunEntry &first = *shown.front();
    // The live run's settings as they are now (a run may be reconfigured as it goes).
    const RunConfig config = first.live ? m_session->config() : first.config;
    QString title = tr("%1: %2; %3 · %4")
                        .arg(first.name, plottitle::dataset(config.dataset),
                             plottitle::settings(config), plottitle::exportDate());
    if (shown.size() > 1) {
        QStringList others;
        for (std::size_t i = 1; i < shown.size(); ++i)
            others << shown[i]->name;
        title += QLatin1Char('\n') + tr("Compared with: %1").arg(others.join(QStringLiteral("; ")));
    }
    return title;
}

void FileManager::exportTraceDialog()
{
    // Any shown run: the live one, or a kept, opened or followed one.
    std::vector<const RunEntry *> shown;
    for (const RunEntry &run : m_session->runs()->runs())
        if (run.trace && (run.visible || run.live))
            shown.push_back(&run);
    int runId = RunList::kLiveId;
    if (shown.size() > 1) {
        QStringList names;
        for (const RunEntry *run : shown) // numbered: two runs may share a name
            names << QStringLiteral("%1. %2").arg(names.size() + 1).arg(run->name);
        bool chosen = false;
        const QString name = QInputDialog::getItem(
            m_window, tr("Export trace"), tr("The run to export:"), names, 0, false, &chosen);
        if (!chosen)
            return;
        runId = shown[static_cast<std::size_t>(names.indexOf(name))]->id;
    }
    const QString path = QFileDialog::getSaveFileName(
        m_window, tr("Export trace"), QStringLiteral("trace.csv"), tr("CSV files (*.csv)"));
    QString error;
    if (!path.isEmpty() && !exportTraceCsv(path, runId, &error))
        QMessageBox::warning(m_window, tr("Export trace"), error);
    else if (!path.isEmpty())
        Q_EMIT report(tr("Wrote %1").arg(path));
}

bool FileManager::exportReport(const QString &path, QString *error)
{
    std::vector<ReportRun> runs;
    for (const RunEntry &run : m_session->runs()->runs()) {
        if (!run.trace || !run.visible)
            continue;
        RunReport report;
        if (run.live) {
            report = m_session->report();
        } else {
            report.config = run.config;
            report.summary = run.summary;
            report.markers = run.trace->markers();
            report.configVersions = run.trace->configVersions();
            report.skipped = run.trace->skipped();
        }
        runs.push_back({run.name.toStdString(), run.source.toStdString(), std::move(report),
                        run.trace, run.colour.name().toStdString()});
    }
    if (runs.empty()) {
        *error = tr("There is no run to export.");
        return false;
    }
    ReportOptions options;
    options.version = QCoreApplication::applicationVersion().toStdString();
    options.generatedAt = QDateTime::currentDateTimeUtc()
                              .toString(QStringLiteral("yyyy-MM-dd HH:mm 'UTC'"))
                              .toStdString();
    try {
        if (QFileInfo(path).suffix().compare(QLatin1String("pdf"), Qt::CaseInsensitive) == 0)
            return saveReportPdf(htmlReport(runs, options), QString::fromStdString(options.title),
                                 path, error);
        saveHtmlReport(path.toStdString(), runs, options);
        return true;
    } catch (const std::exception &e) {
        *error = QString::fromStdString(e.what());
        return false;
    }
}

void FileManager::exportReportDialog()
{
    const QString path = QFileDialog::getSaveFileName(m_window, tr("Export report"),
                                                      QStringLiteral("report.html"),
                                                      tr("HTML files (*.html);;PDF files (*.pdf)"));
    QString error;
    if (!path.isEmpty() && !exportReport(path, &error))
        QMessageBox::warning(m_window, tr("Export report"), error);
    else if (!path.isEmpty())
        Q_EMIT report(tr("Wrote %1").arg(path));
}

void FileManager::exportFiguresDialog()
{
    const QString path = QFileDialog::getSaveFileName(m_window, tr("Export figures table"),
                                                      QStringLiteral("figures.csv"),
                                                      tr("CSV files (*.csv)"));
    QString error;
    if (!path.isEmpty() && !exportFiguresCsv(path, &error))
        QMessageBox::warning(m_window, tr("Export figures table"), error);
    else if (!path.isEmpty())
        Q_EMIT report(tr("Wrote %1").arg(path));
}

void FileManager::exportSummaryDialog()
{
    const QString path = QFileDialog::getSaveFileName(
        m_window, tr("Export summary"), QStringLiteral("summary.json"), tr("JSON files (*.json)"));
    QString error;
    if (!path.isEmpty() && !exportSummaryJson(path, &error))
        QMessageBox::warning(m_window, tr("Export summary"), error);
    else if (!path.isEmpty())
        Q_EMIT report(tr("Wrote %1").arg(path));
}

void FileManager::exportChromeTraceDialog()
{
    const QString path = QFileDialog::getSaveFileName(m_window, tr("Export trace for Perfetto"),
                                                      QStringLiteral("trace.json"),
                                                      tr("Chrome JSON trace (*.json)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportChromeTrace(path, &error))
        QMessageBox::warning(m_window, tr("Export trace for Perfetto"), error);
    else
        Q_EMIT report(tr("Wrote %1 (open it in ui.perfetto.dev or chrome://tracing)").arg(path));
}

void FileManager::exportPlotsDialog()
{
    const QString written = exportPlotsWithDialog(
        m_window, QString(),
        [this](const QString &dir, const QString &format, const PlotExportOptions &options,
               QString *error) { return exportPlots(dir, format, options, error); });
    if (!written.isEmpty())
        Q_EMIT report(written);
}

bool FileManager::openRun(const QString &first, const QString &second, QString *error)
{
    // Either file may come first; a missing partner is the file beside it.
    QString csv = first;
    QString json = second;
    if (csv.endsWith(QLatin1String(".json"), Qt::CaseInsensitive))
        std::swap(csv, json);
    if (csv.isEmpty() && !json.isEmpty())
        csv = QString::fromStdString(traceCsvBeside(json.toStdString()));
    if (json.isEmpty() && !csv.isEmpty())
        json = QString::fromStdString(summaryJsonBeside(csv.toStdString()));
    // Any rank's file of a torch.distributed run opens the whole set (core/io/rank_set.h).
    const bool rankSet = rankFileName(first.toStdString())
                         && (second.isEmpty() || rankFileName(second.toStdString()));
    if (!rankSet && (csv.isEmpty() || json.isEmpty())) {
        const QString given = csv.isEmpty() ? json : csv;
        *error = csv.isEmpty()
                     ? tr("%1: no per-batch CSV of the same name beside it; choose both files.")
                           .arg(given)
                     : tr("%1: no summary JSON of the same name beside it; choose both files.")
                           .arg(given);
        return false;
    }
    OpenedRun run;
    try {
        run = rankSet ? openRankSet(first.toStdString())
                      : loaderlab::openRun(csv.toStdString(), json.toStdString());
    } catch (const std::exception &e) {
        *error = QString::fromStdString(e.what());
        return false;
    }
    m_session->addOpenedRun(run);
    Q_EMIT runOpened();
    // The opened run whole, unless a live run is being followed.
    if (!m_session->running())
        m_plots->showWholeRun();
    Q_EMIT report(
        tr("Opened %1 and %2")
            .arg(QString::fromStdString(run.csvPath), QString::fromStdString(run.jsonPath)));
    return true;
}

bool FileManager::followRun(const QString &path, QString *error)
{
    if (!m_follower->follow(path, error))
        return false;
    Q_EMIT runOpened();
    return true;
}

void FileManager::followRunDialog()
{
    const QString path = QFileDialog::getOpenFileName(
        m_window, tr("Follow run"), QString(),
        tr("A run being written: its per-batch CSV or summary JSON, or their .part while "
           "loaderlab run writes them (*.csv *.json *.csv.part *.json.part)"));
    QString error;
    if (!path.isEmpty() && !followRun(path, &error))
        QMessageBox::warning(m_window, tr("Follow run"), error);
}

void FileManager::openRunDialog()
{
    const QStringList files = QFileDialog::getOpenFileNames(
        m_window, tr("Open run"), QString(),
        tr("LoaderLab runs: per-batch CSV and summary JSON (*.csv *.json)"));
    if (files.isEmpty())
        return;
    if (files.size() > 2) {
        QMessageBox::warning(m_window, tr("Open run"),
                             tr("Choose one run: its CSV, its JSON, or both."));
        return;
    }
    QString error;
    if (!openRun(files.value(0), files.value(1), &error))
        QMessageBox::warning(m_window, tr("Open run"), error);
}

} // namespace loaderlab
