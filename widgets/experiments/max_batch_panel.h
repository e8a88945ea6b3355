#pragma once

// MaxBatchPanel: "Find max batch" in the Experiments view: the largest batch the side
// panel's model step fits in (core/torch/max_batch_finder.h, found with real steps on
// input of the dataset's sample shape), and the batch to use. The finder needs
// LibTorch, which widgets must not link: main() registers it (core/run/max_batch_hook.h)
// in builds with LibTorch; without it the button is disabled and says why. The search
// runs in the background (a BackgroundTask: it takes seconds to minutes); each attempt
// and the result come back on the GUI thread, Stop ends it between attempts (or during
// the model's build), and the destructor stops it without waiting.

#include "core/config/run_config.h"

#include <QGroupBox>

#include <functional>

class QLabel;
class QPushButton;

namespace loaderlab {

class BackgroundTask;

class MaxBatchPanel : public QGroupBox
{
    Q_OBJECT

public:
    explicit MaxBatchPanel(QWidget *parent = nullptr);

    // Where the model and the sample shape come from (the side panel's config).
    void setConfigSource(std::function<loaderlab::RunConfig()> source);
    // False with the reason when no finder is registered or a search runs.
    bool start(QString *error = nullptr);
    void stop();
    bool running() const { return m_running; }
    // The largest batch of the last search that ended; 0 when none fitted or none ran.
    std::int64_t largestFit() const { return m_largestFit; }
    std::int64_t suggested() const { return m_suggested; }

Q_SIGNALS:
    void finished();

private:
    void showAttempt(const QString &line);
    void onEnded(const QString &result, std::int64_t largest, std::int64_t suggested);
    void updateButtons();

    std::function<loaderlab::RunConfig()> m_source;
    QPushButton *m_find = nullptr;
    QPushButton *m_stop = nullptr;
    QLabel *m_progress = nullptr;
    QLabel *m_result = nullptr;
    bool m_available = false;
    bool m_running = false;
    std::int64_t m_largestFit = 0;
    std::int64_t m_suggested = 0;
    BackgroundTask *m_task = nullptr;
};

} // namespace loaderlab
