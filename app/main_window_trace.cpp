// MainWindow's Perfetto export: the current run as a Chrome JSON trace, the file
// `loaderlab run --trace-json` writes (core/io/chrome_trace.h), written atomically.

#include "app/main_window.h"

#include "core/io/chrome_trace.h"

#include "widgets/run_session.h"

#include <QFileDialog>
#include <QMessageBox>

using namespace loaderlab;

bool MainWindow::exportChromeTrace(const QString &path, QString *error)
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

void MainWindow::exportChromeTraceDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export trace for Perfetto"),
                                                      QStringLiteral("trace.json"),
                                                      tr("Chrome JSON trace (*.json)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportChromeTrace(path, &error))
        QMessageBox::warning(this, tr("Export trace for Perfetto"), error);
    else
        report(tr("Wrote %1 (open it in ui.perfetto.dev or chrome://tracing)").arg(path));
}
