"""loaderlab_probe: LoaderLab's probe for PyTorch data pipelines.

Three uses, standard library only (torch is imported by watch() and data_parallel()
alone):

stage(name)
    Marks a stage of a sample's loading inside a Dataset's __getitem__ (or an
    IterableDataset's __iter__):

        with stage("decode"):
            image = decode(data)

    Where LoaderLab times the samples (a pipeline file run by LoaderLab's PyTorch
    engine, or a DataLoader under watch()), the time inside is added to the sample's
    "read", "decode" or "transform" time; any other name counts as "transform".
    Elsewhere it costs two clock reads.

watch(loader, out="run")
    Records every batch a DataLoader delivers to a training loop into LoaderLab's run
    format: out + ".csv" (one row per batch, written as the loop goes) and
    out + ".json" (the run's summary: the DataLoader's settings, state "running"
    while the loop goes; "finished" after close() or at the program's exit, "failed"
    with the exception when the program ends on one).
    A SIGTERM (a job's time limit, `kill`, `scancel`) ends the run "stopped" with
    the signal, and the process then ends as it would have without the probe: the
    script's own SIGTERM handler is called, or the signal's default kills it; a
    SIGTERM the script ignores stays ignored.
    Under torch.distributed each rank writes out + ".rank<R>.csv/.json" (R from
    RANK or SLURM_PROCID, the ranks from WORLD_SIZE or SLURM_NTASKS; a rank
    outside 0..WORLD_SIZE-1, or a world size that is not a number from 1 to 64, is
    refused). LoaderLab's File > Open run... and File > Follow run... read them.

What the probe never does to your files. Besides out.csv and out.json it uses
out.csv.part and out.json.part (each file is written to its .part, created new,
then renamed into place) and out.lock (held while the run records, removed at
its end). It replaces a file under those names only when an earlier run of the
probe wrote it: out.json a summary with "format": "loaderlab-summary-2" and a
"probe" object, out.csv (only beside such a JSON) beginning with the probe's CSV
header, a .part or out.lock beginning as the probe writes them (or empty). It
never writes through a symbolic link, never writes to or replaces a file with
more than one hard link, never opens an existing file for writing, and takes
out.lock with flock() so two processes never record under one name (the lock
goes with a process that dies: a killed run's lock never blocks the next). When
any name is taken by something else (a dataset's train.csv under out="train", a
link, another process recording), the probe records nothing, says why in one
RuntimeWarning naming the file, and the loop goes on with that file untouched.

The probe never raises into the loop: when a write fails it stops recording with
one warning.

data_parallel(model, **options)
    `model` wrapped in torch's DistributedDataParallel when it runs as one of
    several ranks (a pipeline file's make_step under LoaderLab's PyTorch engine with
    devices > 1, or any program that has initialised torch.distributed with more
    than one rank), so that its backward pass all-reduces the real gradients; the
    model itself otherwise. `options` go to DistributedDataParallel.

`loaderlab python-path` prints the folder that holds this file.
"""

import atexit
import json
import os
import signal
import socket
import stat
import sys
import threading
import time
import types
import warnings

try:
    import fcntl
except ImportError:  # not a POSIX system: runs are not locked
    fcntl = None

__all__ = ["stage", "watch", "data_parallel"]

_STAGES = ("read", "decode", "transform")
_local = threading.local()  # .sums: the stage sums of the sample being timed


class stage:
    """A context manager adding its time to the current sample's stage `name`."""

    __slots__ = ("name", "start")

    def __init__(self, name):
        self.name = name if name in _STAGES else "transform"

    def __enter__(self):
        self.start = time.monotonic_ns()
        return self

    def __exit__(self, *_exc):
        sums = getattr(_local, "sums", None)
        if sums is not None:
            sums[self.name] += time.monotonic_ns() - self.start
        return False


def begin_sample():
    """Starts timing one sample's stages (LoaderLab's engine and watch() call it)."""
    sums = {"read": 0, "decode": 0, "transform": 0}
    _local.sums = sums
    return sums


def end_sample():
    _local.sums = None


# ---------------------------------------------------------------------------------
# watch(): the batches of a DataLoader in a training loop.

