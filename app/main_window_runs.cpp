// MainWindow's run list side: runs kept and opened for comparison, drawn over the live
// one on every plot (widgets/run_list.h), and the engine choice.

#include "app/main_window.h"

#include "core/io/run_reader.h"

#include "widgets/engine_choice.h"
#include "widgets/live_plot.h"
#include "widgets/run_list_view.h"
#include "widgets/run_session.h"

#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>

using namespace loaderlab;

void MainWindow::buildRunViews()
{
    m_engineChoice = new EngineChoice;
    m_engineChoice->setObjectName(QStringLiteral("engineChoice"));
    m_runListView = new RunListView(m_session->runs());
    m_runListView->setObjectName(QStringLiteral("runListView"));
    // Below the plots: the figures table is wide, the plots want the width.
    m_runsDock = new QDockWidget(tr("Runs"), this);
    m_runsDock->setObjectName(QStringLiteral("runsDock"));
    m_runsDock->setWidget(m_runListView);
    m_runsDock->toggleViewAction()->setText(tr("&Runs and their figures"));
    addDockWidget(Qt::BottomDockWidgetArea, m_runsDock);
    // About five rows: the plots keep most of the height (a saved layout wins).
    resizeDocks({m_runsDock}, {5 * (fontMetrics().height() + 6)}, Qt::Vertical);
    connect(m_session->runs(), &RunList::overlaysChanged, this, &MainWindow::onRunsChanged);
}

void MainWindow::onRunsChanged()
{
    std::vector<PlotOverlay> overlays;
    for (const RunEntry *run : m_session->runs()->visibleOverlays())
        overlays.push_back({run->trace, run->workers, run->colour, run->name});
    const bool live = m_session->runs()->live().visible;
    for (LivePlot *plot : m_plots) {
        plot->setOverlays(overlays);
        plot->setLiveVisible(live);
    }
}

bool MainWindow::openRun(const QString &first, const QString &second, QString *error)
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
    if (csv.isEmpty() || json.isEmpty()) {
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
        run = loaderlab::openRun(csv.toStdString(), json.toStdString());
    } catch (const std::exception &e) {
        *error = QString::fromStdString(e.what());
        return false;
    }
    m_session->addOpenedRun(run);
    showExperiments(false);
    // The opened run whole, unless a live run is being followed.
    if (!m_session->running())
        for (LivePlot *plot : m_plots)
            plot->showWholeRun();
    report(tr("Opened %1 and %2").arg(csv, json));
    return true;
}

void MainWindow::openRunDialog()
{
    const QStringList files = QFileDialog::getOpenFileNames(
        this, tr("Open run"), QString(),
        tr("LoaderLab runs: per-batch CSV and summary JSON (*.csv *.json)"));
    if (files.isEmpty())
        return;
    if (files.size() > 2) {
        QMessageBox::warning(this, tr("Open run"),
                             tr("Choose one run: its CSV, its JSON, or both."));
        return;
    }
    QString error;
    if (!openRun(files.value(0), files.value(1), &error))
        QMessageBox::warning(this, tr("Open run"), error);
}

void MainWindow::keepRun()
{
    if (m_session->keepRun() < 0)
        report(tr("There is no run to keep yet."));
}
