#pragma once

// The main() of a Qt Test file: LOADERLAB_TEST_MAIN(TestClass) where the test needs
// a QApplication (widgets), LOADERLAB_GUILESS_TEST_MAIN where a QCoreApplication will
// do, as QTEST_MAIN and QTEST_GUILESS_MAIN. By default (LOADERLAB_TEST_BUNDLES,
// tests/CMakeLists.txt) the test files of a folder share one executable, a bundle:
// each file then registers its main under its file name instead of defining main(),
// and test_bundle_main.cpp runs the one its first argument names, e.g.
// `build/tests/cli/tests_cli test_cli_sweep -v2 resumesAfterAKill`. One link and one
// moc pass per folder instead of one per test: most of a test's build time when
// its own code is small.

#include <QtTest/qtest.h>

namespace loaderlab::test {

using TestMainFunction = int (*)(int argc, char **argv);

// Called before main() by each test file of a bundle (file: its __FILE__); aborts on a
// second file of the same name. Defined in test_bundle_main.cpp.
bool registerBundledTest(const char *file, TestMainFunction main);

} // namespace loaderlab::test

#ifdef LOADERLAB_TEST_BUNDLE
// QTEST_MAIN_WRAPPER's body (Qt 6's qtest.h) in a function of the test file's own.
#define LOADERLAB_TEST_ENTRY_(TestObject, ...)                                                     \
    namespace {                                                                                    \
    int bundledTestMain_##TestObject(int argc, char *argv[])                                       \
    {                                                                                              \
        QT_PREPEND_NAMESPACE(QTest::Internal::callInitMain)<TestObject>();                         \
        __VA_ARGS__                                                                                \
        TestObject tc;                                                                             \
        QTEST_SET_MAIN_SOURCE_PATH                                                                 \
        return QTest::qExec(&tc, argc, argv);                                                      \
    }                                                                                              \
    [[maybe_unused]] const bool bundledTestRegistered_##TestObject =                               \
        loaderlab::test::registerBundledTest(__FILE__, &bundledTestMain_##TestObject);             \
    }
#else
#define LOADERLAB_TEST_ENTRY_(TestObject, ...) QTEST_MAIN_WRAPPER(TestObject, __VA_ARGS__)
#endif

#define LOADERLAB_TEST_MAIN(TestObject) LOADERLAB_TEST_ENTRY_(TestObject, QTEST_MAIN_SETUP())
#define LOADERLAB_GUILESS_TEST_MAIN(TestObject)                                                    \
    LOADERLAB_TEST_ENTRY_(TestObject, QTEST_QAPP_SETUP(QCoreApplication))