_CSV_COLUMNS = (
    "index,epoch,worker,samples,skipped,config_version,dispatch_ns,load_start_ns,"
    "load_end_ns,read_ns,decode_ns,transform_ns,collate_ns,ready_ns,pin_start_ns,"
    "pin_end_ns,request_ns,delivery_ns,wait_ns,copy_start_ns,copy_end_ns,"
    "compute_start_ns,compute_end_ns,rank")
_FLUSH_NS = 250_000_000  # the CSV reaches the disk at least this often


class _ProbeBatch:
    """A worker's batch with its timing, through DataLoader's queue to the loop."""

    __slots__ = ("batch", "info")

    def __init__(self, batch, info):
        self.batch = batch
        self.info = info

    def pin_memory(self, *args):
        # DataLoader's pin thread calls this for a type it does not know: pin the
        # batch itself, as it would have without the probe.
        from torch.utils.data._utils.pin_memory import pin_memory
        self.batch = pin_memory(self.batch, *args)
        return self


def _timed_fetch(fetcher, index):
    """What DataLoader's fetchers do, with the batch's load span and the stages its
    samples mark timed (one pair of clock reads a batch: the CSV has no per-sample
    span, so none is taken)."""
    start = time.monotonic_ns()
    dataset = fetcher.dataset
    if hasattr(fetcher, "dataset_iter"):  # an IterableDataset
        if not fetcher.auto_collation:
            data = next(fetcher.dataset_iter)
            return _ProbeBatch(fetcher.collate_fn(data), None)
        data = []
        sums = begin_sample()
        try:
            for _ in index:
                try:
                    data.append(next(fetcher.dataset_iter))
                except StopIteration:
                    fetcher.ended = True
                    break
        finally:
            end_sample()
        if not data or (fetcher.drop_last and len(data) < len(index)):
            raise StopIteration
    elif not fetcher.auto_collation:
        return _ProbeBatch(fetcher.collate_fn(dataset[index]), None)
    else:
        sums = begin_sample()
        try:
            if getattr(dataset, "__getitems__", None):
                data = dataset.__getitems__(index)
            else:
                data = [dataset[i] for i in index]
        finally:
            end_sample()
    read, decode, transform = sums["read"], sums["decode"], sums["transform"]
    collate = time.monotonic_ns()
    batch = fetcher.collate_fn(data)
    worker = -1
    try:
        from torch.utils.data import get_worker_info
        info = get_worker_info()
        worker = info.id if info is not None else -1
    except Exception:  # noqa: BLE001 - timing must never break the loader
        pass
    return _ProbeBatch(batch, (worker, start, collate, time.monotonic_ns(), read, decode,
                               transform, len(data)))


def _patch_fetchers():
    """Makes this process's DataLoader fetchers time their samples (in a worker)."""
    from torch.utils.data._utils import fetch
    for name in ("_MapDatasetFetcher", "_IterableDatasetFetcher"):
        cls = getattr(fetch, name, None)
        if cls is not None and not getattr(cls, "_loaderlab_probe", False):
            cls.fetch = _timed_fetch
            cls._loaderlab_probe = True


class _WorkerInit:
    """The loader's worker_init_fn, run first in each worker: the timed fetchers."""

    def __init__(self, inner):
        self.inner = inner

    def __call__(self, worker_id):
        try:
            _patch_fetchers()
        except Exception:  # noqa: BLE001 - without it only the batch is timed
            pass
        if self.inner is not None:
            self.inner(worker_id)


class _Refused(Exception):
    """A recording the probe will not make, and why (its warning)."""


_MAX_RANKS = 64  # LoaderLab reads a set of at most this many ranks


