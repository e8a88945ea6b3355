#include "app/window/help_dialog.h"

#include <QCoreApplication>
#include <QDesktopServices>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

#include <utility>

namespace loaderlab {

namespace {

// A menu entry's text as the user reads it: without the mnemonic's '&'.
QString plainText(const QAction *action)
{
    QString text = action->text();
    text.replace(QStringLiteral("&&"), QStringLiteral("\x01"));
    text.remove(QLatin1Char('&'));
    text.replace(QStringLiteral("\x01"), QStringLiteral("&"));
    return text.toHtmlEscaped();
}

} // namespace

HelpDialog::HelpDialog(const QMenuBar *menus, QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("guideDialog"));
    setWindowTitle(tr("Guide to the window"));
    auto *text = new QTextBrowser;
    text->setObjectName(QStringLiteral("guideText"));
    text->setOpenLinks(false); // the docs open in the desktop's viewer, not in here
    connect(text, &QTextBrowser::anchorClicked, this,
            [](const QUrl &url) { QDesktopServices::openUrl(url); });
    text->setHtml(guideHtml(menus));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(text);
    layout->addWidget(buttons);
    resize(680, 620);
}

void HelpDialog::showGuide(QWidget *window, const QMenuBar *menus)
{
    auto *dialog = window->findChild<HelpDialog *>(QStringLiteral("guideDialog"),
                                                   Qt::FindDirectChildrenOnly);
    if (!dialog) {
        dialog = new HelpDialog(menus, window);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
    }
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
}

QString HelpDialog::docsDirectory()
{
    // Installed: <prefix>/bin/loaderlab beside <prefix>/share/doc/loaderlab/docs. In a
    // build tree: the source tree's docs.
    const QStringList candidates = {
        QCoreApplication::applicationDirPath() + QStringLiteral("/../share/doc/loaderlab/docs"),
        QStringLiteral(LOADERLAB_SOURCE_DOCS_DIR),
    };
    for (const QString &dir : candidates) {
        if (QFileInfo::exists(dir + QStringLiteral("/gui.md")))
            return QDir(dir).canonicalPath();
    }
    return {};
}

QString HelpDialog::shortcutRows(const QMenuBar *menus)
{
    QString rows;
    for (const QAction *menuAction : menus->actions()) {
        const QMenu *menu = menuAction->menu();
        if (!menu)
            continue;
        for (const QAction *action : menu->actions()) {
            if (action->shortcut().isEmpty())
                continue;
            rows += QStringLiteral("<tr><td><b>%1</b></td><td>%2 → %3</td></tr>")
                        .arg(action->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped(),
                             plainText(menuAction), plainText(action));
        }
    }
    return rows;
}

