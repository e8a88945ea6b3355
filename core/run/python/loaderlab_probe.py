"""loaderlab_probe: LoaderLab's probe for PyTorch data pipelines.

Two uses, standard library only (torch is imported by watch() alone):

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
    Under torch.distributed each rank writes out + ".rank<R>.csv/.json" (R from
    RANK or SLURM_PROCID). LoaderLab's File > Open run... and File > Follow run...
    read them. The probe never raises into the loop: when a write fails it stops
    recording with one warning.

`loaderlab python-path` prints the folder that holds this file.
"""

import atexit
import json
import os
import socket
import sys
import threading
import time
import types
import warnings

__all__ = ["stage", "watch"]

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


def _rank():
    for key in ("RANK", "SLURM_PROCID"):
        value = os.environ.get(key, "")
        if value.isdigit():
            world = os.environ.get("WORLD_SIZE") or os.environ.get("SLURM_NTASKS") or "1"
            return int(value), max(1, int(world) if world.isdigit() else 1)
    return 0, 1


def _write_atomically(path, text):
    part = path + ".part"
    with open(part, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(part, path)


class _Recorder:
    """The run's files: the CSV as it goes, the JSON at the start and the end."""

    def __init__(self, loader, out):
        self.rank, self.world = _rank()
        base = os.fspath(out)
        if self.world > 1:
            base += ".rank%d" % self.rank
        self.csv_path, self.json_path = base + ".csv", base + ".json"
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
        self.csv = open(self.csv_path, "w", encoding="utf-8")
        self.csv.write(_CSV_COLUMNS + "\n")
        self.csv.flush()
        self.write_json()

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
            "probe": {"rank": self.rank, "world_size": self.world,
                      "start_unix_ns": self.start_unix_ns, "host": socket.gethostname(),
                      "batches": self.index},
        }
        _write_atomically(self.json_path, json.dumps(summary, indent=1) + "\n")

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


class WatchedLoader:
    """A DataLoader whose batches are recorded (what watch() returns). Everything
    but iteration is the DataLoader's own."""

    def __init__(self, loader, out):
        self._loader = loader
        self._recorder = None
        self._warned = False
        self._call(lambda: self._start(out))
        if not _watched and sys.excepthook is not _excepthook:
            sys.excepthook = _excepthook
        _watched.append(self)
        atexit.register(self.close)

    def _start(self, out):
        self._recorder = _Recorder(self._loader, out)
        if self._loader.num_workers > 0:
            self._loader.worker_init_fn = _WorkerInit(self._loader.worker_init_fn)

    def _call(self, work):
        """Runs a piece of the probe's work; a failure stops recording, with one warning."""
        recorder = self._recorder
        if recorder is not None and recorder.failed:
            return _FAILED
        try:
            return work()
        except Exception as error:  # noqa: BLE001 - never into the training loop
            if recorder is not None:
                recorder.failed = True
            if not self._warned:
                self._warned = True
                warnings.warn("loaderlab_probe stopped recording: %s: %s"
                              % (type(error).__name__, error), RuntimeWarning, stacklevel=3)
            return _FAILED

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
        if self in _watched:
            _watched.remove(self)
        if recorder is not None and not recorder.failed:
            self._call(lambda: recorder.finish(state, error))


def watch(loader, out="run"):
    """Records `loader`'s batches into out.csv and out.json (see the module's help)."""
    return WatchedLoader(loader, out)