def _rank():
    """(rank, world size) from RANK or SLURM_PROCID and WORLD_SIZE or SLURM_NTASKS;
    (0, 1) outside a job. Raises _Refused when they name no rank of a job."""
    def first(*keys):
        for key in keys:
            if os.environ.get(key, "").strip():
                return key, os.environ[key].strip()
        return None, ""

    def number(text):
        return int(text) if text.isascii() and text.isdigit() else -1

    rank_key, rank_text = first("RANK", "SLURM_PROCID")
    if rank_key is None:
        return 0, 1
    world_key, world_text = first("WORLD_SIZE", "SLURM_NTASKS")
    rank, world = number(rank_text), number(world_text) if world_key else 1
    if 0 <= rank < world <= _MAX_RANKS:
        return rank, world
    raise _Refused(
        "%s=%s with %s names no rank of the job (the rank must be 0 to %s-1, %s a number "
        "from 1 to %d); LoaderLab could not open what it recorded"
        % (rank_key, rank_text,
           "%s=%s" % (world_key, world_text) if world_key else "no WORLD_SIZE",
           world_key or "WORLD_SIZE", world_key or "WORLD_SIZE", _MAX_RANKS))


# The run's files. Each is created new (O_EXCL: nothing existing is ever opened for
# writing; O_NOFOLLOW: never through a symbolic link) and what is there already is
# replaced only when an earlier run of the probe wrote it (see the module's help).

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_NEW = os.O_CREAT | os.O_EXCL | _NOFOLLOW  # with O_WRONLY or O_RDWR
_EXISTING = _NOFOLLOW | getattr(os, "O_NONBLOCK", 0)  # a FIFO never blocks the open
_CSV_START = (_CSV_COLUMNS + "\n").encode()
_JSON_START = b'{\n "format": "loaderlab-summary-2",'
_LOCK_START = b"loaderlab_probe lock"
_MAX_JSON_BYTES = 1 << 20


def _lstat(path):
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def _file_id(info):
    return (info.st_dev, info.st_ino)


def _link_problem(path, info):
    """Why the probe leaves `path` (its lstat `info`) alone whatever it holds, or None."""
    if stat.S_ISLNK(info.st_mode):
        try:
            target = " (to %s)" % os.readlink(path)
        except OSError:
            target = ""
        return "%s is a symbolic link%s; the probe never writes through one" % (path, target)
    if not stat.S_ISREG(info.st_mode):
        return "%s is not a regular file" % path
    if info.st_nlink > 1:
        return ("%s has %d hard links; the probe never writes to or replaces a file with "
                "other names" % (path, info.st_nlink))
    return None


def _lstat_plain(path):
    """The lstat of `path`, None when it is not there; raises _Refused for a link or
    anything but a regular file."""
    info = _lstat(path)
    problem = info is not None and _link_problem(path, info)
    if problem:
        raise _Refused(problem)
    return info


def _read_head(path, size):
    """Up to `size` bytes from the start of the regular file `path` (opened without
    following a link, without blocking on a FIFO); None when it is no regular file."""
    try:
        fd = os.open(path, os.O_RDONLY | _EXISTING)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = b""
        while len(data) < size:
            chunk = os.read(fd, size - len(data))
            if not chunk:
                break
            data += chunk
        return data
    finally:
        os.close(fd)


def _is_probe_summary(path):
    data = _read_head(path, _MAX_JSON_BYTES + 1)
    if not data or len(data) > _MAX_JSON_BYTES:
        return False
    try:
        summary = json.loads(data.decode("utf-8"))
    except ValueError:
        return False
    return (isinstance(summary, dict) and summary.get("format") == "loaderlab-summary-2"
            and isinstance(summary.get("probe"), dict))


def _begins_as(data, start):
    """`data` is what the probe writes beginning with `start`, or a piece of that."""
    return data is not None and (data.startswith(start) or start.startswith(data))


