// loaderlab_bench_plots: can the live plots keep up with a long run? Fills a TraceLog
// with 1,000,000 synthetic batches (W = 4, a wait spike every 4 batches), puts the
// four plots in a 1280x800 window on the offscreen platform, and measures the first
// refresh (ingesting everything), full replots while following the newest data and
// zoomed out to all of it (median of 20), and the plots' memory per batch.
// Goal: a full replot of all four plots under 16 ms (one frame at 60 Hz).
// Usage: loaderlab_bench_plots [screenshot-dir]

#include "core/trace/trace_log.h"
#include "widgets/plots/throughput_plot.h"
#include "widgets/plots/timeline_plottable.h"
#include "widgets/plots/wait_histogram_plot.h"
#include "widgets/plots/wait_time_plot.h"
#include "widgets/plots/worker_timeline_plot.h"

#include "tests/support/widget_child.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QGridLayout>
#include <QWidget>

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>
#include <vector>

using namespace loaderlab;

namespace {

constexpr std::int64_t kBatches = 1'000'000;
constexpr int kWorkers = 4;
constexpr int kRepeats = 20;
constexpr int kBatchesPerRefresh = 100;
constexpr std::int64_t kMs = 1'000'000;

// Peak or current resident memory in bytes, from /proc/self/status.
std::int64_t procStatus(const char *field)
{
    QFile file(QStringLiteral("/proc/self/status"));
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray key = QByteArray(field) + ':';
    for (const QByteArray &line : file.readAll().split('\n')) {
        if (line.startsWith(key))
            return line.mid(key.size()).trimmed().split(' ').front().toLongLong() * 1024;
    }
    return 0;
}

// A consumer computing 2 ms per batch behind 4 workers that need 14 ms each: every
// 4th batch waits ~6 ms, the others are already there (a few microseconds).
void appendBatches(loaderlab::TraceLog &log, std::int64_t count)
{
    std::int64_t request = 500 * kMs; // worker start-up before the first request
    if (log.size() > 0)
        request = log[log.size() - 1].computeEndNs + 10'000;
    for (auto i = static_cast<std::int64_t>(log.size()); i < count; ++i) {
        loaderlab::TraceRecord r;
        r.index = i;
        r.worker = static_cast<std::int32_t>(i % kWorkers);
        r.samples = 64;
        r.requestNs = request;
        const std::int64_t wait = i == 0       ? 400 * kMs
                                  : i % 4 == 0 ? 6 * kMs + (i % 7) * 100'000
                                               : 5'000 + (i % 13) * 1'000;
        r.deliveryNs = request + wait;
        r.computeStartNs = r.deliveryNs + 20'000;
        r.computeEndNs = r.computeStartNs + 2 * kMs + (i % 5) * 50'000;
        loaderlab::WorkerSpan span;
        span.batch = i;
        span.worker = r.worker;
        span.endNs = std::max<std::int64_t>(r.deliveryNs - 10'000, 0);
        span.startNs = std::max<std::int64_t>(span.endNs - 14 * kMs, 0);
        log.appendSpan(span);
        log.append(r);
        request = r.computeEndNs + 10'000;
    }
}

double medianOf(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

double msSince(const QElapsedTimer &timer)
{
    return static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

// Replots every plot kRepeats times; prints the median per plot and of the sum.
void measureReplots(const char *title, const std::array<LivePlot *, 4> &plots,
                    const std::array<const char *, 4> &names)
{
    std::array<std::vector<double>, 4> perPlot;
    std::vector<double> total;
    for (int repeat = 0; repeat < kRepeats; ++repeat) {
        double sum = 0.0;
        for (std::size_t p = 0; p < plots.size(); ++p) {
            QElapsedTimer timer;
            timer.start();
            plots[p]->replot(QCustomPlot::rpImmediateRefresh);
            const double ms = msSince(timer);
            perPlot[p].push_back(ms);
            sum += ms;
        }
        total.push_back(sum);
    }
    std::printf("%s: all four plots %.2f ms (median of %d)\n", title, medianOf(total), kRepeats);
    for (std::size_t p = 0; p < plots.size(); ++p)
        std::printf("    %-16s %7.2f ms\n", names[p], medianOf(perPlot[p]));
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    // Optional: a directory to save screenshots of the window in.
    const QString screenshotDir = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QString();

    QElapsedTimer timer;
    timer.start();
    const auto trace = std::make_shared<loaderlab::TraceLog>();
    appendBatches(*trace, kBatches);
    std::printf("synthetic trace: %lld batches, W = %d, built in %.0f ms\n",
                static_cast<long long>(trace->size()), kWorkers, msSince(timer));

    QWidget window;
    window.resize(1280, 800);
    auto *layout = new QGridLayout(&window);
    auto *waits = new WaitTimePlot;
    auto *throughput = new ThroughputPlot;
    auto *timeline = new WorkerTimelinePlot;
    auto *histogram = new WaitHistogramPlot;
    layout->addWidget(waits, 0, 0);
    layout->addWidget(throughput, 0, 1);
    layout->addWidget(timeline, 1, 0);
    layout->addWidget(histogram, 1, 1);
    window.show();
    QApplication::processEvents();

    const std::array<LivePlot *, 4> plots{waits, throughput, timeline, histogram};
    const std::array<const char *, 4> names{"wait time", "throughput", "worker timeline",
                                            "wait histogram"};
    const std::int64_t peakBefore = procStatus("VmHWM");
    const std::int64_t rssBefore = procStatus("VmRSS");
    std::printf("first refresh (ingest %lld batches):\n", static_cast<long long>(kBatches));
    for (std::size_t p = 0; p < plots.size(); ++p) {
        plots[p]->setTrace(trace, kWorkers);
        timer.restart();
        plots[p]->refresh();
        std::printf("    %-16s %7.1f ms\n", names[p], msSince(timer));
    }
    QApplication::processEvents();
    const std::int64_t peakAfter = procStatus("VmHWM");
    const std::int64_t rssAfter = procStatus("VmRSS");
    std::printf("plot memory: peak RSS %+.1f MiB (%.1f bytes/batch), RSS %+.1f MiB "
                "(%.1f bytes/batch); the trace itself: %zu bytes/batch\n",
                static_cast<double>(peakAfter - peakBefore) / (1 << 20),
                static_cast<double>(peakAfter - peakBefore) / kBatches,
                static_cast<double>(rssAfter - rssBefore) / (1 << 20),
                static_cast<double>(rssAfter - rssBefore) / kBatches,
                sizeof(loaderlab::TraceRecord) + sizeof(loaderlab::WorkerSpan));

    measureReplots("full replot, following", plots, names);
    if (!screenshotDir.isEmpty())
        window.grab().save(screenshotDir + QStringLiteral("/plots_following.png"));

    // A live run: ~100 new batches per 30 Hz refresh on top of the million.
    std::vector<double> increments;
    for (int step = 0; step < kRepeats; ++step) {
        appendBatches(*trace, static_cast<std::int64_t>(trace->size()) + kBatchesPerRefresh);
        timer.restart();
        for (LivePlot *plot : plots)
            plot->refresh();
        increments.push_back(msSince(timer));
    }
    std::printf("refresh of all four plots with %d new batches: %.2f ms (median of %d)\n",
                kBatchesPerRefresh, medianOf(increments), kRepeats);

    for (LivePlot *plot : plots)
        plot->setFollowing(false);
    bool found = false;
    waits->xAxis->setRange(-0.5, static_cast<double>(trace->size()) - 0.5);
    throughput->xAxis->setRange(childNamed<QCPGraph>(throughput, "rateGraph")->getKeyRange(found));
    timeline->xAxis->setRange(
        childNamed<TimelinePlottable>(timeline, "timelineLanes")->getKeyRange(found));
    waits->yAxis->rescale();
    throughput->yAxis->rescale();
    measureReplots("full replot, zoomed out to all batches", plots, names);
    if (!screenshotDir.isEmpty())
        window.grab().save(screenshotDir + QStringLiteral("/plots_zoomed_out.png"));
    return 0;
}
