"""LoaderLab's PyTorch engine: PyTorch's real DataLoader (worker processes) over the
same dataset, transform, batch size, workers, prefetch, shuffle and simulated step
as a LoaderLab run, streaming one JSON line per batch on a records pipe of its own
(settings "records_fd", 3) and reading LoaderLab's commands, one JSON line each, on
another ("commands_fd", 4): reconfigure, pause, resume. stdout and stderr are only
captured for the error message: whatever a dataset, a library or a worker prints
cannot reach the records. Times are time.monotonic_ns() (CLOCK_MONOTONIC, the clock
LoaderLab's steady_clock reads), so LoaderLab places them on its own time line.
Embedded in the loaderlab binary and run with `python3 -c`; the settings come as
one JSON argument.

The engine makes each epoch's order itself (a seeded permutation per epoch when
shuffling, else 0..N-1) and gives DataLoader a sampler over the part of it not yet
delivered. A reconfiguration at a batch boundary shuts the old iterator's workers
down and builds a new DataLoader over the rest of the epoch, so every sample is
delivered exactly once per epoch; the new workers' start shows as the next batch's
wait. A shuffle change applies from the next epoch.

Dataset kind "python" runs the user's pipeline file (docs/your-pipeline.md): its
make_dataset(args), and when it defines them collate_fn, worker_init_fn,
make_sampler(dataset, args) and make_step(args), the step run on every batch. Each
sample's __getitem__ is timed (one span per sample, stages marked with
loaderlab_probe.stage); an exception in it is skipped or fails the run by the
bad-sample policy, with the exception's type, message and the file's line. An
IterableDataset cannot be cut mid-epoch: a change that needs new workers applies
at its next epoch.

With devices > 1 the run is that many rank processes that exchange through
torch.distributed (loaderlab_ranks, beside loaderlab_probe): this process is rank 0,
the only one that reads LoaderLab's commands and writes its records pipe; the other
ranks' batch and error records carry their "rank" and reach LoaderLab through it."""

import bisect
import importlib.util
import io
import json
import os
import select
import signal
import sys
import time
import traceback

RECORDS_FD = 3
MAIN_PID = os.getpid()
RANK = 0  # this process's data-parallel rank; a rank above 0 writes batches and errors
M64 = (1 << 64) - 1
IDS_MOD = 1 << 61
MAX_SPANS = 4096  # per batch; a bigger batch is one span

# The settings a reconfiguration may change (LoaderLab's names in the settings).
LIVE = ("workers", "batch_size", "prefetch", "persistent", "pin_memory", "shuffle",
        "sleep_batch_ms", "sleep_sample_ms")
# Those that need a new DataLoader.
REBUILD = ("workers", "batch_size", "prefetch", "persistent", "pin_memory")


# Batch records that follow each other within this time are written together: one
# write (and one wake-up of LoaderLab's reader) per 20 ms instead of one per batch
# when batches come faster. A batch is held until the next record writes it, or
# the engine's watch thread (watch_engine) once it is 20 ms old: a loader that then
# hangs does not hold back the batches before it. Every other record is written at
# once, with the batches before it.
BATCH_FLUSH_NS = 20_000_000
_unsent = []
_last_write_ns = 0
_records_lock = None  # a threading.RLock from main() on (the watch thread writes too)


def emit(record, batched=False):
    if os.getpid() != MAIN_PID:
        return  # a process the pipeline forked never writes LoaderLab's records
    if RANK > 0:
        if record["type"] not in ("batch", "error"):
            return  # rank 0 starts, ends, pauses and changes the run for every rank
        record["rank"] = RANK
    write_line(json.dumps(record, separators=(",", ":")), batched)


def write_line(line, batched=False):
    """One record's line (from this process, or relayed from another rank)."""
    global _last_write_ns
    with _records_lock:
        _unsent.append(line)
        now = time.monotonic_ns()
        if batched and now - _last_write_ns < BATCH_FLUSH_NS:
            return
        _last_write_ns = now
        flush_records()


def flush_records(older_than_ns=0):
    """Writes the records held back; with `older_than_ns`, only when the last write
    is that long ago (the watch thread's call)."""
    global _last_write_ns
    if os.getpid() != MAIN_PID:
        return
    with _records_lock:
        now = time.monotonic_ns()
        if not _unsent or now - _last_write_ns < older_than_ns:
            return
        _last_write_ns = now
        data = ("\n".join(_unsent) + "\n").encode()
        _unsent.clear()
        while data:
            data = data[os.write(RECORDS_FD, data):]