class _Files:
    """The names one recording uses: out.csv, out.json, their .part files and
    out.lock, which is held (flock) while the run records."""

    def __init__(self, base):
        self.base = base
        self.csv_path, self.json_path = base + ".csv", base + ".json"
        self.lock_path = base + ".lock"
        self.lock_fd = None
        self.json_id = None  # the file under json_path that may be replaced

    def start(self):
        """Locks the name, checks every file under it and creates the CSV with its
        header: the CSV's file object. Raises _Refused naming a file it leaves alone."""
        self._lock()
        try:
            csv_id, self.json_id = self._check()
            fd = os.open(self.csv_path + ".part", os.O_WRONLY | _NEW, 0o666)
            csv = os.fdopen(fd, "w", encoding="utf-8")
            try:
                csv.write(_CSV_COLUMNS + "\n")
                csv.flush()
                self._place(self.csv_path + ".part", self.csv_path, csv_id)
            except BaseException:
                csv.close()
                raise
            return csv
        except BaseException:
            self.unlock()
            raise

    def _check(self):
        """The ids of out.csv and out.json, None for one not there, once it is certain
        that an earlier run of the probe wrote them; stale .part files it left are
        removed."""
        csv_id, json_id = (None if info is None else _file_id(info)
                           for info in map(_lstat_plain, (self.csv_path, self.json_path)))
        not_ours = ("%s exists and is not a file of an earlier loaderlab_probe run; the probe "
                    "never replaces it (give watch() another out=)")
        if json_id is not None and not _is_probe_summary(self.json_path):
            raise _Refused(not_ours % self.json_path)
        if csv_id is not None and (json_id is None or _read_head(
                self.csv_path, len(_CSV_START)) != _CSV_START):
            raise _Refused(not_ours % self.csv_path)
        for path, start in ((self.csv_path + ".part", _CSV_START),
                            (self.json_path + ".part", _JSON_START)):
            if _lstat_plain(path) is None:
                continue
            if not _begins_as(_read_head(path, len(start)), start):
                raise _Refused("%s exists and is not a file an interrupted loaderlab_probe "
                               "run left; the probe never replaces it (remove it, or give "
                               "watch() another out=)" % path)
            os.unlink(path)  # what an interrupted write of the probe left
        return csv_id, json_id

    def _place(self, part, path, replaces):
        """Renames `part` to `path`, replacing only the file `replaces` names (None:
        nothing; a file that appeared meanwhile is left alone)."""
        info = _lstat(path)
        if info is None:
            try:
                os.link(part, path)  # fails where something appeared: never replaces
                os.unlink(part)
                return
            except FileExistsError:
                pass
            except OSError:  # a file system without hard links
                if _lstat(path) is None:
                    os.replace(part, path)
                    return
        elif _file_id(info) == replaces and not _link_problem(path, info):
            os.replace(part, path)
            return
        os.unlink(part)
        raise _Refused("%s changed while the probe recorded; it is left as it is" % path)

    def write_json(self, text):
        """Writes the summary to a new out.json.part and renames it over out.json."""
        part = self.json_path + ".part"
        fd = os.open(part, os.O_WRONLY | _NEW, 0o666)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
                written = _file_id(os.fstat(f.fileno()))
        except BaseException:
            os.unlink(part)
            raise
        self._place(part, self.json_path, self.json_id)
        self.json_id = written

    def _lock(self):
        if fcntl is None:
            return
        for _attempt in range(8):
            fd = self._open_lock()
            if fd is None:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
                os.close(fd)
                raise _Refused("another process records under %s (%s: %s); give each run "
                               "its own out=" % (self.base, self.lock_path, holder or "locked"))
            except OSError:
                pass  # a file system without flock() (Lustre's default): not locked
            # Still the file under the name (its last holder removes it as it ends)?
            now = _lstat(self.lock_path)
            if now is not None and _file_id(now) == _file_id(os.fstat(fd)):
                text = "%s: pid %d on %s\n" % (_LOCK_START.decode(), os.getpid(),
                                               socket.gethostname())
                os.ftruncate(fd, 0)
                os.pwrite(fd, text.encode(), 0)
                self.lock_fd = fd
                return
            os.close(fd)
        raise _Refused("%s keeps changing; no run is recorded under it" % self.lock_path)

    def _open_lock(self):
        """The lock file, created or one the probe made before; None when it went."""
        try:
            return os.open(self.lock_path, os.O_RDWR | _NEW, 0o666)
        except FileExistsError:
            pass
        info = _lstat_plain(self.lock_path)
        if info is None:
            return None
        fd = os.open(self.lock_path, os.O_RDWR | _EXISTING)
        opened = os.fstat(fd)
        if (_file_id(opened) != _file_id(info) or _link_problem(self.lock_path, opened)
                or not _begins_as(os.pread(fd, len(_LOCK_START), 0), _LOCK_START)):
            os.close(fd)
            raise _Refused("%s exists and is not a lock file of loaderlab_probe; the probe "
                           "never replaces it (give watch() another out=)" % self.lock_path)
        return fd

    def unlock(self):
        """Removes the lock file (while still holding it) and releases it."""
        fd, self.lock_fd = self.lock_fd, None
        if fd is None:
            return
        try:
            now = _lstat(self.lock_path)
            if now is not None and _file_id(now) == _file_id(os.fstat(fd)):
                os.unlink(self.lock_path)
        finally:
            os.close(fd)


