// `loaderlab make-dataset`: a dataset to try LoaderLab on.

#include "app/cli/cli.h"
#include "app/cli/run_support.h"

#include "core/config/dataset_config.h"
#include "core/system/logging.h"
#include "core/system/safe_text.h"
#include "core/tools/imagenette_generator.h"

#include <QCommandLineParser>
#include <QRegularExpression>

#include <cstdio>

namespace loaderlab::cli {

int makeDatasetCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Writes an Imagenette-like JPEG folder (--kind folder) or a tensor file of random "
        "samples (--kind tensor) to OUT."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("OUT"), QStringLiteral("folder or file to write"));
    parser.addOptions({
        {QStringLiteral("kind"), QStringLiteral("folder (default) or tensor"),
         QStringLiteral("kind"), QStringLiteral("folder")},
        {QStringLiteral("classes"), QStringLiteral("folder: classes (default 10)"),
         QStringLiteral("n"), QStringLiteral("10")},
        {QStringLiteral("images-per-class"),
         QStringLiteral("folder: images per class (default 100)"), QStringLiteral("n"),
         QStringLiteral("100")},
        {QStringLiteral("min-side"), QStringLiteral("folder: smallest short side (default 300)"),
         QStringLiteral("px"), QStringLiteral("300")},
        {QStringLiteral("max-side"), QStringLiteral("folder: largest short side (default 500)"),
         QStringLiteral("px"), QStringLiteral("500")},
        {QStringLiteral("quality"), QStringLiteral("folder: JPEG quality (default 90)"),
         QStringLiteral("q"), QStringLiteral("90")},
        {QStringLiteral("count"), QStringLiteral("tensor: samples (default 1000)"),
         QStringLiteral("n"), QStringLiteral("1000")},
        {QStringLiteral("shape"), QStringLiteral("tensor: CxHxW (default 3x224x224)"),
         QStringLiteral("CxHxW"), QStringLiteral("3x224x224")},
        {QStringLiteral("dtype"), QStringLiteral("tensor: float32 (default) or uint8"),
         QStringLiteral("type"), QStringLiteral("float32")},
        {QStringLiteral("seed"), QStringLiteral("random seed (default 0)"), QStringLiteral("n"),
         QStringLiteral("0")},
    });
    if (const auto code = parseCommandLine(parser, arguments, "make-dataset"))
        return *code;
    if (parser.positionalArguments().size() != 1) {
        std::fprintf(stderr, "loaderlab make-dataset: expected one OUT path\n");
        return kUsage;
    }
    const std::string out = parser.positionalArguments().first().toStdString();
    const QString kind = parser.value(QStringLiteral("kind"));
    try {
        const auto seed = static_cast<std::uint64_t>(intOption(parser, "seed", 0));
        if (kind == QLatin1String("folder")) {
            loaderlab::ImageFolderSpec spec;
            spec.classes = intOption(parser, "classes", 1);
            spec.imagesPerClass = intOption(parser, "images-per-class", 1);
            spec.minShortSide = intOption(parser, "min-side", 8);
            spec.maxShortSide = intOption(parser, "max-side", spec.minShortSide);
            spec.jpegQuality = intOption(parser, "quality", 1);
            spec.seed = seed;
            loaderlab::generateImageFolder(out, spec, progressPrinter("images"));
        } else if (kind == QLatin1String("tensor")) {
            static const QRegularExpression pattern(QStringLiteral("^(\\d+)x(\\d+)x(\\d+)$"));
            const auto match = pattern.match(parser.value(QStringLiteral("shape")));
            if (!match.hasMatch())
                throw std::invalid_argument("--shape: expected CxHxW such as 3x224x224");
            const loaderlab::SampleShape shape{match.captured(1).toInt(), match.captured(2).toInt(),
                                               match.captured(3).toInt()};
            const QString dtype = parser.value(QStringLiteral("dtype"));
            if (dtype != QLatin1String("float32") && dtype != QLatin1String("uint8"))
                throw std::invalid_argument("--dtype: expected float32 or uint8");
            loaderlab::generateTensorFile(out, intOption(parser, "count", 1), shape,
                                          dtype == QLatin1String("uint8")
                                              ? loaderlab::DType::UInt8
                                              : loaderlab::DType::Float32,
                                          seed, progressPrinter("samples"));
        } else {
            throw std::invalid_argument("--kind: expected folder or tensor");
        }
    } catch (const std::invalid_argument &e) {
        std::fprintf(stderr, "loaderlab make-dataset: %s\n",
                     loaderlab::escapeForTerminal(e.what()).c_str());
        return kUsage;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "loaderlab make-dataset: %s\n",
                     loaderlab::escapeForTerminal(e.what()).c_str());
        return kFailed;
    }
    std::fprintf(stderr, "wrote %s\n", loaderlab::escapeForTerminal(out).c_str());
    return kOk;
}

} // namespace loaderlab::cli
