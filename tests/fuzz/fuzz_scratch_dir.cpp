// FuzzScratchDir: a private temporary directory per process, files rewritten per input.

#include "tests/fuzz/fuzz_scratch_dir.h"

#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

namespace loaderlab::fuzz {

namespace {

[[noreturn]] void die(const char *what, const std::string &path)
{
    std::perror((std::string("fuzz harness: ") + what + " " + path).c_str());
    std::abort();
}

} // namespace

FuzzScratchDir::FuzzScratchDir()
{
    const char *tmp = std::getenv("TMPDIR");
    m_path = std::string(tmp && *tmp ? tmp : "/tmp") + "/loaderlab-fuzz-XXXXXX";
    if (!::mkdtemp(m_path.data()))
        die("cannot create a directory from", m_path);
}

std::string FuzzScratchDir::write(const std::string &name, const std::uint8_t *data,
                                  std::size_t size) const
{
    const std::string file = m_path + "/" + name;
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        die("cannot open", file);
    std::size_t done = 0;
    while (done < size) {
        const ssize_t wrote = ::write(fd, data + done, size - done);
        if (wrote <= 0)
            die("cannot write", file);
        done += static_cast<std::size_t>(wrote);
    }
    if (::close(fd) != 0)
        die("cannot close", file);
    return file;
}

} // namespace loaderlab::fuzz
