// The main() of a test bundle: the Qt Test files of one folder linked into one
// executable (test_main.h). `BUNDLE NAME [ARGS...]` runs the test of file NAME.cpp with
// Qt Test's arguments ARGS; without a known NAME it lists the bundle's tests.

#include "tests/support/test_main.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

namespace loaderlab::test {
namespace {

std::map<std::string, TestMainFunction> &bundledTests()
{
    static std::map<std::string, TestMainFunction> tests;
    return tests;
}

// "tests/cli/test_cli_sweep.cpp" -> "test_cli_sweep".
std::string testName(const std::string &file)
{
    const auto slash = file.find_last_of('/');
    std::string name = slash == std::string::npos ? file : file.substr(slash + 1);
    const auto dot = name.find_last_of('.');
    return dot == std::string::npos ? name : name.substr(0, dot);
}

} // namespace

bool registerBundledTest(const char *file, TestMainFunction main)
{
    const std::string name = testName(file);
    if (!bundledTests().emplace(name, main).second) {
        std::fprintf(stderr, "two test files named %s in one test bundle (%s)\n", name.c_str(),
                     file);
        std::abort();
    }
    return true;
}

} // namespace loaderlab::test

int main(int argc, char *argv[])
{
    const auto &tests = loaderlab::test::bundledTests();
    if (argc >= 2) {
        const auto test = tests.find(argv[1]);
        if (test != tests.end())
            return test->second(argc - 1, argv + 1); // the test's name as its argv[0]
    }
    std::FILE *out = argc >= 2 ? stderr : stdout;
    if (argc >= 2)
        std::fprintf(out, "%s: no test %s in this bundle\n", argv[0], argv[1]);
    std::fprintf(out, "Usage: %s TEST [Qt Test arguments]\nTests:\n", argv[0]);
    for (const auto &[name, main] : tests)
        std::fprintf(out, "  %s\n", name.c_str());
    return argc >= 2 ? 2 : 0;
}
