// The mouse wheel over the settings panel (the real ControlPanel, in a window small
// enough that its settings scroll): over a control without the keyboard focus it
// scrolls the settings and changes no value, so a live run is not retuned; over the
// control that has the focus it changes the value as before.

#include "widgets/settings/control_panel.h"

#include "tests/support/test_main.h"
#include "tests/support/widget_child.h"

#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QWheelEvent>
#include <QtTest>

using namespace loaderlab;

namespace {

// One notch of the wheel, turned away from the user (values up, the view up), over
// the middle of `widget`.
void turnWheel(QWidget *widget)
{
    const QPointF at(widget->width() / 2.0, widget->height() / 2.0);
    QWheelEvent event(at, widget->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(widget, &event);
}

// What a control shows, whatever its kind.
QString valueOf(QWidget *control)
{
    if (auto *spin = qobject_cast<QAbstractSpinBox *>(control))
        return spin->text();
    if (auto *slider = qobject_cast<QAbstractSlider *>(control))
        return QString::number(slider->value());
    return qobject_cast<QComboBox *>(control)->currentText();
}

} // namespace

class TestWheelGuard : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void theWheelScrollsPastUnfocusedControls();
    void theFocusedControlTakesTheWheel();
};

void TestWheelGuard::theWheelScrollsPastUnfocusedControls()
{
    ControlPanel panel;
    panel.resize(360, 420); // the settings do not fit: they scroll
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QScrollBar *scroll = childNamed<QScrollArea>(&panel, "settingsScroll")->verticalScrollBar();
    QVERIFY2(scroll->maximum() > 0, "the settings should not fit at this size");
    // Values in the middle of their ranges, so the wheel could move each of them.
    childNamed<QSpinBox>(&panel, "workersSpin")->setValue(2);
    childNamed<QSpinBox>(&panel, "batchSizeSpin")->setValue(64);
    childNamed<QSpinBox>(&panel, "prefetchSpin")->setValue(2);
    childNamed<QDoubleSpinBox>(&panel, "sleepBatchSpin")->setValue(20);
    for (const char *combo : {"strategyCombo", "datasetKindCombo", "transformCombo"})
        childNamed<QComboBox>(&panel, combo)->setCurrentIndex(1);
    QSignalSpy loaderChanged(&panel, &ControlPanel::loaderSettingsChanged);
    QSignalSpy datasetChanged(&panel, &ControlPanel::datasetSettingsChanged);

    const char *names[] = {"workersSpin",      "workersSlider", "batchSizeSpin",
                           "batchSizeSlider",  "prefetchSpin",  "sleepBatchSpin",
                           "sleepBatchSlider", "strategyCombo", "datasetKindCombo",
                           "transformCombo"};
    int scrolled = 0;
    for (const char *name : names) {
        QWidget *control = childNamed<QWidget>(&panel, name);
        QVERIFY2(!control->hasFocus(), name);
        const QString before = valueOf(control);
        scroll->setValue(scroll->maximum() / 2); // room to scroll up
        const int position = scroll->value();
        turnWheel(control);
        QCOMPARE(valueOf(control), before);
        QVERIFY2(!control->hasFocus(), name); // the wheel gives no focus either
        if (scroll->value() != position)
            ++scrolled;
    }
    QCOMPARE(loaderChanged.count(), 0);
    QCOMPARE(datasetChanged.count(), 0);
    QVERIFY2(scrolled > 0, "the wheel over the controls should scroll the settings");
}

void TestWheelGuard::theFocusedControlTakesTheWheel()
{
    ControlPanel panel;
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QApplication::setActiveWindow(&panel);
    auto *spin = childNamed<QDoubleSpinBox>(&panel, "sleepBatchSpin");
    spin->setFocus();
    QTRY_VERIFY(spin->hasFocus());
    const double before = spin->value();
    turnWheel(spin);
    QVERIFY2(spin->value() != before, "a focused spin box takes the wheel");
}

LOADERLAB_TEST_MAIN(TestWheelGuard)
#include "test_wheel_guard.moc"