def sample_id(index):
    """A 64-bit mix of a sample's index (splitmix64's finalizer): a batch reports the
    sum of its samples' ids modulo 2^61, so that a sample delivered twice, or one
    missing, shows in the epoch's sum (core/engine/pytorch/pytorch_channel.h, "ids")."""
    z = (index + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


class Commands:
    """LoaderLab's commands, read without blocking at each batch boundary."""

    def __init__(self, fd):
        self.fd = fd
        self.pending = b""
        self.closed = False

    def read(self, timeout):
        """The commands that arrived; waits up to `timeout` s (None: until one does)."""
        if self.closed:
            if timeout is None:
                sys.exit(0)  # LoaderLab is gone: nothing will resume the run
            return []
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return []
        data = os.read(self.fd, 65536)
        if not data:
            self.closed = True
            return []
        self.pending += data
        *lines, self.pending = self.pending.split(b"\n")
        return [json.loads(line) for line in lines if line.strip()]


class PipelineError(Exception):
    """The user's pipeline file failed; the message says where and why."""


class PipelineRefused(PipelineError):
    """The pipeline's dataset cannot be run at all (empty, a length that is not one):
    refused before the run, as LoaderLab refuses an empty folder."""

# The most samples a map-style dataset may have: the engine makes each epoch's order
# as a list of indices.
MAX_SAMPLES = 1 << 40


class Terminated(BaseException):
    """LoaderLab's stop (SIGTERM), never mistaken for the user's sys.exit."""


class PipelineTimeout(BaseException):
    """A pipeline call's time limit: a BaseException, so that a pipeline's own
    `except Exception` (a retry loop) does not swallow it."""


class TimeLimit:
    """Raises PipelineTimeout in the main thread after `seconds` (0: no limit). The
    limit is LoaderLab's to enforce as well: the "phase" record tells it what runs and
    for how long, and it kills the process group when the pipeline outlasts the limit
    anyway (a handler of its own for SIGALRM, a bare `except:`, a call into C)."""

    def __init__(self, seconds, what):
        self.seconds, self.what = seconds, what

    def _expired(self, *_):
        raise PipelineTimeout("%s took longer than %g s (LOADERLAB_PIPELINE_SECONDS sets the "
                              "limit)" % (self.what, self.seconds))

    def __enter__(self):
        if self.seconds > 0:
            emit({"type": "phase", "what": self.what, "seconds": self.seconds,
                  "t": time.monotonic_ns()})
            signal.signal(signal.SIGALRM, self._expired)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def __exit__(self, *_):
        if self.seconds > 0:
            signal.setitimer(signal.ITIMER_REAL, 0)
        return False


def describe(error, path):
    """`Type: message (file.py:LINE, in function)` and the traceback's last frames."""
    if isinstance(error, SystemExit):
        head = "called sys.exit(%s)" % (error.code,)
    elif isinstance(error, PipelineTimeout):
        head = str(error)
    else:
        head = "%s: %s" % (type(error).__name__, error)
    # The engine's own frames (run with -c: "<string>") are not the user's code.
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename != "<string>"
              and not f.filename.startswith("<frozen")]
    own = [f for f in frames if path and os.path.abspath(f.filename) == path]
    where = own[-1] if own else (frames[-1] if frames else None)
    if where is not None:
        head += " (%s:%d, in %s)" % (os.path.basename(where.filename), where.lineno, where.name)
    tail = ["%s:%d in %s" % (os.path.basename(f.filename), f.lineno, f.name)
            for f in frames[-4:]]
    return head + ("; traceback: " + " > ".join(tail) if len(tail) > 1 else "")


def user_call(path, what, function, *args):
    """Calls the pipeline's `function`; anything it raises becomes a PipelineError."""
    try:
        return function(*args)
    except (Terminated, KeyboardInterrupt):
        raise
    except BaseException as error:  # noqa: BLE001 - sys.exit included
        if os.getpid() != MAIN_PID:
            os._exit(1)
        raise PipelineError("%s: %s %s" % (os.path.basename(path), what,
                                           describe(error, path))) from None
    finally:
        if os.getpid() != MAIN_PID:
            os._exit(0)  # a child the pipeline forked came back: it ends here


def loader_failure(error, path):
    """DataLoader's own account of a failure in a worker (its worker_init_fn, a
    worker that exited): its first line and the lines that name the pipeline file."""
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    if not lines:
        return "%s: %s" % (type(error).__name__, error)
    kept = [lines[0]] + [line for line in lines[1:-1] if path and path in line][-2:]
    if len(lines) > 1:
        kept.append(lines[-1])
    return " ".join(kept)


