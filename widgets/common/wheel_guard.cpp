#include "widgets/common/wheel_guard.h"

#include <QAbstractScrollArea>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QChildEvent>
#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QWheelEvent>
#include <QWidget>

namespace loaderlab {
namespace {

bool isValueControl(const QObject *object)
{
    return qobject_cast<const QAbstractSpinBox *>(object) || qobject_cast<const QComboBox *>(object)
           || (qobject_cast<const QAbstractSlider *>(object)
               && !object->inherits("QScrollBar")); // a scroll bar is for scrolling
}

} // namespace

WheelGuard::WheelGuard(QObject *parent)
    : QObject(parent)
{
}

void WheelGuard::install(QWidget *root)
{
    auto *guard = new WheelGuard(root);
    root->installEventFilter(guard); // children added later arrive as ChildAdded
    const QList<QWidget *> children = root->findChildren<QWidget *>();
    for (QWidget *child : children) {
        child->installEventFilter(guard);
        if (isValueControl(child))
            guard->guard(child);
    }
}

void WheelGuard::guard(QWidget *control)
{
    // The wheel no longer gives the focus (Qt::WheelFocus would).
    if (control->focusPolicy() == Qt::WheelFocus)
        control->setFocusPolicy(Qt::StrongFocus);
}

bool WheelGuard::eventFilter(QObject *watched, QEvent *event)
{
    // Widgets added later (a row of the arguments table, an item's editor): watched
    // from their start, guarded once constructed (polished before they are shown).
    if (event->type() == QEvent::ChildAdded) {
        static_cast<QChildEvent *>(event)->child()->installEventFilter(this);
        return false;
    }
    if (event->type() == QEvent::ChildPolished) {
        if (auto *child = qobject_cast<QWidget *>(static_cast<QChildEvent *>(event)->child());
            child && isValueControl(child))
            guard(child);
        return false;
    }
    if (event->type() != QEvent::Wheel || !isValueControl(watched))
        return false;
    auto *control = static_cast<QWidget *>(watched);
    if (control->hasFocus())
        return false;
    // Not for the control: the scroll area around it scrolls instead.
    for (QWidget *parent = control->parentWidget(); parent; parent = parent->parentWidget()) {
        auto *area = qobject_cast<QAbstractScrollArea *>(parent);
        if (!area)
            continue;
        const auto *wheel = static_cast<QWheelEvent *>(event);
        const QPointF at = area->viewport()->mapFromGlobal(wheel->globalPosition());
        QWheelEvent scroll(at, wheel->globalPosition(), wheel->pixelDelta(), wheel->angleDelta(),
                           wheel->buttons(), wheel->modifiers(), wheel->phase(), wheel->inverted(),
                           wheel->source());
        QCoreApplication::sendEvent(area->viewport(), &scroll);
        break;
    }
    return true;
}

} // namespace loaderlab
