#include "app/window/help_dialog.h"

#include <QDialogButtonBox>
#include <QMenu>
#include <QMenuBar>
#include <QTextBrowser>
#include <QVBoxLayout>

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
    setObjectName(QStringLiteral("readingThePlotsDialog"));
    setWindowTitle(tr("Reading the plots"));
    auto *text = new QTextBrowser;
    text->setObjectName(QStringLiteral("guideText"));
    text->setOpenLinks(false); // the docs are named, not linked: they live in the sources
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
    auto *dialog = window->findChild<HelpDialog *>(QStringLiteral("readingThePlotsDialog"),
                                                   Qt::FindDirectChildrenOnly);
    if (!dialog) {
        dialog = new HelpDialog(menus, window);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
    }
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
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
                 "on every plot in their colour; untick a run to hide it. Dashed vertical lines "
                 "are markers: a changed setting, a pause, a new epoch, an autotuner move.")
            + QStringLiteral("</p>");

    html += QStringLiteral("<h3>") + tr("Mouse and keys") + QStringLiteral("</h3><p>")
            + tr("Hover over a plot to read it: the batch, box, round, bin or position under "
                 "the mouse in every shown run. The mouse wheel zooms and dragging pans; both "
                 "stop following the newest data.")
            + QStringLiteral("</p><table cellspacing=\"4\">") + shortcutRows(menus)
            + QStringLiteral("</table>");

    html += QStringLiteral("<h3>") + tr("More") + QStringLiteral("</h3><p>")
            + tr("The documentation is in the docs folder of LoaderLab's source tree, also in "
                 "its repository online: docs/gui.md (this window), docs/metrics.md (what the "
                 "figures mean), docs/loader-semantics.md (how batches reach the workers) and "
                 "docs/lessons.md (guided experiments, the Lessons tab).")
            + QStringLiteral("</p>");
    return html;
}

} // namespace loaderlab
