#include "widgets/session/run_list.h"

#include "core/engine/engine.h"

#include <algorithm>
#include <array>

namespace loaderlab {

namespace {

// Okabe-Ito and three darker tones: told apart with the common colour-vision
// deficiencies, and none is the live run's blue, the rolling mean's vermillion or the
// timeline's computing green (a compared run's boxes are drawn in its colour).
const std::array<QColor, 6> kPalette = {QColor(230, 159, 0),  QColor(204, 121, 167),
                                        QColor(86, 180, 233), QColor(90, 90, 90),
                                        QColor(153, 102, 51), QColor(117, 112, 179)};

} // namespace

RunList::RunList(QObject *parent)
    : QObject(parent)
{
    RunEntry live;
    live.id = kLiveId;
    live.live = true;
    live.colour = liveColour();
    live.name = tr("live run");
    m_runs.push_back(live);
}

QColor RunList::liveColour()
{
    return {0, 114, 178};
}

QString RunList::nameFor(const RunConfig &config)
{
    return nameFor({}, config);
}

QString RunList::nameFor(const std::vector<ConfigVersion> &versions, const RunConfig &config)
{
    // From the first config version's loader to the last's; `config` alone without.
    const LoaderConfig &first = versions.size() < 2 ? config.loader
                                                    : versions.front().config.loader;
    const LoaderConfig &last = versions.size() < 2 ? config.loader : versions.back().config.loader;
    const auto fromTo = [](int a, int b) {
        return a == b ? QString::number(a) : QStringLiteral("%1 → %2").arg(a).arg(b);
    };
    QString name = first.numWorkers == 1 && last.numWorkers == 1
                       ? tr("1 worker, batch %1").arg(fromTo(first.batchSize, last.batchSize))
                       : tr("%1 workers, batch %2")
                             .arg(fromTo(first.numWorkers, last.numWorkers),
                                  fromTo(first.batchSize, last.batchSize));
    if (config.engine != RunConfig{}.engine)
        name += QStringLiteral(", ") + QString::fromUtf8(engineLabel(config.engine));
    return name;
}

QColor RunList::freeColour() const
{
    for (const QColor &colour : kPalette) {
        const bool used = std::any_of(m_runs.begin(), m_runs.end(),
                                      [&](const RunEntry &r) { return r.colour == colour; });
        if (!used)
            return colour;
    }
    // More runs than colours: cycle, the names still tell them apart.
    return kPalette[static_cast<std::size_t>(m_runs.size()) % kPalette.size()];
}

int RunList::add(RunEntry entry)
{
    entry.id = m_nextId++;
    entry.live = false;
    if (!entry.colour.isValid())
        entry.colour = freeColour();
    if (entry.name.isEmpty())
        entry.name = nameFor(entry.config);
    m_runs.push_back(std::move(entry));
    Q_EMIT overlaysChanged();
    return m_runs.back().id;
}

void RunList::remove(int id)
{
    if (id == kLiveId)
        return;
    const auto it = std::find_if(m_runs.begin(), m_runs.end(),
                                 [id](const RunEntry &r) { return r.id == id; });
    if (it == m_runs.end())
        return;
    m_runs.erase(it);
    Q_EMIT overlaysChanged();
}

void RunList::clearKept()
{
    if (m_runs.size() == 1)
        return;
    m_runs.resize(1);
    Q_EMIT overlaysChanged();
}

void RunList::setVisible(int id, bool visible)
{
    RunEntry *run = findMutable(id);
    if (!run || run->visible == visible)
        return;
    run->visible = visible;
    Q_EMIT overlaysChanged();
}

void RunList::rename(int id, const QString &name)
{
    RunEntry *run = findMutable(id);
    if (!run || run->name == name || name.trimmed().isEmpty())
        return;
    run->name = name.trimmed();
    // Legends carry the name.
    Q_EMIT overlaysChanged();
}

void RunList::updateRun(int id, const RunSummary &summary)
{
    RunEntry *run = findMutable(id);
    if (!run || run->live)
        return;
    run->summary = summary;
    Q_EMIT overlaysChanged();
}

void RunList::setLive(std::shared_ptr<const TraceLog> trace, const RunConfig &config, int workers)
{
    RunEntry &live = m_runs.front();
    live.trace = std::move(trace);
    live.config = config;
    live.workers = workers;
    live.summary = {};
    Q_EMIT labelsChanged();
}

void RunList::setLiveSummary(const RunSummary &summary)
{
    m_runs.front().summary = summary;
    Q_EMIT labelsChanged();
}

const RunEntry *RunList::newestOneRankRun() const
{
    for (auto it = m_runs.rbegin(); it != m_runs.rend(); ++it) {
        if (!it->live && it->config.devices == 1 && it->summary.ranks.empty()
            && it->summary.samplesPerSecMean > 0.0)
            return &*it;
    }
    return nullptr;
}

const RunEntry *RunList::find(int id) const
{
    const auto it = std::find_if(m_runs.begin(), m_runs.end(),
                                 [id](const RunEntry &r) { return r.id == id; });
    return it == m_runs.end() ? nullptr : &*it;
}

RunEntry *RunList::findMutable(int id)
{
    return const_cast<RunEntry *>(std::as_const(*this).find(id));
}

std::vector<const RunEntry *> RunList::visibleOverlays() const
{
    std::vector<const RunEntry *> out;
    for (const RunEntry &r : m_runs)
        if (!r.live && r.visible && r.trace)
            out.push_back(&r);
    return out;
}

} // namespace loaderlab
