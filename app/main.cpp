// loaderlab: the window when started without a command, the headless tool with one.

#include "app/cli/cli.h"
#include "app/gui_main.h"
#ifdef LOADERLAB_TORCH_MODELS
#include "core/torch/torch_consumer_registration.h"
#endif

#include <QCoreApplication>

int main(int argc, char **argv)
{
    QCoreApplication::setOrganizationName(QStringLiteral("LoaderLab"));
    QCoreApplication::setApplicationName(QStringLiteral("loaderlab"));
    QCoreApplication::setApplicationVersion(QStringLiteral(LOADERLAB_VERSION));
#ifdef LOADERLAB_TORCH_MODELS
    loaderlab::registerTorchConsumer();   // before any run can ask for a model consumer
#endif

    if (Cli::isCliInvocation(argc, argv)) {
        QCoreApplication app(argc, argv);
        return Cli::run(QCoreApplication::arguments());
    }
    return runGui(argc, argv);
}
