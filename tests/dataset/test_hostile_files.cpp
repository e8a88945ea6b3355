// Dataset files that are not regular files (FIFOs, directories, sockets) and the
// regular-file helper every reader uses: each is refused at once, saying what it is,
// and nothing blocks waiting for a FIFO writer.

#include "core/config/dataset_config.h"
#include "core/dataset/cifar10_dataset.h"
#include "core/dataset/idx_dataset.h"
#include "core/dataset/tensor_file_dataset.h"
#include "core/dataset/tensor_file_format.h"
#include "core/image/image_folder_dataset.h"
#include "core/loader/open_dataset.h"
#include "core/run/output_paths.h"
#include "core/system/regular_file.h"

#include "tests/support/log_capture.h"
#include "tests/support/test_main.h"

#include <QtTest/QtTest>

#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <future>
#include <sstream>
#include <stdexcept>
#include <string>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using namespace loaderlab;

namespace {

// Runs `call` and returns its exception's message. A call still blocked after 20 s
// (opening a FIFO waits for a writer forever) cannot be cancelled, so the test
// process ends there with a clear failure instead of hanging until ctest's timeout.
std::string errorWithin(const std::function<void()> &call)
{
    auto result = std::async(std::launch::async, [&call]() -> std::string {
        try {
            call();
        } catch (const std::exception &error) {
            return error.what();
        }
        return {};
    });
    if (result.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
        std::fprintf(stderr, "FAIL: blocked for 20 s (waiting on a FIFO?)\n");
        std::_Exit(1);
    }
    return result.get();
}

std::string makeFifo(const QTemporaryDir &dir, const char *name)
{
    const std::string path = dir.filePath(QString::fromUtf8(name)).toStdString();
    if (::mkfifo(path.c_str(), 0644) != 0)
        return {};
    return path;
}

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

void touch(const std::string &path)
{
    std::ofstream(path) << "not decoded by the scan";
}

} // namespace

class TestHostileFiles : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void unreadableClassFolderIsNamed();
    void pathTooLongIsSaidSo();
    void helperNamesWhatIsThere()
    {
        QTemporaryDir dir;
        const std::string fifo = makeFifo(dir, "pipe");
        QVERIFY(!fifo.empty());
        QCOMPARE(regularFileProblem(fifo),
                 std::string("is a FIFO (named pipe), not a regular file"));
        QCOMPARE(regularFileProblem(dir.path().toStdString()),
                 std::string("is a directory, not a regular file"));
        QCOMPARE(regularFileProblem("/dev/null"),
                 std::string("is a character device, not a regular file"));
        QCOMPARE(regularFileProblem(dir.filePath(QStringLiteral("missing")).toStdString()),
                 std::string("no such file or directory"));

        const std::string socketPath = dir.filePath(QStringLiteral("sock")).toStdString();
        const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
        QVERIFY(sock >= 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::snprintf(address.sun_path, sizeof(address.sun_path), "%s", socketPath.c_str());
        QVERIFY(::bind(sock, reinterpret_cast<sockaddr *>(&address), sizeof(address)) == 0);
        QCOMPARE(regularFileProblem(socketPath), std::string("is a socket, not a regular file"));
        ::close(sock);

        const std::string file = dir.filePath(QStringLiteral("file")).toStdString();
        std::ofstream(file) << "12345";
        QCOMPARE(regularFileProblem(file), std::string());
        std::string reason;
        std::int64_t size = 0;
        const int fd = openRegularFile(file, reason, &size);
        QVERIFY2(fd >= 0, reason.c_str());
        QCOMPARE(size, std::int64_t{5});
        char bytes[5] = {};
        QCOMPARE(::read(fd, bytes, 5), ssize_t{5}); // blocking reads work as usual
        ::close(fd);

        QCOMPARE(errorWithin([&] {
                     std::string why;
                     if (openRegularFile(fifo, why) < 0)
                         throw std::runtime_error(why);
                 }),
                 std::string("is a FIFO (named pipe), not a regular file"));
    }

    void sameFileComparesDeviceAndInode()
    {
        QTemporaryDir dir;
        const std::string a = dir.filePath(QStringLiteral("a")).toStdString();
        const std::string b = dir.filePath(QStringLiteral("b")).toStdString();
        std::ofstream(a) << "a";
        std::ofstream(b) << "a";
        const std::string symlink = dir.filePath(QStringLiteral("sym")).toStdString();
        const std::string hardlink = dir.filePath(QStringLiteral("hard")).toStdString();
        QVERIFY(::symlink(a.c_str(), symlink.c_str()) == 0);
        QVERIFY(::link(a.c_str(), hardlink.c_str()) == 0);
        const std::string otherSpelling = dir.path().toStdString() + "/./a";

        QVERIFY(sameFile(a, a));
        QVERIFY(sameFile(a, symlink));
        QVERIFY(sameFile(a, hardlink));
        QVERIFY(sameFile(otherSpelling, a));
        QVERIFY(!sameFile(a, b)); // same contents, different files
        QVERIFY(!sameFile(a, dir.filePath(QStringLiteral("missing")).toStdString()));
    }

    void fifoTensorFileIsRefused()
    {
        QTemporaryDir dir;
        const std::string fifo = makeFifo(dir, "data.tensor");
        const std::string header = errorWithin([&] { readTensorFileHeader(fifo); });
        QVERIFY2(contains(header, fifo + ": is a FIFO"), header.c_str());
        const std::string dataset = errorWithin([&] { TensorFileDataset{fifo}; });
        QVERIFY2(contains(dataset, fifo + ": is a FIFO"), dataset.c_str());
    }

    void fifoOrDirectoryIdxFilesAreRefused()
    {
        QTemporaryDir dir;
        const std::string fifo = makeFifo(dir, "train-images-idx3-ubyte");
        const std::string direct = errorWithin([&] { IdxDataset{fifo}; });
        QVERIFY2(contains(direct, fifo + ": is a FIFO"), direct.c_str());

        // In a folder: the FIFO is found under its name and refused for what it is.
        const std::string inFolder = errorWithin([&] { IdxDataset{dir.path().toStdString()}; });
        QVERIFY2(contains(inFolder, fifo + ": is a FIFO"), inFolder.c_str());

        QTemporaryDir other;
        QVERIFY(QDir().mkpath(other.filePath(QStringLiteral("train-images-idx3-ubyte.gz"))));
        const std::string directory = errorWithin([&] { IdxDataset{other.path().toStdString()}; });
        QVERIFY2(contains(directory, "train-images-idx3-ubyte.gz: is a directory"),
                 directory.c_str());
    }

    void fifoCifarFilesAreRefused()
    {
        QTemporaryDir dir;
        const std::string fifo = makeFifo(dir, "data_batch_1.bin");
        const std::string direct = errorWithin([&] { Cifar10Dataset{fifo}; });
        QVERIFY2(contains(direct, fifo + ": is a FIFO"), direct.c_str());
        const std::string inFolder = errorWithin([&] { Cifar10Dataset{dir.path().toStdString()}; });
        QVERIFY2(contains(inFolder, fifo + ": is a FIFO"), inFolder.c_str());
    }
};

