#pragma once

// RunFollower: File → Follow run…. Runs read while another process writes them
// (loaderlab_probe.watch in a training script, a job on a server or a Slurm node
// writing to a shared file system; one run or a torch.distributed set of ranks:
// core/io/run_follow.h). Each is an opened run in the run list, named "… (following)",
// whose trace grows: a timer polls the files every 500 ms, appends the new batches,
// updates the run's figures and redraws it. When the run's JSON says it ended, the
// follow ends with the final figures and a message; a file that disappears or turns
// unreadable, or a writer on this machine gone without its final JSON (killed), ends
// it with the file and the reason, keeping what was shown. Removing
// the run from the run list, or stopAll() (the window closes), ends it silently.

#include <QObject>
#include <QString>
#include <QTimer>

#include <memory>
#include <vector>

namespace loaderlab {

class LivePlotArea;
class RunFollow;
class RunSession;

class RunFollower : public QObject
{
    Q_OBJECT

public:
    RunFollower(RunSession *session, LivePlotArea *plots, QObject *parent = nullptr);
    ~RunFollower() override;

    // Starts following the run `path` (its CSV or JSON, or any rank's of a set): adds
    // it to the run list with what the files hold now. False with the reason (naming
    // the file) and nothing changed.
    bool follow(const QString &path, QString *error);
    // Ids (in the run list) of the runs followed now.
    std::vector<int> followed() const;
    bool isFollowing(int id) const;
    // Ends every follow (the runs stay as they are) and stops the timer.
    void stopAll();
    int interval() const { return m_timer.interval(); }

Q_SIGNALS:
    void report(const QString &message);

private:
    struct Followed
    {
        int id = 0;
        std::unique_ptr<RunFollow> follow;
        QString name;          // the run's name without "(following)"
        QString followingName; // the name while followed
        QString source;        // for messages
    };

    void poll();
    // Ends the follow of m_runs[i]: its name loses "(following)" unless renamed.
    void end(std::size_t i, const QString &message);
    void onRunsChanged();
    // The plots show every batch of the followed runs, unless the user moved them.
    void showWholeRuns();

    RunSession *m_session;
    LivePlotArea *m_plots;
    std::vector<Followed> m_runs;
    QTimer m_timer;
    // Each plot's key range as last set here: a different one is the user's.
    std::vector<std::pair<double, double>> m_ranges;
};

} // namespace loaderlab
