// The CLI against hostile files and arguments, end to end through the real binary:
// FIFOs named like data files, outputs that are inputs, out-of-range settings and
// extra arguments. Each must end promptly with a clear message and the right exit
// code (2 for a usage or input error), never hang or destroy a file.

#include "cli_process.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <sys/stat.h>

namespace {

using clitest::Result;

// The binary, given a minute: a hostile file must be refused, not waited on.
Result runBriefly(const QStringList &arguments, int timeoutMs = 60'000)
{
    return clitest::runLoaderlab(arguments, timeoutMs);
}

bool makeFifo(const QString &path)
{
    return ::mkfifo(QFile::encodeName(path).constData(), 0644) == 0;
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QStringList args(std::initializer_list<const char *> list)
{
    QStringList out;
    for (const char *item : list)
        out << QString::fromUtf8(item);
    return out;
}

} // namespace

class TestCliHostileFiles : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void fifoNamedLikeAnImageIsSkippedNotWaitedFor();
    void fifoDatasetFilesAreRefusedSayingWhatTheyAre();
    void preprocessRefusesToOverwriteAnInputImage();
    void preprocessIntoADirectoryFailsBeforeDecoding();
    void makeDatasetUsageErrorsExitTwo();
    void makeDatasetTensorRefusesAnExistingFile();
    void extraArgumentsAreRefused();
    void unknownLanguageIsRefused();
    void benchModelValidatesSizesAndPrintsOneLine();

private:
    QTemporaryDir m_dir;
    QString m_folder;
    QString m_classDir;
};

void TestCliHostileFiles::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_folder = m_dir.filePath(QStringLiteral("images"));
    const Result made = clitest::makeImageFolder(m_folder);
    QVERIFY2(made.exitCode == 0, qPrintable(made.err));
    m_classDir = m_folder + QLatin1Char('/')
                 + QDir(m_folder).entryList(QDir::Dirs | QDir::NoDotAndDotDot).first();
}

void TestCliHostileFiles::fifoNamedLikeAnImageIsSkippedNotWaitedFor()
{
    // Its own copy of the folder, so the FIFO does not affect the other tests.
    const QString folder = m_dir.filePath(QStringLiteral("with-fifo"));
    QVERIFY(runBriefly(QStringList{QStringLiteral("make-dataset"), folder}
                       + args({"--classes", "2", "--images-per-class", "2", "--min-side", "40",
                               "--max-side", "48"}))
                .exitCode
            == 0);
    const QString fifo = folder + QLatin1Char('/')
                         + QDir(folder).entryList(QDir::Dirs | QDir::NoDotAndDotDot).first()
                         + QStringLiteral("/x.jpg");
    QVERIFY(makeFifo(fifo));

    for (const char *workers : {"2", "0"}) {
        const QStringList arguments{QStringLiteral("run"), QStringLiteral("--dataset"),
                                    QStringLiteral("folder"), QStringLiteral("--path"), folder};
        const Result r = runBriefly(
            arguments + args({"--seconds", "2", "--batch-size", "2", "--workers", workers}));
        QVERIFY2(
            r.exitCode == 0,
            qPrintable(QStringLiteral("workers %1: %2").arg(QString::fromUtf8(workers), r.err)));
        QVERIFY2(r.err.contains(fifo) && r.err.contains(QStringLiteral("FIFO")), qPrintable(r.err));
    }

    // The window (offscreen) runs the same folder for 2 s and writes its summary.
    const QString config = m_dir.filePath(QStringLiteral("with-fifo.json"));
    {
        QFile file(config);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QStringLiteral(R"({"dataset": {"kind": "folder", "path": "%1"},
                                      "loader": {"batch_size": 2}})")
                       .arg(folder)
                       .toUtf8());
    }
    const QString summary = m_dir.filePath(QStringLiteral("with-fifo-window.json"));
    const Result w = runBriefly({QStringLiteral("--config"), config, QStringLiteral("--json"),
                                 summary, QStringLiteral("--seconds"), QStringLiteral("2")});
    QVERIFY2(w.exitCode == 0, qPrintable(w.err));
    QVERIFY(QFileInfo::exists(summary));

    // A window run that cannot start says why on stderr, not only in its status bar.
    const QString gone = m_dir.filePath(QStringLiteral("no-such-folder"));
    {
        QFile file(config);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(
            QStringLiteral(R"({"dataset": {"kind": "folder", "path": "%1"}})").arg(gone).toUtf8());
    }
    const Result failed = runBriefly({QStringLiteral("--config"), config, QStringLiteral("--json"),
                                      summary + QStringLiteral(".2")});
    QCOMPARE(failed.exitCode, 2);
    QVERIFY2(failed.err.contains(gone), qPrintable(failed.err));

    const QString tensor = m_dir.filePath(QStringLiteral("with-fifo.tensor"));
    const Result p = runBriefly({QStringLiteral("preprocess"), folder, tensor});
    QVERIFY2(p.exitCode == 0, qPrintable(p.err));
    QVERIFY2(p.err.contains(QStringLiteral("wrote 4 samples")), qPrintable(p.err));
}

