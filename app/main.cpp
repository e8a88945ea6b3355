// loaderlab: the window when started without a command, the headless tool with one.

#include "app/cli/cli.h"
#ifdef LOADERLAB_WITH_WINDOW
#include "app/window/gui_main.h"
#endif
#include "core/system/safe_text.h"
#ifdef LOADERLAB_TORCH_MODELS
#include "app/cli/torch_plugin.h"
#endif

#include <QCoreApplication>

#include <cstdio>

int main(int argc, char **argv)
{
    QCoreApplication::setOrganizationName(QStringLiteral("LoaderLab"));
    QCoreApplication::setApplicationName(QStringLiteral("loaderlab"));
    QCoreApplication::setApplicationVersion(QStringLiteral(LOADERLAB_VERSION));
#ifdef LOADERLAB_TORCH_MODELS
    // Before any run can ask for a model consumer, and the window's "Find max batch"
    // (widgets cannot link LibTorch); LibTorch itself loads when first used.
    loaderlab::registerTorchPlugin();
#endif

    if (loaderlab::cli::isCliInvocation(argc, argv)) {
        QCoreApplication app(argc, argv);
        // Not QCoreApplication::arguments(): it turns bytes that are not UTF-8 (a file
        // name in another encoding) into U+FFFD for good. Here they become \xHH, which
        // loaderlab::cli::pathFromArgument turns back into the bytes.
        QStringList arguments;
        for (int i = 0; i < argc; ++i)
            arguments << QString::fromStdString(loaderlab::escapeInvalidUtf8(argv[i]));
        return loaderlab::cli::run(arguments);
    }
#ifdef LOADERLAB_WITH_WINDOW
    return loaderlab::runGui(argc, argv);
#else
    std::fputs("loaderlab: this build has no window (LOADERLAB_WITH_WINDOW=OFF); run a "
               "command: `loaderlab help` lists them\n",
               stderr);
    return 2;
#endif
}
