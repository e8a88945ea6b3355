#pragma once

// answerModal: hands the next modal dialog to `answer` once it is shown (polled every
// 20 ms); a dialog `answer` does not close within a few seconds is rejected, so the
// test fails instead of hanging. For tests that drive a window's dialogs.

#include <QApplication>
#include <QDialog>
#include <QTimer>

#include <functional>

inline void answerModal(const std::function<void(QDialog *)> &answer)
{
    auto *timer = new QTimer;
    timer->setInterval(20);
    QObject::connect(timer, &QTimer::timeout, timer, [timer, answer, tries = 0]() mutable {
        auto *dialog = qobject_cast<QDialog *>(QApplication::activeModalWidget());
        if (!dialog)
            return;
        if (++tries == 1)
            answer(dialog);
        if (dialog->isVisible() && tries < 250)
            return;
        if (dialog->isVisible())
            dialog->reject();
        timer->deleteLater();
    });
    timer->start();
}