QString HelpDialog::guideHtml(const QMenuBar *menus)
{
    QString html;
    html += QStringLiteral("<h3>") + tr("What the plots show") + QStringLiteral("</h3>");
    html += QStringLiteral("<p>")
            + tr("<b>Wait time per batch</b>: each dot is how long the model waited for one "
                 "batch's data, with its rolling mean and the model step beside it. With W "
                 "workers the waits often spike every W batches: each worker builds a whole "
                 "batch, the workers finish their batches at about the same time, so the model "
                 "waits for the first batch of each round and finds the others ready. The red "
                 "diamond is the first batch: the workers' start-up, not the steady state.")
            + QStringLiteral("</p><p>")
            + tr("<b>Input-bound or compute-bound</b>: waits above the model step mean the "
                 "model is starved for data (more workers, or cheaper loading, helps); waits near "
                 "zero under a longer step mean the loader keeps up and the model sets the pace. "
                 "The stats panel gives the input-bound share with one line of advice.")
            + QStringLiteral("</p><p>")
            + tr("<b>Wait pattern</b> (beside the wait plot): the same waits folded by the "
                 "batch's position in its round of W batches (W workers times devices), the last "
                 "200 rounds as faint dots (the newest on the right of each position), their "
                 "median as the bold line and their 90th percentile dashed. Each epoch is turned "
                 "so that its slowest position comes first where one stands out, because which "
                 "batch of the round waits can change from one epoch to the next. A spike every W "
                 "batches, a dense comb on the wait plot once hundreds of batches are in view, "
                 "stands here as one tall position 0; flat means every position waits alike. "
                 "Changing the workers starts the fold afresh; with 0 workers there is one "
                 "position.")
            + QStringLiteral("</p><p>")
            + tr("<b>Worker timeline</b>: a lane per worker, each batch a box in the lane of "
                 "the worker that loads it (coloured and numbered by batch); the consumer's lane "
                 "shows its waiting (lower half) and computing (upper half). Idle gaps in the "
                 "worker lanes under long consumer waits point at the loading, not the model. "
                 "With 0 workers the consumer loads every batch itself, on its own "
                 "\"consumer (loads)\" lane.")
            + QStringLiteral("</p><p>")
            + tr("<b>Throughput</b>: samples per second over each round of workers, with its "
                 "median. <b>Wait histogram</b>: how the waits spread, on a log scale; spikes "
                 "every W batches give two humps.")
            + QStringLiteral("</p><p>")
            + tr("Runs kept or opened for comparison (the Runs list under the plots) are drawn "
                 "on every plot in their colour; untick a run to hide it.")
            + QStringLiteral("</p>");

    html += QStringLiteral("<h3>") + tr("Markers and the Events list") + QStringLiteral("</h3><p>")
            + tr("Dark dashed vertical lines are events: a changed setting (\"Workers 4 → 2\"), "
                 "a pause or resume, an autotuner move, a lesson's phase. Where their labels "
                 "crowd, an event shows only its number, \"#4\", the number it has in the "
                 "<b>Events</b> list (the tab beside Runs, View → Events). Light dotted lines "
                 "are new epochs; crowded, they read \"e12\" for epoch 12, never a bare "
                 "number. Hover over a line for its full text; choose a row of the Events list "
                 "to centre every plot on it.")
            + QStringLiteral("</p>");

    html += QStringLiteral("<h3>") + tr("The side column") + QStringLiteral("</h3><p>")
            + tr("<b>Settings</b>: the engine (LoaderLab's loader, PyTorch's DataLoader or a "
                 "pipeline file), the dataset, and the loader's settings (workers, batch size, "
                 "prefetch, pinned memory, the model step or its simulated time). Start, Pause "
                 "and Stop are at its top; a changed setting applies to the running run at the "
                 "next batch and leaves a marker. The figures under the tabs (samples/s, waits, "
                 "input-bound share and one line of advice) cover the newest batches while the "
                 "run goes on.")
            + QStringLiteral("</p><p>")
            + tr("<b>Lessons</b>: guided experiments, each answering one question (why waits "
                 "spike every W batches, why the first batch is slow, what more workers or "
                 "devices buy): it runs its phases on the chosen data and ends with a verdict "
                 "from the measured trace.")
            + QStringLiteral("</p><p>")
            + tr("<b>What if</b>: the loader model calibrated on the run, predicting samples/s, "
                 "waits and the slowest rank for other workers, batch sizes, cores, devices and "
                 "nodes. Calibrate takes the current run's costs; each figure says what it "
                 "assumed.")
            + QStringLiteral("</p>");

    html += QStringLiteral("<h3>") + tr("Experiments") + QStringLiteral("</h3><p>")
            + tr("A sweep runs every combination of the axes you choose (workers, batch size, "
                 "prefetch, engine…) for a few seconds each, Repeats times, and shows the "
                 "samples/s as a heatmap and as lines against workers, with the best cell. "
                 "Predicted shows the model's figures for the same cells beside the measured "
                 "ones; choose a cell for its details or to open its run. The largest-batch "
                 "search finds the biggest batch the model step fits.")
            + QStringLiteral("</p>");

    html += QStringLiteral("<h3>") + tr("Runs, files and exports") + QStringLiteral("</h3><p>")
            + tr("<b>Runs</b> (under the plots): Run → Keep run copies the live run for "
                 "comparison; File → Open run adds a run written by <tt>loaderlab run --csv "
                 "--json</tt>; File → Follow run draws one that is still being written (its "
                 ".csv.part or .json.part while it runs) and moves on to the final files when it "
                 "ends. Tick a run to draw it, double-click its name to rename it. The figures "
                 "table beside the list compares the ticked runs.")
            + QStringLiteral("</p><p>")
            + tr("<b>File → Export</b>: the trace of any shown run as CSV (times from that "
                 "run's start), the figures table as CSV, the live run's summary as JSON or "
                 "its trace for Perfetto, and every plot as PNG, SVG or PDF. An export is "
                 "written whole or not at all: a failed one leaves the file that was there.")
            + QStringLiteral("</p><p>")
            + tr("<b>Run → Limits of this machine</b> measures, for the side panel's settings, "
                 "how many samples a second reading, decoding, the loader's hand-over, the step "
                 "and preprocessed tensors could give here, and draws them against the cores "
                 "loading with your runs as points. <b>Run → Start with loading made free</b> "
                 "replays the first batches once kept: the step's speed with a loader that "
                 "costs nothing, beside the speed while loading.")
            + QStringLiteral("</p>");

    html += QStringLiteral("<h3>") + tr("Mouse and keys") + QStringLiteral("</h3><p>")
            + tr("Hover over a plot to read it: the batch, box, round, bin or position under "
                 "the mouse in every shown run. The mouse wheel zooms and dragging pans; both "
                 "stop following the newest data.")
            + QStringLiteral("</p><table cellspacing=\"4\">") + shortcutRows(menus)
            + QStringLiteral("</table>");

    html += QStringLiteral("<h3>") + tr("More") + QStringLiteral("</h3><p>");
    const QString docs = docsDirectory();
    html += docs.isEmpty()
                ? tr("The documentation is in the docs folder of LoaderLab's source tree, and "
                     "installed with the package in /usr/share/doc/loaderlab/docs.")
                : tr("The documentation (installed with LoaderLab, opens in your Markdown "
                     "viewer or editor):");
    html += QStringLiteral("</p><ul>");
    const std::pair<const char *, QString> pages[] = {
        {"gui.md", tr("this window")},
        {"metrics.md", tr("what the figures mean")},
        {"loader-semantics.md", tr("how batches reach the workers")},
        {"lessons.md", tr("the Lessons")},
        {"experiments.md", tr("sweeps, the Experiments tab")},
        {"what-if.md", tr("the What if model")},
        {"data-parallel.md", tr("several devices and nodes")},
    };
    for (const auto &[file, what] : pages) {
        const QString name = QStringLiteral("docs/") + QLatin1String(file);
        const QString link = docs.isEmpty() ? name
                                            : QStringLiteral("<a href=\"%1\">%2</a>")
                                                  .arg(QUrl::fromLocalFile(docs + QLatin1Char('/')
                                                                           + QLatin1String(file))
                                                           .toString(QUrl::FullyEncoded),
                                                       name);
        html += QStringLiteral("<li>%1: %2</li>").arg(link, what.toHtmlEscaped());
    }
    html += QStringLiteral("</ul>");
    return html;
}

} // namespace loaderlab