void TestHostileFiles::unreadableClassFolderIsNamed()
{
    // Class "b" cannot be listed: the scan leaves it out with a warning naming it and
    // the reason. Root may list anything, so the scan then runs as "nobody".
    QTemporaryDir dir;
    QCOMPARE(::chmod(dir.path().toLocal8Bit().constData(), 0755), 0);
    const std::string root = dir.path().toStdString();
    for (const char *sub : {"/a", "/b", "/c"})
        QCOMPARE(::mkdir((root + sub).c_str(), 0755), 0);
    touch(root + "/a/x.jpg");
    touch(root + "/b/y.jpg");
    // A class that is a symlink to itself cannot even be identified.
    QCOMPARE(::symlink((root + "/loop").c_str(), (root + "/loop").c_str()), 0);
    QCOMPARE(::chmod((root + "/b").c_str(), 0), 0);
    DatasetConfig config;
    config.kind = DatasetKind::ImageFolder;
    config.path = root;
    LogCapture log;
    std::int64_t size = 0;
    {
        const bool asRoot = ::geteuid() == 0;
        if (asRoot)
            QCOMPARE(::seteuid(65534), 0);
        try {
            size = ImageFolderDataset(config).size();
        } catch (...) {
        }
        if (asRoot)
            QCOMPARE(::seteuid(0), 0);
    }
    QCOMPARE(size, std::int64_t{1});
    const std::string text = log.text();
    QVERIFY2(contains(text, "warning skipped " + root
                                + "/b: cannot read it: cannot access: "
                                  "Permission denied"),
             text.c_str());
    QVERIFY2(contains(text, "warning skipped " + root
                                + "/loop: cannot read it: cannot access: "
                                  "Too many levels of symbolic links"),
             text.c_str());
    ::chmod((root + "/b").c_str(), 0755);
}

void TestHostileFiles::pathTooLongIsSaidSo()
{
    // A path past PATH_MAX, and a name past NAME_MAX, are "too long", never "does not
    // exist", wherever a path is checked.
    const std::string longPath = "/tmp/" + std::string(5'000, 'x');
    const std::string longName = "/tmp/" + std::string(300, 'x') + "/train";
    QCOMPARE(regularFileProblem(longPath),
             std::string("path too long (5005 bytes; the limit is 4095)"));
    QCOMPARE(regularFileProblem(longName),
             std::string("a name in the path is longer than 255 bytes"));
    DatasetConfig config;
    config.kind = DatasetKind::ImageFolder;
    config.path = longPath;
    std::string message = errorWithin([&] { openDataset(config); });
    QVERIFY2(contains(message, longPath + ": path too long (5005 bytes"), message.c_str());
    message = errorWithin([&] { ImageFolderDataset dataset(config); });
    QVERIFY2(contains(message, ": path too long (5005 bytes"), message.c_str());
    config.kind = DatasetKind::Idx;
    config.path = longName;
    message = errorWithin([&] { openDataset(config); });
    QVERIFY2(contains(message, longName + ": a name in the path is longer than 255"),
             message.c_str());
    message = errorWithin([&] { checkOutputPaths({{"--csv", longName + "/out.csv"}}, {}); });
    QVERIFY2(contains(message, "a name in the path is longer than 255 bytes"), message.c_str());
    message = errorWithin([&] { checkOutputPaths({{"--json", longPath}}, {}); });
    QVERIFY2(contains(message, "--json " + longPath + ": path too long"), message.c_str());
}

LOADERLAB_GUILESS_TEST_MAIN(TestHostileFiles)
#include "test_hostile_files.moc"
