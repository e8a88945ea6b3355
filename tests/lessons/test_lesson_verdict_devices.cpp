// The verdict of "More devices, less than linear" on known phases: the speedups and
// efficiencies over one rank, where the last rank count's time went, and "not seen"
// when scaling was near linear or the first phase is not one rank.

#include "core/lessons/lesson.h"
#include "tests/support/test_main.h"

#include <QtTest>

using namespace loaderlab;

namespace {

// A phase of `devices` ranks at `samplesPerSec` in batches of 32, each rank spending
// `data`, `straggler` and `exchange` of its time so and the rest stepping; one rank
// only steps.
LessonPhaseResult ranks(int devices, double samplesPerSec, double data = 0.0,
                        double straggler = 0.0, double exchange = 0.0)
{
    LessonPhaseResult p;
    p.label = std::to_string(devices) + " ranks";
    p.config.devices = devices;
    p.summary.samplesPerSecMean = samplesPerSec;
    p.summary.batches = 60;
    p.summary.samples = 60 * 32;
    p.waits.batches = 60;
    p.waits.samples = 60 * 32;
    const double batchMs = devices * 32.0 / samplesPerSec * 1e3; // a rank's batch
    p.summary.computeMeanMs = (1.0 - data - straggler - exchange) * batchMs;
    if (devices > 1) {
        for (int r = 0; r < devices; ++r) {
            RankSummary s;
            s.rank = r;
            s.samplesPerSecMean = samplesPerSec / devices;
            s.inputBoundShare = data;
            s.syncWaitShare = straggler;
            s.exchangeShare = exchange;
            s.waitMeanMs = data * batchMs;
            s.syncWaitMeanMs = straggler * batchMs;
            s.exchangeMeanMs = exchange * batchMs;
            p.summary.ranks.push_back(s);
        }
    }
    return p;
}

} // namespace

class TestLessonVerdictDevices : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void lessThanLinearIsSeenWithWhereTheRestWent();
    void nearLinearIsNotSeen();
};

void TestLessonVerdictDevices::lessThanLinearIsSeenWithWhereTheRestWent()
{
    // 1 rank 600 samples/s; 2 ranks 900 (1.5x, 75 %); 4 ranks 1200 (2x, 50 %), each
    // rank exchanging 40 %, waiting 5 % for the slowest and 5 % for data.
    const LessonVerdict v = devicesVerdict(
        {ranks(1, 600.0), ranks(2, 900.0, 0.02, 0.03, 0.2), ranks(4, 1200.0, 0.05, 0.05, 0.4)});
    QVERIFY2(v.observed, v.text.c_str());
    QCOMPARE(
        v.text,
        std::string(
            "Seen: 1 rank 600 samples/s; 2 ranks 1.50x (75 % of linear), 4 ranks "
            "2.00x (50 % of linear). With 4 ranks each spent 40 % of its time "
            "exchanging the gradient, 5 % waiting for the slowest rank and 5 % "
            "waiting for data; only 50 % stepping. Of the 50 points below linear "
            "with 4 ranks, exchanging took 40, waiting for the slowest rank 5, "
            "waiting for data 5, a slower step 0 and the rest 0. Every rank loads and steps its "
            "share at once, but then all of them wait for the slowest and "
            "all-reduce the gradient, which grows with the ranks: the more ranks, "
            "the larger that part of each step."));
    QCOMPARE(v.figures["phases"][1]["speedup"].get<double>(), 2.0);
    QCOMPARE(v.figures["phases"][1]["efficiency"].get<double>(), 0.5);
    QCOMPARE(v.figures["phases"][1]["exchange_share"].get<double>(), 0.4);
    QVERIFY(qFuzzyCompare(v.figures["phases"][1]["lost"]["exchange"].get<double>(), 0.4));
    QVERIFY(std::abs(v.figures["phases"][1]["lost"]["step"].get<double>()) < 1e-9);
}

void TestLessonVerdictDevices::nearLinearIsNotSeen()
{
    // 4 ranks at 3.8x: 95 % of linear.
    LessonVerdict v = devicesVerdict({ranks(1, 600.0), ranks(2, 1150.0), ranks(4, 2280.0)});
    QVERIFY(!v.observed);
    QVERIFY2(v.text.starts_with("Not seen: 1 rank 600 samples/s; 2 ranks 1.92x (96 % of "
                                "linear), 4 ranks 3.80x (95 % of linear)."),
             v.text.c_str());
    // A first phase of more than one rank has no reference.
    v = devicesVerdict({ranks(2, 600.0), ranks(4, 900.0)});
    QVERIFY(!v.observed);
    QVERIFY2(v.text.starts_with("No data"), v.text.c_str());
    // No phases: stopped, never seen.
    QVERIFY(!devicesVerdict({}).observed);
}

LOADERLAB_GUILESS_TEST_MAIN(TestLessonVerdictDevices)
#include "test_lesson_verdict_devices.moc"
