// `loaderlab preprocess`: an image folder decoded once into a tensor file, or into
// shards with a manifest, one process or a Slurm job array writing them.

#include "app/cli/cli.h"
#include "app/cli/run_support.h"

#include "core/dataset/dataset.h"
#include "core/sweep/slurm_script.h"
#include "core/system/atomic_file.h"
#include "core/system/logging.h"
#include "core/system/safe_text.h"
#include "core/tools/preprocess.h"
#include "core/tools/preprocess_shards.h"

#include <QCommandLineParser>
#include <QRegularExpression>

#include <cstdio>
#include <filesystem>

#include <sys/stat.h>

namespace loaderlab::cli {
namespace {

namespace fs = std::filesystem;

void printSkipped(const std::vector<loaderlab::SkippedSample> &skipped)
{
    for (const auto &s : skipped)
        std::fprintf(stderr, "skipped %s: %s\n", loaderlab::escapeForTerminal(s.source).c_str(),
                     loaderlab::escapeForTerminal(s.reason).c_str());
}

// "--size 64x64": resized so that the short side is 64, then the centre 64 x 64.
void applySize(const QString &text, loaderlab::PreprocessOptions &options)
{
    const QRegularExpression pattern(QStringLiteral("^(\\d{1,5})x(\\d{1,5})$"));
    const auto match = pattern.match(text);
    if (!match.hasMatch())
        throw std::invalid_argument("--size " + text.toStdString() + ": expected HxW, as in 64x64");
    const int height = match.captured(1).toInt();
    const int width = match.captured(2).toInt();
    if (height != width)
        throw std::invalid_argument("--size " + text.toStdString()
                                    + ": only square sizes (HxH) for now: the eval transform "
                                      "centre-crops a square");
    if (height < 1 || height > 4096)
        throw std::invalid_argument("--size " + text.toStdString()
                                    + ": expected a side from 1 to 4096");
    options.resizeSize = height;
    options.cropSize = height;
}

// The sbatch script: task K writes shard K into OUT_DIR. Refuses a path that holds
// a file other than such a script (it would be replaced).
int writePreprocessScript(const QCommandLineParser &parser, const std::string &in,
                          const std::string &out, int shards, int tasks, int threads)
{
    const std::string script = fs::absolute(
                                   parser.value(QStringLiteral("slurm-script")).toStdString())
                                   .lexically_normal()
                                   .string();
    if (const std::string why = loaderlab::slurmScriptPathProblem(script,
                                                                  loaderlab::kPreprocessScriptMark);
        !why.empty())
        throw std::invalid_argument("--slurm-script " + script + ": " + why
                                    + "; give the script a file of its own");
    const std::string binary = fs::canonical("/proc/self/exe").string();
    const std::string inDir = fs::absolute(in).lexically_normal().string();
    const std::string outDir = fs::absolute(out).lexically_normal().string();
    loaderlab::prepareShardFolder(inDir, outDir);
    loaderlab::SlurmJobArray a;
    a.comment = std::string(loaderlab::kPreprocessScriptMark) + ": " + std::to_string(tasks)
                + " tasks share " + std::to_string(shards) + " shards of\n# " + inDir
                + ": each takes the next shard no other task has taken, so a\n"
                  "# task that drew faster images takes more; the task that finds every "
                  "shard done\n"
                  "# writes manifest.json. Resumable: submitting again redoes only the shards "
                  "not done.\n"
                  "#   submit:  sbatch "
                + loaderlab::shellQuote(script) + "\n";
    a.jobName = "loaderlab-preprocess";
    a.tasks = tasks;
    a.logDir = outDir;
    a.cpusPerTask = std::max(threads, 1);
    for (const QString &option : parser.values(QStringLiteral("sbatch")))
        a.extra.push_back(option.toStdString());
    a.command = loaderlab::shellQuote(binary) + " preprocess " + loaderlab::shellQuote(inDir) + " "
                + loaderlab::shellQuote(outDir) + " --shards " + std::to_string(shards)
                + " --threads \"${SLURM_CPUS_PER_TASK:-1}\"" + " --dtype "
                + parser.value(QStringLiteral("dtype")).toStdString();
    if (parser.isSet(QStringLiteral("size")))
        a.command += " --size "
                     + loaderlab::shellQuote(parser.value(QStringLiteral("size")).toStdString());
    const std::string text = loaderlab::slurmJobArrayScript(a);
    loaderlab::writeFileAtomically(script, [&](std::ostream &o) { o << text; });
    ::chmod(script.c_str(), 0755);
    std::fprintf(stderr,
                 "wrote %s: a Slurm job array of %d tasks sharing %d shards of %s, into %s\n"
                 "submit it with: sbatch %s\n",
                 escapeForTerminal(script).c_str(), tasks, shards, escapeForTerminal(inDir).c_str(),
                 escapeForTerminal(outDir).c_str(),
                 escapeForTerminal(loaderlab::shellQuote(script)).c_str());
    return kOk;
}

int runShards(const std::string &in, const std::string &out,
              const loaderlab::PreprocessOptions &options, int shards, int shard)
{
    const auto result = loaderlab::preprocessShards(in, out, options, shards, shard,
                                                    progressPrinter("images"));
    printSkipped(result.skipped);
    for (const int k : result.kept)
        std::fprintf(stderr, "shard %d of %d: already done, kept\n", k, shards);
    for (const int k : result.busy)
        std::fprintf(stderr, "shard %d of %d: another process is writing it\n", k, shards);
    std::fprintf(stderr, "wrote %zu shard(s) with %lld samples (%zu skipped) into %s\n",
                 result.written.size(), static_cast<long long>(result.records),
                 result.skipped.size(), escapeForTerminal(out).c_str());
    if (!result.manifestPath.empty())
        std::fprintf(stderr,
                     "every shard is done: %s lists them as one dataset (--dataset "
                     "tensor --path %s)\n",
                     escapeForTerminal(result.manifestPath).c_str(),
                     escapeForTerminal(result.manifestPath).c_str());
    else
        std::fprintf(stderr, "%d of %d shards done; the manifest is written when all are\n",
                     result.shardsDone, shards);
    return kOk;
}

} // namespace

int preprocessCommand(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Decodes every image of IN_DIR with the eval transform (resize 256, center crop 224, "
        "normalise) and writes them as a tensor file; with --shards N, as N tensor files "
        "in the folder OUT and a manifest.json that lists them as one dataset."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("IN_DIR"), QStringLiteral("image folder"));
    parser.addPositionalArgument(QStringLiteral("OUT"),
                                 QStringLiteral("tensor file to write (with --shards: a folder)"));
    parser.addOptions({
        {QStringLiteral("dtype"),
         QStringLiteral("float32 (normalised, default) or uint8 (resized and cropped only)"),
         QStringLiteral("type"), QStringLiteral("float32")},
        {QStringLiteral("threads"), QStringLiteral("decoding threads (default: one per core)"),
         QStringLiteral("n"), QStringLiteral("0")},
        {QStringLiteral("size"),
         QStringLiteral("resize the short side to H and keep the centre H x W (square) instead "
                        "of 256 then 224"),
         QStringLiteral("HxW")},
        {QStringLiteral("shards"),
         QStringLiteral("cut the images, in order, into N shards written into the folder OUT"),
         QStringLiteral("N")},
        {QStringLiteral("shard"),
         QStringLiteral("write only shard I (0 to N-1), as one task of a job array"),
         QStringLiteral("I")},
        {QStringLiteral("slurm-script"),
         QStringLiteral("write an sbatch script whose job array's tasks share the shards out; "
                        "runs nothing"),
         QStringLiteral("FILE")},
        {QStringLiteral("slurm-tasks"),
         QStringLiteral("tasks of the job array (default: the shards, at most 8)"),
         QStringLiteral("T")},
        {QStringLiteral("sbatch"),
         QStringLiteral("a further #SBATCH option for --slurm-script (repeatable)"),
         QStringLiteral("option")},
    });
    if (const auto code = parseCommandLine(parser, arguments, "preprocess"))
        return *code;
    if (parser.positionalArguments().size() != 2) {
        std::fprintf(stderr, "loaderlab preprocess: expected IN_DIR and OUT\n");
        return kUsage;
    }
    const std::string in = parser.positionalArguments().at(0).toStdString();
    const std::string out = parser.positionalArguments().at(1).toStdString();
    loaderlab::PreprocessOptions options;
    try {
        const QString dtype = parser.value(QStringLiteral("dtype"));
        if (dtype == QLatin1String("uint8"))
            options.dtype = loaderlab::DType::UInt8;
        else if (dtype != QLatin1String("float32"))
            throw std::invalid_argument("--dtype: expected float32 or uint8");
        options.threads = intOption(parser, "threads", 0);
        if (parser.isSet(QStringLiteral("size")))
            applySize(parser.value(QStringLiteral("size")), options);
        const bool sharded = parser.isSet(QStringLiteral("shards"));
        const int shards = sharded ? intOption(parser, "shards") : 1;
        if (sharded && (shards < 1 || shards > 100000))
            throw std::invalid_argument("--shards: expected 1 to 100000");
        for (const char *name : {"shard", "slurm-script", "slurm-tasks"}) {
            if (parser.isSet(QString::fromLatin1(name)) && !sharded)
                throw std::invalid_argument(std::string("--") + name + ": goes with --shards N");
        }
        for (const char *name : {"sbatch", "slurm-tasks"}) {
            if (parser.isSet(QString::fromLatin1(name))
                && !parser.isSet(QStringLiteral("slurm-script")))
                throw std::invalid_argument(std::string("--") + name
                                            + ": goes with --slurm-script FILE");
        }
        loaderlab::setupLogging("warn"); // decode warnings name their file on stderr
        if (parser.isSet(QStringLiteral("slurm-script"))) {
            if (parser.isSet(QStringLiteral("shard")))
                throw std::invalid_argument("--shard: the job array's tasks share the shards out");
            const int tasks = parser.isSet(QStringLiteral("slurm-tasks"))
                                  ? intOption(parser, "slurm-tasks")
                                  : std::min(shards, 8);
            if (tasks < 1 || tasks > shards)
                throw std::invalid_argument("--slurm-tasks " + std::to_string(tasks)
                                            + ": expected 1 to the " + std::to_string(shards)
                                            + " shards (a task more would find none)");
            return writePreprocessScript(parser, in, out, shards, tasks, options.threads);
        }
        if (sharded) {
            const int shard = parser.isSet(QStringLiteral("shard")) ? intOption(parser, "shard")
                                                                    : -1;
            if (parser.isSet(QStringLiteral("shard")) && (shard < 0 || shard >= shards))
                throw std::invalid_argument("--shard " + std::to_string(shard) + ": expected 0 to "
                                            + std::to_string(shards - 1));
            return runShards(in, out, options, shards, shard);
        }
        const auto result = loaderlab::preprocessImageFolder(in, out, options,
                                                             progressPrinter("images"));
        printSkipped(result.skipped);
        std::fprintf(stderr, "wrote %lld samples to %s (%zu skipped)\n",
                     static_cast<long long>(result.written), escapeForTerminal(out).c_str(),
                     result.skipped.size());
    } catch (const loaderlab::DatasetError &e) {
        std::fprintf(stderr, "loaderlab preprocess: %s\n",
                     loaderlab::escapeForTerminal(e.what()).c_str());
        return kUsage;
    } catch (const std::invalid_argument &e) { // e.g. the output is one of the inputs
        std::fprintf(stderr, "loaderlab preprocess: %s\n",
                     loaderlab::escapeForTerminal(e.what()).c_str());
        return kUsage;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "loaderlab preprocess: %s\n",
                     loaderlab::escapeForTerminal(e.what()).c_str());
        return kFailed;
    }
    return kOk;
}

} // namespace loaderlab::cli
