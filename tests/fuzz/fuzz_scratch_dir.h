#pragma once

// FuzzScratchDir: puts fuzz inputs into real files for parsers that only take a
// path (the dataset readers open, stat and read the file themselves). One private
// directory per process under $TMPDIR; each write replaces a file in it, so a long
// run does not fill the disk.

#include <cstddef>
#include <cstdint>
#include <string>

namespace loaderlab::fuzz {

class FuzzScratchDir
{
public:
    FuzzScratchDir();

    // Replaces `name` (inside the directory) with `size` bytes of `data` and returns
    // its path. Aborts if that fails: a broken harness must not pass for a parser
    // that refuses everything.
    std::string write(const std::string &name, const std::uint8_t *data, std::size_t size) const;
    const std::string &path() const { return m_path; }

private:
    std::string m_path;
};

} // namespace loaderlab::fuzz
