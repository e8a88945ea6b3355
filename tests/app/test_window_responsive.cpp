// The window keeps turning while a lesson waits for its dataset. A lesson over the
// default image folder needs the folder; when another LoaderLab process is generating
// it, ensureDefaultImageFolder() waits for that process's lock. Here the test is that
// other process: it holds the real lock (flock on "<folder>.lock") for a while, then
// puts a finished folder in place and lets go, from a thread of its own (a GUI thread
// stuck on the lock is let go too, so a regression fails instead of hanging). A
// QTimer ticking every 10 ms must keep ticking while the lesson waits, while the
// lesson is started again (the waiting preparation replaced) and while the window is
// closed and destroyed (the preparation cancelled).

#include "app/window/main_window.h"
#include "window_test_support.h"

#include "core/lessons/lesson_runner.h"
#include "core/tools/default_dataset.h"
#include "widgets/common/background_task.h"
#include "widgets/lessons/lesson_panel.h"
#include "widgets/session/run_session.h"

#include "tests/support/image_folder.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <QPushButton>

#include <chrono>
#include <filesystem>
#include <stop_token>
#include <thread>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

using namespace loaderlab;

namespace {

// How long the other process holds the lock, and the longest pause of the event loop
// allowed meanwhile (a loaded CI machine pauses it now and then; a GUI thread waiting
// for the lock pauses it for all of kHoldMs).
constexpr int kHoldMs = 2000;
constexpr qint64 kMaxPauseMs = 1000;

// Another LoaderLab process generating the default folder.
class OtherProcessGenerating
{
public:
    explicit OtherProcessGenerating(const QString &readyFolder)
        : m_fd(::open((defaultImageFolderPath() + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC,
                      0644))
    {
        if (m_fd < 0 || ::flock(m_fd, LOCK_EX) != 0)
            qFatal("cannot take the default folder's lock");
        m_thread = std::thread([this, ready = readyFolder.toStdString()] {
            std::this_thread::sleep_for(std::chrono::milliseconds(kHoldMs));
            std::filesystem::rename(ready, defaultImageFolderPath());
            ::close(m_fd); // lets go of the lock
        });
    }
    ~OtherProcessGenerating() { m_thread.join(); }
    OtherProcessGenerating(const OtherProcessGenerating &) = delete;
    OtherProcessGenerating &operator=(const OtherProcessGenerating &) = delete;

private:
    int m_fd;
    std::thread m_thread;
};

// The longest gap between ticks of a 10 ms timer.
class Ticker
{
public:
    Ticker()
    {
        m_clock.start();
        QObject::connect(&m_timer, &QTimer::timeout, &m_timer, [this] {
            const qint64 now = m_clock.elapsed();
            m_longestPause = std::max(m_longestPause, now - m_last);
            m_last = now;
            ++m_ticks;
        });
        m_timer.start(10);
    }
    qint64 longestPause() const { return m_longestPause; }
    int ticks() const { return m_ticks; }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = 0;
    qint64 m_longestPause = 0;
    int m_ticks = 0;
};

} // namespace

class TestWindowResponsive : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void lessonWaitsForTheDefaultFolderOffTheGuiThread();
    void closingTheWindowDoesNotWaitForThePreparation();
    void tensorFilePreparationStops();

private:
    QString readyFolder();

    QTemporaryDir m_dir;
    int m_folders = 0;
};

void TestWindowResponsive::initTestCase()
{
    QVERIFY(m_dir.isValid());
    qputenv("LOADERLAB_CACHE_DIR", m_dir.filePath(QStringLiteral("cache")).toUtf8());
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("LoaderLabTests"));
    QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("cache"))));
}

void TestWindowResponsive::init()
{
    // Every test starts without the default folder.
    QDir(QString::fromStdString(defaultImageFolderPath())).removeRecursively();
}

// A small finished image folder, for the other process to put in place.
QString TestWindowResponsive::readyFolder()
{
    return writeImageFolder(m_dir.filePath(QStringLiteral("ready%1").arg(++m_folders)), 2, 16, 40,
                            60);
}

void TestWindowResponsive::lessonWaitsForTheDefaultFolderOffTheGuiThread()
{
    MainWindow window;
    window.applyConfig(windowtest::fastConfig(1, 256)); // not an image folder: the default one
    window.show();
    LessonPanel *panel = window.lessonPanel();
    QVERIFY(panel->chooseLesson(QStringLiteral("first-batch")));
    auto *start = childNamed<QPushButton>(panel, "startLessonButton");

    const QString ready = readyFolder();
    Ticker ticker;
    {
        OtherProcessGenerating other(ready);
        start->click();
        QTest::qWait(200);
        QVERIFY(!window.session()->running()); // waiting for the folder
        start->click();                        // again: the waiting preparation is replaced
        QTest::qWait(200);
        QVERIFY(!window.session()->running());
        // The lesson starts on the folder the other process made.
        QTRY_VERIFY_WITH_TIMEOUT(window.session()->running(), 30'000);
    }
    QCOMPARE(QString::fromStdString(window.session()->config().dataset.path),
             QString::fromStdString(defaultImageFolderPath()));
    QVERIFY2(
        ticker.longestPause() < kMaxPauseMs,
        qPrintable(
            QStringLiteral("the event loop stood still for %1 ms").arg(ticker.longestPause())));
    window.session()->stop();
}

void TestWindowResponsive::closingTheWindowDoesNotWaitForThePreparation()
{
    const QString ready = readyFolder();
    Ticker ticker;
    {
        OtherProcessGenerating other(ready);
        auto *window = new MainWindow;
        window->applyConfig(windowtest::fastConfig(1, 256));
        window->show();
        QVERIFY(window->lessonPanel()->chooseLesson(QStringLiteral("first-batch")));
        childNamed<QPushButton>(window->lessonPanel(), "startLessonButton")->click();
        QTest::qWait(200);
        QElapsedTimer closing;
        closing.start();
        window->close();
        delete window; // the preparation still waits for the lock
        QVERIFY2(closing.elapsed() < kMaxPauseMs,
                 qPrintable(QStringLiteral("closing took %1 ms").arg(closing.elapsed())));
        const int ticks = ticker.ticks();
        QTRY_VERIFY(ticker.ticks() >= ticks + 5);
        // The other process finishes while the event loop turns.
        QTRY_VERIFY_WITH_TIMEOUT(
            QFileInfo::exists(QString::fromStdString(defaultImageFolderPath())), 30'000);
    }
    QVERIFY2(
        ticker.longestPause() < kMaxPauseMs,
        qPrintable(
            QStringLiteral("the event loop stood still for %1 ms").arg(ticker.longestPause())));
    // The cancelled preparation ends once the lock is free; nothing of it arrives.
    BackgroundTask::joinAbandoned();
    QCoreApplication::processEvents();
}

void TestWindowResponsive::tensorFilePreparationStops()
{
    // The preprocessing behind a lesson's tensor file honours a stop request and
    // leaves no file behind; unstopped, it makes the file.
    const QString images = readyFolder();
    std::stop_source stop;
    stop.request_stop();
    QVERIFY_THROWS_EXCEPTION(std::runtime_error,
                             lessonTensorFile(images.toStdString(), {}, stop.get_token()));
    const QDir lessons(m_dir.filePath(QStringLiteral("cache/lessons")));
    QVERIFY(lessons.entryList(QDir::Files).isEmpty());
    const std::string file = lessonTensorFile(images.toStdString());
    QVERIFY(QFileInfo::exists(QString::fromStdString(file)));
}

LOADERLAB_TEST_MAIN(TestWindowResponsive)
#include "test_window_responsive.moc"
