#pragma once

// Small helpers shared by the side panel's groups (ControlPanel, ModelPanel) and the
// run lists: named controls with tooltips, combo selection by data, compact rows and
// forms, the rule for when a typed path is applied, a run's colour swatch.

#include <QColor>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QIcon>
#include <QLineEdit>
#include <QPixmap>
#include <QString>
#include <QVariant>
#include <QWidget>

namespace loaderlab::formhelpers {

// A run's colour as a small square, for the rows that name a run.
inline QIcon colourSwatch(const QColor &colour)
{
    QPixmap pixmap(12, 12);
    pixmap.fill(colour);
    return QIcon(pixmap);
}

// Names the control (tests and settings find it by name) and gives it its tooltip.
template <typename Widget>
Widget *named(Widget *widget, const char *name, const QString &toolTip)
{
    widget->setObjectName(QString::fromLatin1(name));
    widget->setToolTip(toolTip);
    return widget;
}

// Selects the entry holding `data`; leaves the combo as it is when there is none.
inline void selectData(QComboBox *combo, const QVariant &data)
{
    const int index = combo->findData(data);
    if (index >= 0)
        combo->setCurrentIndex(index);
}

// Two controls side by side, the first one stretching.
inline QWidget *row(QWidget *first, QWidget *second)
{
    auto *widget = new QWidget;
    auto *layout = new QHBoxLayout(widget);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(first, 1);
    layout->addWidget(second);
    return widget;
}

// The form layout of a group: fields grow, rows never wrap.
inline QFormLayout *formFor(QWidget *group)
{
    auto *form = new QFormLayout(group);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setRowWrapPolicy(QFormLayout::DontWrapRows);
    return form;
}

// Whether a path edit's editingFinished should apply its text, updating
// `lastApplied` when it does. Return always re-applies (the file may have been fixed
// or replaced since); losing focus only applies a path that changed.
inline bool takePathToApply(const QLineEdit *edit, QString &lastApplied)
{
    const QString path = edit->text();
    if (path == lastApplied && !edit->hasFocus())
        return false;
    lastApplied = path;
    return true;
}

} // namespace loaderlab::formhelpers
