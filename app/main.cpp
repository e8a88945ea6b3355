// loaderlab: the window when started without a command, the headless tool with one.

#include "app/cli/cli.h"
#include "app/gui_main.h"

#include <QCoreApplication>

int main(int argc, char **argv)
{
    QCoreApplication::setOrganizationName(QStringLiteral("LoaderLab"));
    QCoreApplication::setApplicationName(QStringLiteral("loaderlab"));
    QCoreApplication::setApplicationVersion(QStringLiteral(LOADERLAB_VERSION));

    if (Cli::isCliInvocation(argc, argv)) {
        QCoreApplication app(argc, argv);
        return Cli::run(QCoreApplication::arguments());
    }
    return runGui(argc, argv);
}