def check_length(path, dataset):
    """Refuses a map-style dataset without a usable length: none, one that raises or
    is not a whole number, 0 (nothing to load: refused before the run) or more samples
    than the engine can order."""
    name, kind = os.path.basename(path), type(dataset).__name__
    if not hasattr(dataset, "__len__"):
        raise PipelineError("%s: make_dataset(args) returned a map-style %s without __len__ "
                            "(LoaderLab makes each epoch's order from it; an IterableDataset "
                            "needs none)" % (name, kind))
    length = user_call(path, "len(dataset) failed:", dataset.__len__)
    if isinstance(length, bool) or not isinstance(length, int):
        raise PipelineRefused("%s: the dataset's __len__() returned %r (%s), not a whole number"
                              % (name, length, type(length).__name__))
    if length == 0:
        raise PipelineRefused("%s: make_dataset(args) returned an empty %s (__len__() is 0): "
                              "nothing to load" % (name, kind))
    if length < 0 or length > MAX_SAMPLES:
        raise PipelineRefused("%s: the dataset's __len__() returned %d: a dataset has 1 to "
                              "2^40 samples" % (name, length))


def no_sample(epoch, skipped, last_skip):
    """An epoch that delivered no sample ends the run, as on LoaderLab's engine: every
    later epoch would skip the same samples again."""
    if skipped == 0:
        raise PipelineError("epoch %d delivered no sample" % (epoch + 1))
    raise PipelineError("epoch %d delivered no sample: all %d samples it loaded were skipped "
                        "(last: %s); the run stops, as every epoch would skip them again"
                        % (epoch + 1, skipped, last_skip))


def worker_exits(iterator, source):
    """The DataLoader workers of `iterator` that have exited, in words ("" if none): a
    worker that calls os._exit or is killed shows in the main process only as a broken
    queue (ConnectionResetError, EOFError), which says nothing of where or why."""
    found = []
    for number, worker in enumerate(getattr(iterator, "_workers", None) or []):
        worker.join(0.2)  # a worker that is exiting has its code a moment later
        code = worker.exitcode
        if code is None or code == 0:
            continue
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = "signal %d" % -code
            how = "was killed by %s" % name
            if -code == signal.SIGKILL:
                how += " (the kernel's out-of-memory killer sends it)"
        else:
            how = "exited with code %d" % code
        found.append("worker %d (pid %d) %s" % (number, worker.pid, how))
    return "; ".join(found) + (" while loading from %s" % source if found else "")


def load_pipeline(settings):
    """The user's pipeline module, imported from settings["path"] under a time limit."""
    path = os.path.abspath(settings["path"])
    if not os.path.isfile(path):
        raise PipelineError("%s: no such pipeline file" % path)
    sys.path.insert(0, settings["probe_dir"])
    sys.path.insert(0, os.path.dirname(path))
    stem = os.path.splitext(os.path.basename(path))[0]
    name = stem if stem.isidentifier() and stem not in sys.modules else "loaderlab_pipeline"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise PipelineError("%s: not a Python file" % path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    with TimeLimit(settings["pipeline_seconds"], "importing " + os.path.basename(path)):
        user_call(path, "failed to import:", spec.loader.exec_module, module)
    if not callable(getattr(module, "make_dataset", None)):
        raise PipelineError("%s defines no make_dataset(args) function" % path)
    return path, module


def move_out_of_reach(fd):
    """`fd` moved to a high number (close-on-exec) and /dev/null put at its low number:
    a pipeline that writes to, reads or closes fd 3 or 4 (a library's habit, or by
    mistake) no longer reaches the engine's channels."""
    import fcntl
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 512)
    null = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
    os.dup2(null, fd, inheritable=False)
    os.close(null)
    return moved


def watch_engine():
    """A thread beside the engine's loop: writes batch records held back for more than
    BATCH_FLUSH_NS (the loop may be stuck in a hanging loader), and ends the engine's
    process group, workers included, when LoaderLab is gone (killed with SIGKILL, it
    cannot end the group itself; the engine's parent then changes)."""
    import threading
    parent = os.getppid()

    def watch():
        ticks = 0
        while True:
            time.sleep(0.05)
            try:
                flush_records(BATCH_FLUSH_NS)
            except OSError:
                pass  # LoaderLab is gone: the parent check below ends the group
            ticks += 1
            if ticks % 10 == 0 and os.getppid() != parent:
                try:
                    os.killpg(os.getpgid(0), signal.SIGKILL)
                finally:
                    os._exit(137)

    threading.Thread(target=watch, name="loaderlab-engine-watch", daemon=True).start()


