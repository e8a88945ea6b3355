#pragma once

// A stand-in for the PyTorch engine's Python, for tests of how LoaderLab treats an
// engine that passes the check for torch and then misbehaves. writeFakePython writes
// an executable Python 3 script (standard library only) that answers the check (`-c`
// with a script that looks for torch and torchvision) with `check` (default: exit 0)
// and, run as the engine, sends a start record and 3 good batch records (numbered
// 0..2, times on CLOCK_MONOTONIC) on the records pipe (RECORDS, the engine's fd 3), then runs
// `body` (Python, at top level). Helpers in the script: emit(dict), line(text) (both
// on RECORDS), batch(i), note(pid) (appends a pid to <script>.pids); COMMANDS is the
// commands socket (fd 4).
// Every process the fixture starts notes its pid there, so a test can check that
// none is left; livingInGroup() finds what is left of a process group.

#include <QDir>
#include <QFile>
#include <QString>
#include <QStringList>
#include <QTextStream>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace faketest {

inline QString writeFakePython(const QString &dir, const QString &name, const QString &body,
                               const QString &check = QStringLiteral("sys.exit(0)"))
{
    const QString path = QDir(dir).filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    QTextStream out(&file);
    // Debian's interpreter itself where there is one: a wrapper on the PATH (pyenv's
    // shim) can take seconds to start on a busy machine. -S: no site packages.
    out << (QFile::exists(QStringLiteral("/usr/bin/python3")) ? "#!/usr/bin/python3 -S\n"
                                                              : "#!/usr/bin/env python3\n")
        << "import os, sys, time\n"
           "PIDS = os.path.abspath(__file__) + '.pids'\n"
           "def note(pid):\n"
           "    with open(PIDS, 'a') as f:\n"
           "        f.write('%d\\n' % pid)\n"
           "if sys.argv[1:2] == ['-c'] and len(sys.argv) == 3 and 'find_spec' in sys.argv[2]:\n"
           "    note(os.getpid())\n"
           "    "
        << check
        << "\n"
           "    sys.exit(0)\n"
           "import json, signal, subprocess\n"
           "note(os.getpid())\n"
           "settings = json.loads(sys.argv[-1])\n"
           "RECORDS = os.fdopen(settings.get('records_fd', 3), 'w')\n"
           "COMMANDS = settings.get('commands_fd', 4)\n"
           "def line(text):\n"
           "    RECORDS.write(text + '\\n')\n"
           "    RECORDS.flush()\n"
           "def emit(record):\n"
           "    line(json.dumps(record))\n"
           "def batch(i):\n"
           "    t = time.monotonic_ns()\n"
           "    return {'type': 'batch', 'index': i, 'epoch': 0, 'worker': -1, 'samples': 4,\n"
           "            'version': 0, 'first': 4 * i, 'ids': 0,\n"
           "            'load_start': t, 'collate_start': t, 'load_end': t, 'read': 0,\n"
           "            'decode': 0, 'transform': 0, 'request': t, 'delivery': t,\n"
           "            'compute_start': t, 'compute_end': t}\n"
           "emit({'type': 'start', 'torch': 'fake', 'samples': settings['samples'],\n"
           "      't0': time.monotonic_ns()})\n"
           "for i in range(3):\n"
           "    emit(batch(i))\n"
        << body << "\n";
    out.flush();
    file.close();
    file.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return path;
}

// The start of a fake engine that ignores SIGTERM, with a "worker" in its group that
// ignores it too and a holder in a session of its own that keeps stdout open; both
// pids are noted (worker first).
inline QString stubbornEngineStart()
{
    return QStringLiteral(
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "code = 'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        "time.sleep(600)'\n"
        "worker = subprocess.Popen([sys.executable, '-c', code])\n"
        "note(worker.pid)\n"
        "holder = subprocess.Popen([sys.executable, '-c', code], start_new_session=True)\n"
        "note(holder.pid)\n");
}

// The pids the fixture at `script` noted, in order.
inline std::vector<int> notedPids(const QString &script)
{
    std::vector<int> pids;
    std::ifstream in((script + QStringLiteral(".pids")).toStdString());
    for (int pid = 0; in >> pid;)
        pids.push_back(pid);
    return pids;
}

// Processes in process group `pgid` that are alive (zombies waiting for init to
// reap them do not count), from /proc.
inline std::vector<int> livingInGroup(int pgid)
{
    std::vector<int> found;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString &entry : entries) {
        bool number = false;
        const int pid = entry.toInt(&number);
        if (!number)
            continue;
        std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
        std::string stat;
        std::getline(in, stat);
        // pid (comm) state ppid pgrp ...: comm may hold spaces, so parse after ')'.
        const auto close = stat.rfind(')');
        if (close == std::string::npos)
            continue;
        char state = 0;
        int ppid = 0, group = 0;
        if (std::sscanf(stat.c_str() + close + 1, " %c %d %d", &state, &ppid, &group) == 3
            && group == pgid && state != 'Z' && state != 'X')
            found.push_back(pid);
    }
    return found;
}

inline bool alive(int pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat;
    std::getline(in, stat);
    const auto close = stat.rfind(')');
    return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z'
           && stat[close + 2] != 'X';
}

} // namespace faketest
