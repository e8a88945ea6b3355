#include "app/window/run_follower.h"

#include "app/window/live_plot_area.h"

#include "core/io/run_follow.h"

#include "widgets/session/run_list.h"
#include "widgets/session/run_session.h"

#include <cmath>
#include <limits>

namespace loaderlab {

namespace {

// How often the files are read: a batch shows within half a second, and a poll that
// finds nothing new costs a stat() and an open() per file.
constexpr int kPollMs = 500;

} // namespace

RunFollower::RunFollower(RunSession *session, LivePlotArea *plots, QObject *parent)
    : QObject(parent)
    , m_session(session)
    , m_plots(plots)
{
    m_timer.setInterval(kPollMs);
    connect(&m_timer, &QTimer::timeout, this, &RunFollower::poll);
    connect(m_session->runs(), &RunList::overlaysChanged, this, &RunFollower::onRunsChanged);
}

RunFollower::~RunFollower() = default;

bool RunFollower::follow(const QString &path, QString *error)
{
    std::unique_ptr<RunFollow> follow;
    try {
        follow = std::make_unique<RunFollow>(path.toStdString());
        follow->poll();
    } catch (const std::exception &e) {
        *error = QString::fromStdString(e.what());
        return false;
    }
    const OpenedRun run = follow->opened();
    Followed followed;
    followed.id = m_session->addOpenedRun(run);
    followed.name = m_session->runs()->find(followed.id)->name;
    followed.followingName = tr("%1 (following)").arg(followed.name);
    followed.source = follow->isRankSet() ? tr("%1 (%n rank(s))", nullptr, follow->ranks())
                                                .arg(QString::fromStdString(run.csvPath))
                                          : QString::fromStdString(run.csvPath);
    followed.follow = std::move(follow);
    m_runs.push_back(std::move(followed));
    Followed &added = m_runs.back();
    m_session->runs()->rename(added.id, added.followingName);
    Q_EMIT report(tr("Following %1").arg(added.source));
    if (!added.follow->running())
        end(m_runs.size() - 1, tr("%1 has ended already: all of it is shown.").arg(added.source));
    else if (!m_timer.isActive())
        m_timer.start();
    m_ranges.clear();
    showWholeRuns();
    return true;
}

std::vector<int> RunFollower::followed() const
{
    std::vector<int> ids;
    for (const Followed &f : m_runs)
        ids.push_back(f.id);
    return ids;
}

bool RunFollower::isFollowing(int id) const
{
    for (const Followed &f : m_runs)
        if (f.id == id)
            return true;
    return false;
}

void RunFollower::stopAll()
{
    m_timer.stop();
    m_runs.clear();
}

void RunFollower::poll()
{
    bool grew = false;
    for (std::size_t i = 0; i < m_runs.size();) {
        Followed &f = m_runs[i];
        try {
            const std::int64_t added = f.follow->poll();
            const bool ended = !f.follow->running();
            if (added == 0 && !ended) {
                ++i;
                continue;
            }
            const OpenedRun run = f.follow->opened();
            m_session->runs()->updateRun(f.id, run.report.summary);
            grew = true;
            if (!ended) {
                ++i;
                continue;
            }
            const QString batches = QString::number(run.trace->size());
            const QString state = QString::fromStdString(run.report.state);
            if (run.report.state == "failed")
                end(i, tr("Finished following %1: the run failed after %2 batches: %3")
                           .arg(f.source, batches, QString::fromStdString(run.report.error)));
            else
                end(i, tr("Finished following %1: the run ended (%2) after %3 batches.")
                           .arg(f.source, state, batches));
        } catch (const std::exception &e) {
            end(i, tr("Stopped following %1: %2 (what was read stays shown)")
                       .arg(f.source, QString::fromStdString(e.what())));
        }
    }
    if (grew)
        showWholeRuns();
}

void RunFollower::end(std::size_t i, const QString &message)
{
    const Followed f = std::move(m_runs[i]);
    m_runs.erase(m_runs.begin() + static_cast<std::ptrdiff_t>(i));
    if (m_runs.empty())
        m_timer.stop();
    const RunEntry *entry = m_session->runs()->find(f.id);
    if (entry && entry->name == f.followingName)
        m_session->runs()->rename(f.id, f.name);
    Q_EMIT report(message);
}

void RunFollower::onRunsChanged()
{
    // A followed run removed from the run list is no longer read.
    for (std::size_t i = 0; i < m_runs.size();) {
        if (m_session->runs()->find(m_runs[i].id))
            ++i;
        else
            m_runs.erase(m_runs.begin() + static_cast<std::ptrdiff_t>(i));
    }
    if (m_runs.empty())
        m_timer.stop();
}

void RunFollower::showWholeRuns()
{
    // A live run going on has the plots: they follow its newest batches.
    if (m_session->running())
        return;
    const auto &plots = m_plots->plots();
    constexpr double kUnset = std::numeric_limits<double>::quiet_NaN();
    m_ranges.resize(plots.size(), {kUnset, kUnset});
    for (std::size_t i = 0; i < plots.size(); ++i) {
        const QCPRange range = plots[i]->xAxis->range();
        auto &last = m_ranges[i];
        if (!std::isnan(last.first) && (range.lower != last.first || range.upper != last.second))
            continue; // zoomed or panned by the user since
        plots[i]->showWholeRun();
        last = {plots[i]->xAxis->range().lower, plots[i]->xAxis->range().upper};
    }
}

} // namespace loaderlab
