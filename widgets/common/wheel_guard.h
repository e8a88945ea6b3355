#pragma once

// WheelGuard: the mouse wheel over a value control (spin box, slider, combo box)
// that does not have the keyboard focus scrolls the panel around it instead of
// changing the value. A live run applies every change at once, so a wheel turned to
// scroll the settings must not retune the loader on its way. Click or tab into a
// control to give it the focus; then the wheel changes its value as usual.

#include <QObject>

class QWidget;

namespace loaderlab {

class WheelGuard : public QObject
{
    Q_OBJECT

public:
    // Guards the value controls under `root` now and those added to it later.
    static void install(QWidget *root);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    explicit WheelGuard(QObject *parent);
    void guard(QWidget *control);
};

} // namespace loaderlab
