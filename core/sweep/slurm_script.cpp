#include "core/sweep/slurm_script.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace loaderlab {
namespace {

void checkOneLine(const std::string &what, const std::string &text)
{
    if (text.find_first_of("\r\n") != std::string::npos)
        throw std::invalid_argument(what + ": a line break cannot go into the script");
}

// sbatch expands %A, %a, %j, ... in --output and --error paths and takes "%%" for
// a literal '%'; a backslash anywhere in the pattern turns the expansion off, and
// with it the %A_%a that keeps the tasks' logs apart.
std::string slurmFilenamePattern(const std::string &dir)
{
    if (dir.find('\\') != std::string::npos)
        throw std::invalid_argument(dir
                                    + ": a backslash cannot go into an #SBATCH --output path "
                                      "(Slurm would not expand %A_%a there)");
    std::string escaped;
    for (const char c : dir)
        escaped += c == '%' ? std::string("%%") : std::string(1, c);
    return escaped;
}

} // namespace

int defaultSlurmTasks(std::int64_t cells)
{
    return static_cast<int>(std::clamp<std::int64_t>(cells, 1, 8));
}

std::string slurmScriptPathProblem(const std::string &path, const char *mark)
{
    std::error_code ec;
    if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec)))
        return {};
    if (!std::filesystem::is_regular_file(path, ec))
        return "is not a regular file";
    std::ifstream in(path);
    std::string first, second;
    std::getline(in, first);
    std::getline(in, second);
    if (first == "#!/bin/bash" && second.starts_with(mark))
        return {};
    return "is a file LoaderLab did not write as such a script";
}

std::string shellQuote(const std::string &text)
{
    std::string quoted = "'";
    for (const char c : text) {
        if (c == '\'')
            quoted += "'\\''";
        else
            quoted += c;
    }
    return quoted + "'";
}

std::string slurmJobArrayScript(const SlurmJobArray &a)
{
    if (a.tasks < 1)
        throw std::invalid_argument("the job array needs at least 1 task");
    checkOneLine(a.logDir, a.logDir);
    if (!a.logDir.starts_with('/'))
        throw std::invalid_argument(a.logDir + ": the script needs an absolute path");
    checkOneLine("job name", a.jobName);
    checkOneLine("command", a.command);
    for (const std::string &option : a.extra) {
        checkOneLine(option, option);
        if (!option.starts_with('-'))
            throw std::invalid_argument("'" + option
                                        + "': an sbatch option starts with '-', as in "
                                          "--partition=gpu");
    }
    // sbatch reads #SBATCH lines as words: double quotes keep a path with spaces whole.
    if (a.logDir.find('"') != std::string::npos)
        throw std::invalid_argument(a.logDir + ": a double quote cannot go into an #SBATCH line");
    std::string s = "#!/bin/bash\n" + a.comment;
    s += "#SBATCH --job-name=" + a.jobName + "\n";
    s += "#SBATCH --array=0-" + std::to_string(a.tasks - 1) + "\n";
    if (a.exclusive)
        s += "#SBATCH --exclusive\n";
    if (a.cpusPerTask > 0)
        s += "#SBATCH --cpus-per-task=" + std::to_string(a.cpusPerTask) + "\n";
    s += "#SBATCH --output=\"" + slurmFilenamePattern(a.logDir) + "/slurm-%A_%a.out\"\n";
    for (const std::string &option : a.extra)
        s += "#SBATCH " + option + "\n";
    s += "set -euo pipefail\n";
    s += "exec " + a.command + "\n";
    return s;
}

std::string slurmArrayScript(const SlurmScriptOptions &o)
{
    if (o.cells > 0 && o.tasks > o.cells)
        throw std::invalid_argument(std::to_string(o.tasks) + " tasks for "
                                    + std::to_string(o.cells)
                                    + " cells: a task would have nothing to run");
    for (const auto *path : {&o.loaderlab, &o.resultsDir, &o.scriptPath}) {
        checkOneLine(*path, *path);
        if (!path->starts_with('/'))
            throw std::invalid_argument(*path + ": the script needs an absolute path");
    }
    const std::string dir = o.resultsDir;
    SlurmJobArray a;
    a.comment = std::string(kSweepScriptMark) + ": " + std::to_string(o.tasks) + " tasks over "
                + std::to_string(o.cells) + " cells.\n"
                + "# Task K runs the cells whose order modulo " + std::to_string(o.tasks)
                + " is K (its shard, from\n"
                  "# SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT). Every task resumes the same\n"
                  "# results folder, on storage the nodes share: a task that ends early keeps its\n"
                  "# finished cells, and submitting again runs only the rest.\n"
                  "#   submit:        sbatch "
                + shellQuote(o.scriptPath) + "\n" + "#   when it ends:  " + shellQuote(o.loaderlab)
                + " sweep report " + shellQuote(dir) + "\n";
    a.jobName = o.jobName;
    a.tasks = o.tasks;
    a.logDir = dir;
    // One cell at a time per node: cells that share a node skew each other.
    a.exclusive = true;
    a.extra = o.extra;
    a.command = shellQuote(o.loaderlab) + " sweep --out " + shellQuote(dir);
    return slurmJobArrayScript(a);
}

} // namespace loaderlab