def _pid_namespace():
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""


class _Recorder:
    """The run's files: the CSV as it goes, the JSON at the start and the end."""

    def __init__(self, loader, out):
        self.rank, self.world = _rank()
        base = os.path.abspath(os.fspath(out))  # the script may change its folder
        if self.world > 1:
            base += ".rank%d" % self.rank
        self.files = _Files(base)
        self.t0 = time.monotonic_ns()
        self.start_unix_ns = time.time_ns()
        self.loader = loader
        self.failed = False
        self.index = 0
        self.epoch = -1
        self.pending = None  # the last batch's row, finished at the next request
        self.last_flush = self.t0
        self.state = "running"
        self.error = ""
        self.csv = self.files.start()
        try:
            self.write_json()
        except BaseException:
            self.csv.close()
            self.files.unlock()
            raise

    def config(self):
        loader = self.loader
        workers = int(loader.num_workers)
        sampler = type(getattr(loader, "sampler", None)).__name__
        loader_config = {
            "batch_size": int(loader.batch_size or 1),
            "num_workers": workers,
            "pin_memory": bool(loader.pin_memory),
            "drop_last": bool(loader.drop_last),
            "shuffle": sampler == "RandomSampler",
        }
        if workers > 0:
            loader_config["prefetch_factor"] = int(loader.prefetch_factor or 2)
            loader_config["persistent_workers"] = bool(loader.persistent_workers)
        script = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
        return {"engine": "pytorch", "devices": self.world, "epochs": 0, "max_batches": 0,
                "warmup_batches": 0,
                "dataset": {"kind": "python", "path": script},
                "loader": loader_config, "consumer": {"kind": "none"}}

    def write_json(self):
        import platform
        versions = {"engine": "pytorch", "probe": "1"}
        torch = sys.modules.get("torch")
        if torch is not None:
            versions["torch"] = torch.__version__
        summary = {
            "format": "loaderlab-summary-2",
            "config": self.config(), "config_versions": [],
            "dataset": "%s in %s (loaderlab_probe.watch)" % (
                type(self.loader.dataset).__name__, os.path.basename(sys.argv[0] or "python")),
            # "batches": the CSV's rows once the run has ended (a follower reads to it).
            "state": self.state, "error": self.error, "summary": {"batches": self.index},
            "machine": {"hostname": socket.gethostname(), "os": platform.platform(),
                        "logical_cores": os.cpu_count() or 0, "versions": versions},
            # Who writes the run: a follower on this host whose writer has died
            # (SIGKILL, out of memory) knows the run ended without its summary.
            "probe": {"rank": self.rank, "world_size": self.world,
                      "start_unix_ns": self.start_unix_ns, "host": socket.gethostname(),
                      "pid": os.getpid(), "pid_namespace": _pid_namespace(),
                      "batches": self.index},
        }
        self.files.write_json(json.dumps(summary, indent=1) + "\n")

    def row(self, request):
        """Writes the pending batch's row, its step ending at `request`."""
        r = self.pending
        self.pending = None
        wait = r["delivery"] - r["request"]
        info = r["info"]
        if info is None:
            worker, start, collate, end, read, decode, transform, samples = (
                -1, r["request"], r["delivery"], r["delivery"], 0, 0, 0, r["samples"])
        else:
            worker, start, collate, end, read, decode, transform, samples = info
        t0 = self.t0
        load_start, load_end = max(0, start - t0), max(0, end - t0)
        fields = (r["index"], r["epoch"], worker, samples, 0, 0, 0, load_start, load_end,
                  read, decode, transform, max(0, end - collate), load_end, 0, 0,
                  r["request"] - t0, r["delivery"] - t0, wait, 0, 0,
                  r["delivery"] - t0, max(r["delivery"], request) - t0, self.rank)
        self.csv.write(",".join(map(str, fields)) + "\n")
        if request - self.last_flush > _FLUSH_NS:
            self.csv.flush()
            self.last_flush = request

    def batch(self, request, delivery, item):
        if self.pending is not None:
            self.row(request)
        info, samples = None, 0
        if isinstance(item, _ProbeBatch):
            item, info = item.batch, item.info
        if info is None:
            samples = _batch_samples(item)
        self.pending = {"index": self.index, "epoch": self.epoch, "request": request,
                        "delivery": delivery, "info": info, "samples": samples}
        self.index += 1
        return item

    def end_epoch(self, request):
        if self.pending is not None:
            self.row(request)
        self.csv.flush()

    def finish(self, state="finished", error=""):
        if self.csv.closed:
            return
        self.end_epoch(time.monotonic_ns())
        self.csv.close()
        self.state, self.error = state, error
        self.write_json()