def main():
    global RECORDS_FD, MAIN_PID, RANK, _records_lock
    settings = json.loads(sys.argv[1])
    ranks = None
    if settings.get("devices", 1) > 1:
        # The other ranks are forked first, before any thread or torch.
        sys.path.insert(0, settings["probe_dir"])
        import loaderlab_ranks
        ranks = loaderlab_ranks.fork_ranks(settings["devices"])
        RANK = ranks.rank
    elif "launch" in settings:
        # One rank of ranks another program started (Slurm's srun): no fork, and its
        # records are its own.
        sys.path.insert(0, settings["probe_dir"])
        import loaderlab_ranks
        launch = settings["launch"]
        ranks = loaderlab_ranks.Ranks(launch["rank"], launch["world"])
        ranks.address, ranks.port = launch["address"], launch["port"]
    if RANK > 0:
        MAIN_PID = os.getpid()
        for fd in (settings.get("records_fd", 3), settings.get("commands_fd", 4)):
            os.close(fd)  # LoaderLab's channels are rank 0's
        RECORDS_FD, commands = ranks.records_fd, None
    else:
        # Never passed on to a program the engine or a library runs.
        RECORDS_FD = move_out_of_reach(settings.get("records_fd", 3))
        commands = Commands(move_out_of_reach(settings.get("commands_fd", 4)))
    import threading
    _records_lock = threading.RLock()
    if ranks is not None and ranks.lead:
        ranks.start_relays(write_line)
    watch_engine()

    def terminate(*_):
        if os.getpid() == MAIN_PID:
            raise Terminated()
        os._exit(143)

    signal.signal(signal.SIGTERM, terminate)
    try:
        import torch
        from PIL import Image
        from torch.utils.data import DataLoader, Dataset, IterableDataset, get_worker_info
        from torch.utils.data._utils.collate import default_collate
        datasets = transforms = None
        if settings["kind"] == "folder":  # torchvision's import costs a start 0.4 s more
            from torchvision import datasets, transforms
    except Exception as error:  # an installation that is there and broken, not only missing
        emit({"type": "error", "message": "the PyTorch engine needs torch and torchvision, and "
              "%s cannot import them: %s: %s" % (sys.executable, type(error).__name__, error)})
        return 3
    rank_failure = loaderlab_ranks.RankFailure if ranks is not None else PipelineError
    try:
        return run(settings, commands, ranks, torch, Image, DataLoader, Dataset,
                   IterableDataset, get_worker_info, default_collate, datasets, transforms)
    except Terminated:
        return 143
    except (PipelineError, rank_failure) as error:
        if ranks is not None and ranks.lead and not isinstance(error, PipelineError):
            # A rank that failed has said why: its record goes first.
            ranks.finish(timeout=3.0)
        record = {"type": "error", "message": str(error)}
        if isinstance(error, PipelineRefused):
            record["refused"] = True
        emit(record)
        return 1
    finally:
        try:
            flush_records()  # the batches measured before a stop or a failure
        except OSError:
            pass  # LoaderLab is gone


