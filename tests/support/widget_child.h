#pragma once

// childNamed<T>(parent, "name"): the widget (or plot item) a test inspects, found the
// way a user's tools see it, by its objectName, instead of an accessor the product
// would carry for tests alone. A missing child ends the test with its type and name.

#include <QObject>
#include <QString>
#include <QtGlobal>

template <class T>
T *childNamed(const QObject *parent, const char *name)
{
    T *child = parent->findChild<T *>(QString::fromLatin1(name));
    if (!child)
        qFatal("no %s named '%s' under %s", T::staticMetaObject.className(), name,
               parent->metaObject()->className());
    return child;
}