def _batch_samples(batch):
    """The samples in a batch the probe did not see built: its first tensor's length."""
    while isinstance(batch, (list, tuple)) and batch:
        batch = batch[0]
    if isinstance(batch, dict) and batch:
        return _batch_samples(next(iter(batch.values())))
    shape = getattr(batch, "shape", None)
    return int(shape[0]) if shape else 1


class _WatchedIterator:
    def __init__(self, watched, iterator):
        self.watched = watched
        self.iterator = iterator

    def __iter__(self):
        return self

    def __next__(self):
        recorder = self.watched._recorder
        if recorder is not None and recorder.pending is not None and not recorder.failed:
            # The last batch's row, before this request: the probe's own time falls
            # between that batch's step and this batch's wait, in neither.
            now = time.monotonic_ns()
            self.watched._call(lambda: recorder.row(now))
        request = time.monotonic_ns()
        try:
            item = next(self.iterator)
        except StopIteration:
            if recorder is not None:
                self.watched._call(lambda: recorder.end_epoch(request))
            raise
        delivery = time.monotonic_ns()
        if recorder is None or recorder.failed:
            return item.batch if isinstance(item, _ProbeBatch) else item
        result = self.watched._call(lambda: recorder.batch(request, delivery, item))
        if result is _FAILED:
            return item.batch if isinstance(item, _ProbeBatch) else item
        return result

    def __len__(self):
        return len(self.iterator)

    def __getattr__(self, name):
        return getattr(self.iterator, name)


_FAILED = object()


_watched = []  # the loaders recording, closed as "failed" by an uncaught exception


def _excepthook(kind, value, trace, previous=sys.excepthook):
    for loader in list(_watched):
        loader.close("failed", "%s: %s" % (kind.__name__, value))
    previous(kind, value, trace)


def _warn(message):
    """One warning, shown at the script's line that called the probe; never an
    exception, even where warnings are made errors (-W error)."""
    try:
        level, frame = 2, sys._getframe(1)
        while frame is not None and frame.f_globals.get("__name__") == __name__:
            level, frame = level + 1, frame.f_back
        warnings.warn(message, RuntimeWarning, stacklevel=level)
    except Exception:  # noqa: BLE001 - never into the training loop
        try:
            sys.stderr.write("RuntimeWarning: %s\n" % message)
        except Exception:  # noqa: BLE001
            pass


# SIGTERM: the runs end "stopped", then the process does what it did without the
# probe. Python runs the handler in the main thread between two bytecodes, maybe in
# the middle of the probe's own writing there (_local.busy): it then waits for that.

_sigterm = None  # (the pid that installed the handler, the handler it replaced)


def _install_sigterm():
    global _sigterm
    if _sigterm is not None or threading.current_thread() is not threading.main_thread():
        return
    try:
        previous = signal.getsignal(signal.SIGTERM)
        # Ignored, or handled by code outside Python: left as it is.
        if previous is None or previous == signal.SIG_IGN or previous is _on_sigterm:
            return
        signal.signal(signal.SIGTERM, _on_sigterm)
        _sigterm = (os.getpid(), previous)
    except (AttributeError, ValueError, OSError):
        pass


def _stop_all(error):
    for loader in list(_watched):
        loader.close("stopped", error)