def run(settings, commands, ranks, torch, Image, DataLoader, Dataset, IterableDataset,
        get_worker_info, default_collate, datasets, transforms):
    mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
    kind = settings["kind"]
    fail_bad = settings.get("bad_samples") == "fail"
    pipeline_path, pipeline, probe = "", None, None
    user_collate, user_init, step, sampler = default_collate, None, None, None
    if ranks is not None:
        # Before the pipeline's code: its make_step may wrap a model for the ranks
        # (loaderlab_probe.data_parallel).
        ranks.connect(torch, settings["comm_backend"], int(settings["gradient_mb"] * 1e6))
    if kind == "python":
        pipeline_path, pipeline = load_pipeline(settings)
        import loaderlab_probe as probe
        args = settings.get("args", {})
        with TimeLimit(settings["pipeline_seconds"], "make_dataset(args)"):
            inner = user_call(pipeline_path, "make_dataset(args) raised", pipeline.make_dataset,
                              args)
        if not isinstance(inner, (Dataset, IterableDataset)) and not hasattr(inner,
                                                                             "__getitem__"):
            raise PipelineError("%s: make_dataset(args) returned %s, not a torch Dataset"
                                % (os.path.basename(pipeline_path), type(inner).__name__))
        user_collate = getattr(pipeline, "collate_fn", None) or default_collate
        user_init = getattr(pipeline, "worker_init_fn", None)
        if callable(getattr(pipeline, "make_sampler", None)):
            with TimeLimit(settings["pipeline_seconds"], "make_sampler(dataset, args)"):
                sampler = user_call(pipeline_path, "make_sampler(dataset, args) raised",
                                    pipeline.make_sampler, inner, args)
        if callable(getattr(pipeline, "make_step", None)):
            with TimeLimit(settings["pipeline_seconds"], "make_step(args)"):
                step = user_call(pipeline_path, "make_step(args) raised", pipeline.make_step,
                                 args)
            if step is not None and not callable(step):
                raise PipelineError("%s: make_step(args) returned %s, not a function"
                                    % (os.path.basename(pipeline_path), type(step).__name__))
        if not isinstance(inner, IterableDataset):
            check_length(pipeline_path, inner)
    if step is None:
        torch.set_num_threads(1)  # the simulated step sleeps; the user's step chooses

    def failed(worker, start, index, error):
        now = time.monotonic_ns()
        reason = describe(error, pipeline_path) if pipeline_path else "%s: %s" % (
            type(error).__name__, error)
        return None, (worker, start, now, 0, 0, 0, index, reason, now)

    class Timed(Dataset):
        """Each sample with its read, decode and transform time and its worker."""

        def __init__(self, kind):
            self.kind = kind
            if kind == "folder":
                self.folder = datasets.ImageFolder(settings["path"])
                size, crop = settings["resize"], settings["crop"]
                if settings["transform"] == "train":
                    steps = [transforms.RandomResizedCrop(crop), transforms.RandomHorizontalFlip()]
                else:
                    steps = [transforms.Resize(size), transforms.CenterCrop(crop)]
                self.transform = transforms.Compose(
                    steps + [transforms.ToTensor(), transforms.Normalize(mean, std)])
            elif kind == "python":
                self.inner = inner
            elif kind == "tensor":
                # The files LoaderLab checked (a tensor file, or a manifest's shards):
                # [path, records] each, read in order as one dataset.
                self.parts, self.firsts, self.count = settings["parts"], [], 0
                for _, records in self.parts:
                    self.firsts.append(self.count)
                    self.count += records
                self.record = settings["record_bytes"]
                self.dtype = torch.uint8 if settings["dtype"] == "uint8" else torch.float32
                self.shape = settings["shape"]
                self.fds = {}  # path: descriptor (pread needs no offset of its own)
            else:
                self.shape = settings["shape"]
                self.count = settings["samples"]

        def __len__(self):
            if self.kind == "folder":
                return len(self.folder)
            return len(self.inner) if self.kind == "python" else self.count

        def tensor_record(self, index):
            """Record `index`: one pread of its label and sample (docs/tensor-file-format.md);
            a worker forked with the descriptors keeps using them."""
            part = bisect.bisect_right(self.firsts, index) - 1
            path = self.parts[part][0]
            fd = self.fds.get(path)
            if fd is None:
                fd = self.fds[path] = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            offset = 64 + (index - self.firsts[part]) * self.record
            data = os.pread(fd, self.record, offset)
            if len(data) != self.record:
                raise OSError("%s: record %d: read %d of its %d bytes (the file changed since "
                              "the run started?)" % (path, index - self.firsts[part], len(data),
                                                     self.record))
            return data

        def __getitem__(self, index):
            start = time.monotonic_ns()
            info = get_worker_info()
            worker = info.id if info else -1
            read = decoded = 0
            try:
                if self.kind == "folder":
                    path, label = self.folder.samples[index]
                    with open(path, "rb") as f:
                        data = f.read()
                    read = time.monotonic_ns()
                    image = Image.open(io.BytesIO(data)).convert("RGB")
                    decoded = time.monotonic_ns()
                    sample = (self.transform(image), label)
                elif self.kind == "tensor":
                    data = self.tensor_record(index)
                    read = decoded = time.monotonic_ns()
                    label = int.from_bytes(data[:8], "little", signed=True)
                    sample = (torch.frombuffer(bytearray(data[8:]), dtype=self.dtype)
                              .view(self.shape), label)
                elif self.kind == "python":
                    sums = probe.begin_sample()
                    try:
                        sample = self.inner[index]
                    finally:
                        probe.end_sample()
                    end = time.monotonic_ns()
                    return sample, (worker, start, end, sums["read"], sums["decode"],
                                    sums["transform"], index, None, end)
                else:
                    read = decoded = time.monotonic_ns()
                    generator = torch.Generator().manual_seed((settings["seed"] + index) % 2**63)
                    sample = (torch.rand(self.shape, generator=generator), index % 10)
            except (Terminated, KeyboardInterrupt):
                raise
            except BaseException as error:  # noqa: BLE001 - the bad-sample policy decides
                return failed(worker, start, index, error)
            end = time.monotonic_ns()
            return sample, (worker, start, end, read - start, decoded - read, end - decoded,
                            index, None, end)

    class Stream(IterableDataset):
        """The user's IterableDataset, each item timed (sharded by the user's code)."""

        def __iter__(self):
            info = get_worker_info()
            worker = info.id if info else -1
            items = iter(inner)
            while True:
                sums = probe.begin_sample()
                start = time.monotonic_ns()
                try:
                    item = next(items)
                except StopIteration:
                    return
                except (Terminated, KeyboardInterrupt):
                    raise
                except BaseException as error:  # noqa: BLE001 - this worker's stream ends
                    yield failed(worker, start, -1, error)
                    return
                finally:
                    probe.end_sample()
                end = time.monotonic_ns()
                yield item, (worker, start, end, sums["read"], sums["decode"],
                             sums["transform"], -1, None, end)

    def collate(items):
        begin = time.monotonic_ns()
        times = [i[1] for i in items]
        bad = [t for t in times if t[7] is not None]
        good = [i[0] for i in items if i[1][7] is None]
        info = {"worker": times[0][0], "load_start": min(t[1] for t in times),
                "collate_start": begin, "read": sum(t[3] for t in times),
                "decode": sum(t[4] for t in times), "transform": sum(t[5] for t in times),
                "ids": sum(sample_id(t[6]) for t in times if t[6] >= 0) % IDS_MOD,
                "skipped": len(bad)}
        if bad:
            info["skips"] = [[t[6], t[7][:1000]] for t in bad[:100]]
        if kind == "python" and len(times) <= MAX_SPANS:
            info["spans"] = [[t[1], t[8]] for t in times]
        # default_collate stacks a worker's batch straight into shared memory, as a
        # plain DataLoader does (torch.stack would cost one more copy of the batch).
        batch = None
        if good and not (bad and fail_bad):
            try:
                batch = user_collate(good)
            except (Terminated, KeyboardInterrupt):
                raise
            except BaseException as error:  # noqa: BLE001 - reported by the main process
                info["error"] = "collate_fn " + (describe(error, pipeline_path) if pipeline_path
                                                 else "%s: %s" % (type(error).__name__, error))
        info["load_end"] = time.monotonic_ns()
        return batch, len(good), info

    def worker_init(worker_id):
        torch.set_num_threads(1)  # one thread per worker, as LoaderLab's workers
        # Only the main process writes records or reads commands.
        for fd in (RECORDS_FD, commands.fd if commands else -1):
            try:
                os.close(fd)
            except OSError:
                pass
        if user_init is not None:
            user_init(worker_id)

    class Rest:
        """The epoch's order from `start` on: what the DataLoader has still to deliver."""

        def __init__(self):
            self.order, self.start = range(0), 0

        def __iter__(self):
            return iter(self.order[self.start:])

        def __len__(self):
            return max(0, len(self.order) - self.start)

    iterable = kind == "python" and isinstance(inner, IterableDataset)
    if iterable and ranks is not None:
        raise PipelineRefused("%s: make_dataset(args) returned an IterableDataset, which "
                              "LoaderLab cannot shard over %d devices (each rank's part of a "
                              "stream is the stream's own code to make): run it with devices 1"
                              % (os.path.basename(pipeline_path), ranks.world))
    dataset = Stream() if iterable else Timed(kind)
    count = 0 if iterable else len(dataset)
    live = {key: settings[key] for key in LIVE}
    rest = Rest()

    def whole_order(epoch):
        if sampler is not None:
            if hasattr(sampler, "set_epoch"):
                sampler.set_epoch(epoch)
            return user_call(pipeline_path, "make_sampler's sampler raised", list, sampler)
        if not live["shuffle"]:
            return range(count)
        generator = torch.Generator().manual_seed((settings["seed"] * 1000003 + epoch) % 2**63)
        return torch.randperm(count, generator=generator).tolist()

    def epoch_order(epoch):
        """This rank's part of the epoch (the same seeded order on every rank)."""
        order = whole_order(epoch)
        if ranks is None:
            return order
        return ranks.shard(order)

    def make_loader():
        options = {}
        if live["workers"] > 0:
            options = {"prefetch_factor": live["prefetch"],
                       "persistent_workers": live["persistent"], "worker_init_fn": worker_init}
        if not iterable:
            options["sampler"] = rest
        return DataLoader(dataset, batch_size=live["batch_size"], num_workers=live["workers"],
                          drop_last=settings["drop_last"], pin_memory=live["pin_memory"],
                          collate_fn=collate, **options)

    def shut_down(loader, iterator):
        # The old workers end now, persistent or not (a persistent loader keeps its
        # iterator in loader._iterator).
        for it in (iterator, getattr(loader, "_iterator", None)):
            if it is not None and hasattr(it, "_shutdown_workers"):
                it._shutdown_workers()
        loader._iterator = None

    loader = make_loader()
    # The run's clock starts here, as LoaderLab's starts when its loader is built:
    # Python's start and `import torch` (about a second) are not the loader's.
    start_record = {"type": "start", "torch": torch.__version__, "samples": count,
                    "t0": time.monotonic_ns()}
    if pipeline is not None:
        start_record["dataset"] = "%s from %s (%s%s)" % (
            type(inner).__name__, os.path.basename(pipeline_path),
            "iterable" if iterable else "%d samples" % count,
            ", its own step" if step is not None else "")
    if ranks is not None and ranks.address is None:
        start_record["ranks"] = ranks.world
    emit(start_record)
    if ranks is not None:
        ranks.barrier(False)  # no rank loads before rank 0's start record
    max_batches, epochs = settings["max_batches"], settings["epochs"]
    replay = settings.get("replay_batches", 0)
    if replay and iterable and max_batches == 0 and not settings.get("max_seconds"):
        raise PipelineRefused("%s: a replay of a stream (an IterableDataset) needs a batch or "
                              "time limit, as its epochs have no length"
                              % os.path.basename(pipeline_path))
    kept = []  # the batches a replay keeps: (batch, samples, ids)
    index = epoch = version = 0
    iterator = None
    paused = False
    change = None  # the latest reconfiguration not applied yet: (version, settings)

    def settled(batches):
        """Every rank's batches so far are relayed: a change or a pause comes after them."""
        if ranks is not None and ranks.lead:
            ranks.await_batches(batches)

    def take(received):
        nonlocal paused, change
        for command in received:
            command_kind = command.get("cmd")
            if command_kind == "pause":
                paused = True
            elif command_kind == "resume":
                paused = False
            elif command_kind == "reconfigure":
                change = (command["version"], {key: command[key] for key in LIVE})

    def hold_while_paused(index):
        """The pause, at the boundary before batch `index`: marked, then held until resumed."""
        settled(index)
        emit({"type": "paused", "index": index, "t": time.monotonic_ns()})
        while paused:
            if ranks is None:
                take(commands.read(None))
            else:  # the ranks meet ten times a second until rank 0 resumes
                take(ranks.poll(commands.read(0.1) if ranks.lead else []))
        emit({"type": "resumed", "index": index, "t": time.monotonic_ns()})

    def run_step(batch, size, index):
        """The step on one batch: the pipeline file's own, or the simulated one."""
        if step is not None:
            if batch is not None:
                user_call(pipeline_path, "make_step's step raised on batch %d:" % index, step,
                          batch)
        else:
            pause = (live["sleep_batch_ms"] + live["sleep_sample_ms"] * size) / 1000.0
            if pause > 0:
                time.sleep(pause)

    def epoch_batches(epoch):
        """The batches the DataLoader gives epoch `epoch` (None for a stream)."""
        if iterable:
            return None
        places, size = len(epoch_order(epoch)), live["batch_size"]
        return places // size if settings["drop_last"] else -(-places // size)

    def replay_rest(epoch, position, done, index):
        """The rest of the run on the kept batches, the DataLoader shut down: each epoch
        has the batches the DataLoader would have given it; the step is the run's. A live
        change of the step applies; one of the loader's is refused, as there is none."""
        nonlocal change, version
        emit({"type": "replay", "index": index, "t": time.monotonic_ns(),
              "batches": len(kept)})
        turn = 0
        while (epochs == 0 or epoch < epochs) and (max_batches == 0 or index < max_batches):
            length = epoch_batches(epoch)
            while (length is None or done < length) and (max_batches == 0
                                                         or index < max_batches):
                take(commands.read(0))
                if paused:
                    hold_while_paused(index)
                if change is not None:
                    number, wanted = change
                    change = None
                    if any(wanted[key] != live[key] for key in REBUILD):
                        emit({"type": "refused", "version": number, "message":
                              "the run replays the batches it kept: the loader's settings no "
                              "longer apply"})
                    else:
                        live.update(wanted)
                        version = number
                        emit({"type": "reconfigured", "version": number, "index": index,
                              "t": time.monotonic_ns(), "batch_size": live["batch_size"],
                              "workers": live["workers"]})
                batch, size, ids = kept[turn]
                turn = (turn + 1) % len(kept)
                request = time.monotonic_ns()
                compute_start = time.monotonic_ns()
                run_step(batch, size, index)
                emit({"type": "batch", "index": index, "epoch": epoch, "worker": -1,
                      "samples": size, "version": version, "first": position, "ids": ids,
                      "load_start": request, "collate_start": request, "load_end": request,
                      "read": 0, "decode": 0, "transform": 0, "request": request,
                      "delivery": request, "compute_start": compute_start,
                      "compute_end": time.monotonic_ns()}, batched=True)
                position += size
                done += 1
                index += 1
            epoch, position, done = epoch + 1, 0, 0
        return index

    replaying = False
    while (epochs == 0 or epoch < epochs) and (max_batches == 0 or index < max_batches):
        rest.order, rest.start = (None, 0) if iterable else (epoch_order(epoch), 0)
        in_epoch = 0
        iterator = iter(loader)
        delivered = skipped = 0
        last_skip = ""
        while max_batches == 0 or index < max_batches:
            # The batch boundary: LoaderLab's commands, without waiting (with ranks,
            # those rank 0 shared at the last step's barrier: every rank has them).
            if ranks is None:
                take(commands.read(0))
            if paused:
                hold_while_paused(index)
            request = time.monotonic_ns()
            # An IterableDataset cannot be cut mid-epoch: new workers wait for its end.
            if change is not None and not (iterable and rest.start > 0 and any(
                    change[1][key] != live[key] for key in REBUILD)):
                settled(index)
                number, wanted = change
                change = None
                before = dict(live)
                live.update(wanted)
                applied = True
                if any(live[key] != before[key] for key in REBUILD):
                    try:
                        fresh = make_loader()
                    except (ValueError, TypeError, RuntimeError) as error:
                        live.clear()
                        live.update(before)
                        emit({"type": "refused", "version": number, "message": str(error)})
                        applied = False
                    if applied:
                        # The new workers' start is this batch's wait, as it is in a run.
                        shut_down(loader, iterator)
                        loader = fresh
                        iterator = iter(loader)
                if applied:
                    version = number
                    emit({"type": "reconfigured", "version": number, "index": index,
                          "t": request, "batch_size": live["batch_size"],
                          "workers": live["workers"]})
            try:
                batch, size, info = next(iterator)
            except StopIteration:
                if delivered == 0:
                    no_sample(epoch, skipped, last_skip)
                break
            except (Terminated, KeyboardInterrupt):
                raise
            except Exception as error:  # noqa: BLE001 - a worker's failure, told plainly
                exits = worker_exits(iterator, os.path.basename(pipeline_path)
                                     if pipeline_path else settings["path"] or kind)
                raise PipelineError("batch %d: %s" % (index, exits or "the DataLoader failed: "
                                                      + loader_failure(error, pipeline_path))
                                    ) from None
            delivery = time.monotonic_ns()
            if "error" in info:
                raise PipelineError("batch %d: %s" % (index, info["error"]))
            if info["skipped"] and fail_bad:
                position, reason = info["skips"][0]
                raise PipelineError("batch %d: sample %s: %s (bad samples: fail)" % (
                    index, position if position >= 0 else "of the stream", reason))
            consumed = size + info["skipped"]
            delivered += size
            skipped += info["skipped"]
            if info.get("skips"):
                last_skip = info["skips"][-1][1]
            if iterable:
                info["ids"] = sum(sample_id(rest.start + k) for k in range(consumed)) % IDS_MOD
            compute_start = time.monotonic_ns()
            run_step(batch, size, index)
            compute_end = time.monotonic_ns()
            info.update({"type": "batch", "index": index, "epoch": epoch, "samples": size,
                         "version": version, "first": rest.start, "request": request,
                         "delivery": delivery, "compute_start": compute_start,
                         "compute_end": compute_end})
            if ranks is not None:
                # Every rank meets here, as DistributedDataParallel's all-reduce makes
                # them; rank 0's commands since the last step go to every rank.
                received = commands.read(0) if ranks.lead else []
                shared = ranks.barrier(bool(received))
                info["sync_start"], info["sync_end"] = compute_end, time.monotonic_ns()
                if ranks.exchange():
                    info["exchange_end"] = time.monotonic_ns()
                take(ranks.share(received) if shared else [])
            emit(info, batched=True)
            rest.start += consumed
            index += 1
            in_epoch += 1
            if replay and size > 0:
                kept.append((batch, size, info.get("ids", 0)))
                replaying = len(kept) == replay
                if replaying:
                    break
        if replaying:
            # The workers end before the step runs alone (their batches stay in memory).
            shut_down(loader, iterator)
            iterator = None
            index = replay_rest(epoch, rest.start, in_epoch, index)
            break
        epoch += 1
    shut_down(loader, iterator)
    if ranks is not None:
        problems = ranks.finish()
        if problems:
            raise PipelineError(problems)
    emit({"type": "end", "batches": index})
    return 0


if __name__ == "__main__":
    sys.exit(main())
