#pragma once

// RunList: the runs the window shows together: the live run (always first) and any
// number of runs kept for comparison or opened from files (core/io/run_reader.h).
// Each has a colour, a name (derived from its config, editable) and a visibility
// switch; every plot draws every visible run in its colour, and the stats table puts
// their figures side by side.

#include "core/config/run_config.h"
#include "core/stats/run_summary.h"
#include "core/trace/trace_log.h"

#include <QColor>
#include <QObject>
#include <QString>

#include <memory>
#include <vector>

namespace loaderlab {

struct RunEntry
{
    int id = 0;
    QString name;
    QColor colour;
    bool visible = true;
    bool live = false;
    std::shared_ptr<const loaderlab::TraceLog> trace;
    loaderlab::RunSummary summary;
    loaderlab::RunConfig config;
    int workers = 0;
    QString source; // the CSV an opened run came from; empty otherwise
};

class RunList : public QObject
{
    Q_OBJECT

public:
    static constexpr int kLiveId = 0;

    explicit RunList(QObject *parent = nullptr);

    // Adds a kept or opened run; an invalid colour gets the first free one of the
    // palette, an empty name one made from the config. Returns its id.
    int add(RunEntry entry);
    void remove(int id);
    // Removes every run but the live one.
    void clearKept();
    void setVisible(int id, bool visible);
    void rename(int id, const QString &name);
    // A kept or opened run whose trace grew (a run followed while it is written,
    // app/window/run_follower.h): its new figures; the plots redraw it.
    void updateRun(int id, const loaderlab::RunSummary &summary);
    // The live run's trace, config and summary (a new run, or new figures).
    void setLive(std::shared_ptr<const loaderlab::TraceLog> trace,
                 const loaderlab::RunConfig &config, int workers);
    void setLiveSummary(const loaderlab::RunSummary &summary);

    const std::vector<RunEntry> &runs() const { return m_runs; }
    const RunEntry *find(int id) const;
    // The newest kept or opened run of one rank with a steady rate: what a
    // data-parallel run's scaling is figured against. None: nullptr.
    const RunEntry *newestOneRankRun() const;
    const RunEntry &live() const { return m_runs.front(); }
    // Kept and opened runs (not the live one) that are visible.
    std::vector<const RunEntry *> visibleOverlays() const;

    // "2 workers, batch 32" (+ ", PyTorch DataLoader" for a run of another engine than
    // the default).
    static QString nameFor(const loaderlab::RunConfig &config);
    // A run whose settings changed while it ran is named from its first to its last:
    // "2 → 4 workers, batch 32 → 64"; one of a single config version as above.
    static QString nameFor(const std::vector<loaderlab::ConfigVersion> &versions,
                           const loaderlab::RunConfig &config);
    // The live run's colour: the plots' own blue.
    static QColor liveColour();

Q_SIGNALS:
    // Runs added, removed, shown or hidden, recoloured: the plots redraw the overlays.
    void overlaysChanged();
    // A name or the live run's figures changed: only the tables update.
    void labelsChanged();

private:
    RunEntry *findMutable(int id);
    QColor freeColour() const;

    std::vector<RunEntry> m_runs;
    int m_nextId = kLiveId + 1;
};

} // namespace loaderlab
