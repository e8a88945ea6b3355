// MainWindow's file side: configurations, exports, settings and language.

#include "app/main_window.h"

#include "app/language.h"

#include "core/config/run_config_json.h"
#include "core/io/summary_json.h"
#include "core/io/trace_csv.h"
#include "core/system/safe_json.h"

#include "widgets/control_panel.h"
#include "widgets/experiments_view.h"
#include "widgets/live_plot.h"
#include "widgets/run_session.h"

#include <QCloseEvent>
#include <QDir>
#include <QFileDialog>
#include <QMessageBox>
#include <QSettings>
#include <QSplitter>

#include <sstream>

using namespace loaderlab;

namespace {

const char *const kPlotFileNames[] = {"wait_time", "throughput", "worker_timeline",
                                      "wait_histogram"};

} // namespace

void MainWindow::openConfig()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open configuration"), QString(),
                                                      tr("LoaderLab configuration (*.json)"));
    if (path.isEmpty())
        return;
    try {
        applyConfig(loadRunConfig(path.toStdString(), m_controls->config()));
        report(tr("Loaded %1").arg(path));
    } catch (const std::exception &e) {
        QMessageBox::warning(this, tr("Open configuration"), QString::fromStdString(e.what()));
    }
}

void MainWindow::saveConfig()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Save configuration"),
                                                      QStringLiteral("loaderlab.json"),
                                                      tr("LoaderLab configuration (*.json)"));
    if (path.isEmpty())
        return;
    try {
        saveRunConfig(path.toStdString(), m_controls->config());
        report(tr("Saved %1").arg(path));
    } catch (const std::exception &e) {
        QMessageBox::warning(this, tr("Save configuration"), QString::fromStdString(e.what()));
    }
}

bool MainWindow::exportTraceCsv(const QString &path, QString *error)
{
    const auto trace = m_session->trace();
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

bool MainWindow::exportSummaryJson(const QString &path, QString *error)
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

bool MainWindow::exportPlots(const QString &dir, const QString &format, QString *error)
{
    for (std::size_t i = 0; i < m_plots.size(); ++i) {
        const QString path = QDir(dir).filePath(QLatin1String(kPlotFileNames[i]) + QLatin1Char('.')
                                                + format);
        if (!m_plots[i]->exportTo(path, 0, 0, error))
            return false;
    }
    return true;
}

void MainWindow::exportTraceDialog()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export trace"), QStringLiteral("trace.csv"), tr("CSV files (*.csv)"));
    QString error;
    if (!path.isEmpty() && !exportTraceCsv(path, &error))
        QMessageBox::warning(this, tr("Export trace"), error);
    else if (!path.isEmpty())
        report(tr("Wrote %1").arg(path));
}

void MainWindow::exportSummaryDialog()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export summary"), QStringLiteral("summary.json"), tr("JSON files (*.json)"));
    QString error;
    if (!path.isEmpty() && !exportSummaryJson(path, &error))
        QMessageBox::warning(this, tr("Export summary"), error);
    else if (!path.isEmpty())
        report(tr("Wrote %1").arg(path));
}

void MainWindow::exportPlotsDialog()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export plots into folder"));
    if (dir.isEmpty())
        return;
    QString error;
    for (const QString &format :
         {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf")}) {
        if (!exportPlots(dir, format, &error)) {
            QMessageBox::warning(this, tr("Export plots"), error);
            return;
        }
    }
    report(tr("Wrote the plots as PNG, SVG and PDF to %1").arg(dir));
}

void MainWindow::chooseLanguage(const QString &language)
{
    Language::setConfigured(language);
    QMessageBox::information(this, tr("Language"),
                             tr("The language changes when LoaderLab is started again."));
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About LoaderLab"),
                       tr("<h3>LoaderLab %1</h3><p>See and tune how data loading feeds a "
                          "deep-learning model: a real loader with PyTorch's DataLoader semantics, "
                          "live plots of every batch.</p>")
                           .arg(QCoreApplication::applicationVersion()));
}

void MainWindow::restoreSettings()
{
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    m_plotSplitter->restoreState(settings.value(QStringLiteral("window/plots")).toByteArray());
    const QString json = settings.value(QStringLiteral("run/config")).toString();
    if (json.isEmpty())
        return;
    try {
        std::istringstream in(json.toStdString());
        applyConfig(runConfigFromJson(parseConfigJson(in)));
    } catch (const std::exception &e) {
        // A stored config this version cannot read (an older key, a value out of the
        // current range) leaves the defaults in place; say so instead of hiding it.
        report(
            tr("The saved settings were not restored: %1").arg(QString::fromStdString(e.what())));
    }
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("window/plots"), m_plotSplitter->saveState());
    settings.setValue(QStringLiteral("run/config"),
                      QString::fromStdString(toSafeJson(toJson(m_controls->config())).dump()));
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    saveSettings();
    m_session->stop();
    m_experiments->stop(); // the destructor joins its thread
    event->accept();
}
