// `loaderlab lesson` with the real binary: the list, a lesson run headless with its
// verdict and JSON (the verdict checked against the figures it reports, so the test
// holds on any machine), an unknown lesson refused with the names.

#include "cli_process.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>

using clitest::Result;
using clitest::runLoaderlab;

class TestCliLesson : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void listNamesEveryLesson();
    void lessonRunsAndItsVerdictMatchesItsFigures();
    void unknownLessonIsRefused();

private:
    QTemporaryDir m_dir;
};

void TestCliLesson::listNamesEveryLesson()
{
    const Result r = runLoaderlab({QStringLiteral("lesson"), QStringLiteral("--list")});
    QCOMPARE(r.exitCode, 0);
    for (const char *name :
         {"first-batch", "spikes-every-w", "slow-model", "bigger-batches", "tensors-vs-jpeg",
          "zero-vs-one-worker", "more-workers-than-cores", "sample-parallel", "model-trade"})
        QVERIFY2(r.out.contains(QLatin1String(name)), name);
}

void TestCliLesson::lessonRunsAndItsVerdictMatchesItsFigures()
{
    const QString json = m_dir.filePath(QStringLiteral("lesson.json"));
    const Result r = runLoaderlab(
        {QStringLiteral("lesson"), QStringLiteral("first-batch"), QStringLiteral("--json"), json});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(r.out.startsWith(QStringLiteral("The first batch waits longest")));
    QVERIFY(r.out.contains(QStringLiteral("Phase 1/1: ")));
    QVERIFY(r.out.contains(QStringLiteral("\nVerdict: ")));
    std::ifstream in(json.toStdString());
    const auto j = nlohmann::json::parse(in);
    QCOMPARE(j.at("lesson").get<std::string>(), std::string("first-batch"));
    QCOMPARE(j.at("phases").size(), std::size_t{1});
    QCOMPARE(j.at("phases")[0].at("batches").get<int>(), 30);
    const double first = j.at("phases")[0].at("first_wait_ms").get<double>();
    const double p95 = j.at("phases")[0].at("p95_wait_ms").get<double>();
    const double laterMax = j.at("figures").at("later_max_wait_ms").get<double>();
    QCOMPARE(j.at("observed").get<bool>(), first >= laterMax && first >= 2 * p95);
    QVERIFY(r.out.contains(QString::fromStdString(j.at("verdict").get<std::string>())));
}

void TestCliLesson::unknownLessonIsRefused()
{
    const Result r = runLoaderlab({QStringLiteral("lesson"), QStringLiteral("warp-speed")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("warp-speed: no such lesson")), qPrintable(r.err));
    QVERIFY(r.err.contains(QStringLiteral("spikes-every-w")));
}

QTEST_GUILESS_MAIN(TestCliLesson)
#include "test_cli_lesson.moc"