def _on_sigterm(signum, frame):
    pid, previous = _sigterm
    ours = os.getpid() == pid  # not a forked child that inherited the handler
    if ours and getattr(_local, "busy", 0):
        _local.deferred = (signum, frame)
        return None
    if callable(previous):
        try:
            return previous(signum, frame)  # the script's own: it may go on
        except BaseException:
            if ours:
                _stop_all("SIGTERM: the script's handler ended it")
            raise
    if ours:
        _stop_all("SIGTERM")
    signal.signal(signum, signal.SIG_DFL)  # the default: end as without the probe
    os.kill(os.getpid(), signum)
    return None


def _after_fork_in_child():
    # A forked child (a DataLoader worker) never holds the parent's lock on its run.
    for loader in _watched:
        recorder = loader._recorder
        if recorder is not None and recorder.files.lock_fd is not None:
            try:
                os.close(recorder.files.lock_fd)
            except OSError:
                pass
            recorder.files.lock_fd = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


class WatchedLoader:
    """A DataLoader whose batches are recorded (what watch() returns). Everything
    but iteration is the DataLoader's own."""

    def __init__(self, loader, out):
        self._loader = loader
        self._recorder = None
        self._warned = False
        self._pid = os.getpid()  # a forked child's exit never ends the run
        self._call(lambda: self._start(out))
        if not _watched and sys.excepthook is not _excepthook:
            sys.excepthook = _excepthook
        _watched.append(self)
        atexit.register(self.close)

    def _start(self, out):
        self._recorder = _Recorder(self._loader, out)
        if self._loader.num_workers > 0:
            self._loader.worker_init_fn = _WorkerInit(self._loader.worker_init_fn)
        _install_sigterm()

    def _call(self, work):
        """Runs a piece of the probe's work; a failure stops recording, with one warning."""
        recorder = self._recorder
        if recorder is not None and recorder.failed:
            return _FAILED
        busy = getattr(_local, "busy", 0)
        _local.busy = busy + 1
        try:
            return work()
        except Exception as error:  # noqa: BLE001 - never into the training loop
            if recorder is not None:
                recorder.failed = True
            if not self._warned:
                self._warned = True
                if isinstance(error, _Refused):
                    what = "records nothing" if recorder is None else "stopped recording"
                    _warn("loaderlab_probe %s: %s" % (what, error))
                else:
                    _warn("loaderlab_probe stopped recording: %s: %s"
                          % (type(error).__name__, error))
            return _FAILED
        finally:
            _local.busy = busy
            if not busy and getattr(_local, "deferred", None) is not None:
                deferred, _local.deferred = _local.deferred, None
                _on_sigterm(*deferred)  # a SIGTERM that came while the probe wrote

    def __iter__(self):
        recorder = self._recorder
        iterator = iter(self._loader)
        if recorder is not None and not recorder.failed:
            recorder.epoch += 1
            # Without workers this process fetches: time this iterator's fetcher
            # only, never another DataLoader's.
            fetcher = getattr(iterator, "_dataset_fetcher", None)
            if fetcher is not None:
                self._call(lambda: setattr(fetcher, "fetch",
                                           types.MethodType(_timed_fetch, fetcher)))
        return _WatchedIterator(self, iterator)

    def __len__(self):
        return len(self._loader)

    def __getattr__(self, name):
        return getattr(self._loader, name)

    def close(self, state="finished", error=""):
        """Writes the last row and the final summary (also at the program's exit)."""
        recorder = self._recorder
        if os.getpid() != self._pid:
            return
        if self in _watched:
            _watched.remove(self)
        if recorder is not None:
            if not recorder.failed:
                self._call(lambda: recorder.finish(state, error))
            try:
                recorder.files.unlock()  # the run is over, or it cannot be written
            except OSError:
                pass


def watch(loader, out="run"):
    """Records `loader`'s batches into out.csv and out.json (see the module's help)."""
    return WatchedLoader(loader, out)


def data_parallel(model, **options):
    """`model` under DistributedDataParallel where torch.distributed runs with more
    than one rank; `model` itself otherwise (see the module's help)."""
    import torch.distributed as dist
    if not (dist.is_available() and dist.is_initialized()) or dist.get_world_size() < 2:
        return model
    from torch.nn.parallel import DistributedDataParallel
    return DistributedDataParallel(model, **options)