void TestCliHostileFiles::fifoDatasetFilesAreRefusedSayingWhatTheyAre()
{
    const QString fifo = m_dir.filePath(QStringLiteral("data-images-idx3-ubyte"));
    QVERIFY(makeFifo(fifo));
    for (const char *kind : {"tensor", "idx", "cifar10"}) {
        const Result r = runBriefly({QStringLiteral("run"), QStringLiteral("--dataset"),
                                     QString::fromUtf8(kind), QStringLiteral("--path"), fifo});
        QVERIFY2(r.exitCode == 2,
                 qPrintable(QString::fromUtf8(kind) + QStringLiteral(": ") + r.err));
        QVERIFY2(r.err.contains(fifo) && r.err.contains(QStringLiteral("is a FIFO")),
                 qPrintable(r.err));
    }
    QFile::remove(fifo);

    // A directory where a CIFAR batch file should be is named for what it is.
    const QString cifar = m_dir.filePath(QStringLiteral("cifar"));
    QVERIFY(QDir().mkpath(cifar + QStringLiteral("/data_batch_1.bin")));
    const Result r = runBriefly({QStringLiteral("run"), QStringLiteral("--dataset"),
                                 QStringLiteral("cifar10"), QStringLiteral("--path"), cifar});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("data_batch_1.bin: is a directory")), qPrintable(r.err));
}

void TestCliHostileFiles::preprocessRefusesToOverwriteAnInputImage()
{
    const QString image = m_classDir + QLatin1Char('/')
                          + QDir(m_classDir).entryList(QDir::Files, QDir::Name).first();
    const QByteArray before = readAll(image);
    QVERIFY(!before.isEmpty());
    // Named directly, and through a symlink elsewhere: both are the same file.
    const QString link = m_dir.filePath(QStringLiteral("link-to-image.tensor"));
    QVERIFY(QFile::link(image, link));
    for (const QString &output : {image, link}) {
        const Result r = runBriefly({QStringLiteral("preprocess"), m_folder, output});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("one of the input images")), qPrintable(r.err));
        QCOMPARE(readAll(image), before);
    }
}

void TestCliHostileFiles::preprocessIntoADirectoryFailsBeforeDecoding()
{
    const QString dir = m_dir.filePath(QStringLiteral("out-dir"));
    QVERIFY(QDir().mkpath(dir));
    const Result r = runBriefly({QStringLiteral("preprocess"), m_folder, dir});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(dir) && r.err.contains(QStringLiteral("is a directory")),
             qPrintable(r.err));
    // Progress lines ("images: n/total") would mean it decoded first.
    QVERIFY2(!r.err.contains(QStringLiteral("images:")), qPrintable(r.err));
}

