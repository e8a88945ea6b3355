#pragma once

// HelpDialog: Help → Guide to the window (F1). A few screens on every part of the
// window: what each live plot shows and what to look for (the period-W spikes, the
// first batch, input-bound against compute-bound, the pattern view), markers and the
// Events list, the side column's tabs, Experiments, the Runs dock, following and
// exporting, the mouse and the keys, and links to the docs that open them.
// The keys are read from the window's menus, so the list names every shortcut the
// menus have and never one they lost. Not modal: it stays open beside the plots.

#include <QDialog>

class QMenuBar;

namespace loaderlab {

class HelpDialog : public QDialog
{
    Q_OBJECT

public:
    HelpDialog(const QMenuBar *menus, QWidget *parent = nullptr);

    // Shows the guide of `window` (raises the one already open).
    static void showGuide(QWidget *window, const QMenuBar *menus);

    // The docs folder, installed beside the binary or the source tree's; empty when
    // neither is there (the guide then names the files without links).
    static QString docsDirectory();

private:
    static QString guideHtml(const QMenuBar *menus);
    // A table row per menu entry with a shortcut: its key and where it is.
    static QString shortcutRows(const QMenuBar *menus);
};

} // namespace loaderlab
