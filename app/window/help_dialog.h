#pragma once

// HelpDialog: Help → Reading the plots. A short guide to what each live plot shows
// and what to look for (the period-W spikes, the first batch, input-bound against
// compute-bound, the pattern view), the mouse and the keys, and where the docs are.
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

private:
    static QString guideHtml(const QMenuBar *menus);
    // A table row per menu entry with a shortcut: its key and where it is.
    static QString shortcutRows(const QMenuBar *menus);
};

} // namespace loaderlab