void TestCliHostileFiles::makeDatasetUsageErrorsExitTwo()
{
    const QString taken = m_dir.filePath(QStringLiteral("taken"));
    QVERIFY(QDir().mkpath(taken));
    QFile marker(taken + QStringLiteral("/keep.txt"));
    QVERIFY(marker.open(QIODevice::WriteOnly));
    marker.close();

    const QString fresh = m_dir.filePath(QStringLiteral("fresh"));
    const QList<QStringList> cases{
        {QStringLiteral("make-dataset"), taken},
        QStringList{QStringLiteral("make-dataset"), fresh} + args({"--quality", "101"}),
        QStringList{QStringLiteral("make-dataset"), fresh + QStringLiteral(".tensor")}
            + args({"--kind", "tensor", "--shape", "0x1x1"}),
        QStringList{QStringLiteral("make-dataset"), fresh + QStringLiteral(".tensor")}
            + args({"--kind", "tensor", "--shape", "1x100000x1"}),
    };
    for (const QStringList &arguments : cases) {
        const Result r = runBriefly(arguments);
        QVERIFY2(r.exitCode == 2,
                 qPrintable(arguments.join(QLatin1Char(' ')) + QStringLiteral(": ")
                            + QString::number(r.exitCode) + QStringLiteral(" ") + r.err));
        QVERIFY2(r.err.startsWith(QStringLiteral("loaderlab make-dataset: ")), qPrintable(r.err));
    }
    QVERIFY(!QFileInfo::exists(fresh));
    QVERIFY(!QFileInfo::exists(fresh + QStringLiteral(".tensor")));
}

void TestCliHostileFiles::makeDatasetTensorRefusesAnExistingFile()
{
    const QString existing = m_dir.filePath(QStringLiteral("precious.bin"));
    {
        QFile file(existing);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("precious");
    }
    const Result r = runBriefly(QStringList{QStringLiteral("make-dataset"), existing}
                                + args({"--kind", "tensor", "--count", "2", "--shape", "1x2x2"}));
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(existing) && r.err.contains(QStringLiteral("already exists")),
             qPrintable(r.err));
    QCOMPARE(readAll(existing), QByteArray("precious"));
}

void TestCliHostileFiles::extraArgumentsAreRefused()
{
    const Result info = runBriefly({QStringLiteral("info"), QStringLiteral("extra")});
    QCOMPARE(info.exitCode, 2);
    QVERIFY2(info.err.contains(QStringLiteral("unexpected argument: extra")), qPrintable(info.err));

    const Result made = runBriefly({QStringLiteral("make-dataset"),
                                    m_dir.filePath(QStringLiteral("a")),
                                    m_dir.filePath(QStringLiteral("b"))});
    QCOMPARE(made.exitCode, 2);
}

void TestCliHostileFiles::unknownLanguageIsRefused()
{
    const Result r = runBriefly({QStringLiteral("--lang"), QStringLiteral("xx")}, 30'000);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("--lang xx"))
                 && r.err.contains(QStringLiteral("en, de")),
             qPrintable(r.err));
}

void TestCliHostileFiles::benchModelValidatesSizesAndPrintsOneLine()
{
    const Result r = runBriefly(
        args({"bench-model", "--size", "100000", "--batch-sizes", "1", "--iterations", "1"}));
    if (r.err.contains(QStringLiteral("no LibTorch models")))
        QSKIP("this build has no LibTorch models");
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("--size")), qPrintable(r.err));
    QCOMPARE(r.err.count(QLatin1Char('\n')), 1); // one line, no c10 stack trace

    // The CSV's folder is checked before any model is built or timed.
    const Result csv = runBriefly(args({"bench-model", "--model", "resnet18", "--batch-sizes", "1",
                                        "--csv", "/nonexistent-dir/m.csv"}));
    QCOMPARE(csv.exitCode, 2);
    QVERIFY2(csv.err.contains(QStringLiteral("/nonexistent-dir/m.csv")), qPrintable(csv.err));
    QVERIFY2(!csv.err.contains(QStringLiteral("batch 1 done")), qPrintable(csv.err));
}

LOADERLAB_GUILESS_TEST_MAIN(TestCliHostileFiles)
#include "test_cli_hostile_files.moc"
