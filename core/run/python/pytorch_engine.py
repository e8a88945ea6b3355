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
wait. A shuffle change applies from the next epoch."""

import io
import json
import os
import select
import signal
import sys
import time

RECORDS_FD = 3
M64 = (1 << 64) - 1
IDS_MOD = 1 << 61

# The settings a reconfiguration may change (LoaderLab's names in the settings).
LIVE = ("workers", "batch_size", "prefetch", "persistent", "pin_memory", "shuffle",
        "sleep_batch_ms", "sleep_sample_ms")
# Those that need a new DataLoader.
REBUILD = ("workers", "batch_size", "prefetch", "persistent", "pin_memory")


def emit(record):
    data = (json.dumps(record, separators=(",", ":")) + "\n").encode()
    while data:
        data = data[os.write(RECORDS_FD, data):]


def sample_id(index):
    """A 64-bit mix of a sample's index (splitmix64's finalizer): a batch reports the
    sum of its samples' ids modulo 2^61, so that a sample delivered twice, or one
    missing, shows in the epoch's sum (core/run/engine_channel.h, "ids")."""
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


def main():
    global RECORDS_FD
    settings = json.loads(sys.argv[1])
    RECORDS_FD = settings.get("records_fd", 3)
    commands = Commands(settings.get("commands_fd", 4))
    # Never passed on to a program the engine or a library runs.
    for fd in (RECORDS_FD, commands.fd):
        os.set_inheritable(fd, False)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        import torch
        from PIL import Image
        from torch.utils.data import DataLoader, Dataset, get_worker_info
        from torch.utils.data._utils.collate import default_collate
        from torchvision import datasets, transforms
    except ImportError as error:
        emit({"type": "error", "message": "the PyTorch engine needs torch and torchvision: "
              + str(error)})
        return 3

    mean, std = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]

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
            else:
                self.shape = settings["shape"]
                self.count = settings["samples"]

        def __len__(self):
            return len(self.folder) if self.kind == "folder" else self.count

        def __getitem__(self, index):
            start = time.monotonic_ns()
            if self.kind == "folder":
                path, label = self.folder.samples[index]
                with open(path, "rb") as f:
                    data = f.read()
                read = time.monotonic_ns()
                image = Image.open(io.BytesIO(data)).convert("RGB")
                decoded = time.monotonic_ns()
                sample = self.transform(image)
            else:
                read = decoded = time.monotonic_ns()
                generator = torch.Generator().manual_seed((settings["seed"] + index) % 2**63)
                sample = torch.rand(self.shape, generator=generator)
                label = index % 10
            end = time.monotonic_ns()
            info = get_worker_info()
            return sample, label, (info.id if info else -1, start, end, read - start,
                                   decoded - read, end - decoded, index)

    def collate(items):
        begin = time.monotonic_ns()
        # default_collate stacks a worker's batch straight into shared memory, as a
        # plain DataLoader does (torch.stack would cost one more copy of the batch).
        samples = default_collate([i[0] for i in items])
        labels = torch.tensor([i[1] for i in items])
        times = [i[2] for i in items]
        return samples, labels, {
            "worker": times[0][0], "load_start": min(t[1] for t in times), "collate_start": begin,
            "read": sum(t[3] for t in times), "decode": sum(t[4] for t in times),
            "transform": sum(t[5] for t in times),
            "ids": sum(sample_id(t[6]) for t in times) % IDS_MOD, "load_end": time.monotonic_ns()}

    def worker_init(_worker_id):
        torch.set_num_threads(1)  # one thread per worker, as LoaderLab's workers
        # Only the main process writes records or reads commands.
        for fd in (RECORDS_FD, commands.fd):
            try:
                os.close(fd)
            except OSError:
                pass

    class Rest:
        """The epoch's order from `start` on: what the DataLoader has still to deliver."""

        def __init__(self):
            self.order, self.start = range(0), 0

        def __iter__(self):
            return iter(self.order[self.start:])

        def __len__(self):
            return max(0, len(self.order) - self.start)

    torch.set_num_threads(1)
    dataset = Timed(settings["kind"])
    count = len(dataset)
    live = {key: settings[key] for key in LIVE}
    rest = Rest()

    def epoch_order(epoch):
        if not live["shuffle"]:
            return range(count)
        generator = torch.Generator().manual_seed((settings["seed"] * 1000003 + epoch) % 2**63)
        return torch.randperm(count, generator=generator).tolist()

    def make_loader():
        options = {}
        if live["workers"] > 0:
            options = {"prefetch_factor": live["prefetch"],
                       "persistent_workers": live["persistent"], "worker_init_fn": worker_init}
        return DataLoader(dataset, batch_size=live["batch_size"], sampler=rest,
                          num_workers=live["workers"], drop_last=settings["drop_last"],
                          pin_memory=live["pin_memory"], collate_fn=collate, **options)

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
    emit({"type": "start", "torch": torch.__version__, "samples": count,
          "t0": time.monotonic_ns()})
    max_batches, epochs = settings["max_batches"], settings["epochs"]
    index = epoch = version = 0
    iterator = None
    paused = False
    change = None  # the latest reconfiguration not applied yet: (version, settings)

    def take(received):
        nonlocal paused, change
        for command in received:
            kind = command.get("cmd")
            if kind == "pause":
                paused = True
            elif kind == "resume":
                paused = False
            elif kind == "reconfigure":
                change = (command["version"], {key: command[key] for key in LIVE})

    while (epochs == 0 or epoch < epochs) and (max_batches == 0 or index < max_batches):
        rest.order, rest.start = epoch_order(epoch), 0
        iterator = iter(loader)
        while max_batches == 0 or index < max_batches:
            # The batch boundary: LoaderLab's commands, without waiting.
            take(commands.read(0))
            if paused:
                emit({"type": "paused", "index": index, "t": time.monotonic_ns()})
                while paused:
                    take(commands.read(None))
                emit({"type": "resumed", "index": index, "t": time.monotonic_ns()})
            request = time.monotonic_ns()
            if change is not None:
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
                samples, _labels, info = next(iterator)
            except StopIteration:
                break
            delivery = time.monotonic_ns()
            size = int(samples.shape[0])
            pause = (live["sleep_batch_ms"] + live["sleep_sample_ms"] * size) / 1000.0
            if pause > 0:
                time.sleep(pause)
            info.update({"type": "batch", "index": index, "epoch": epoch, "samples": size,
                         "version": version, "first": rest.start, "request": request,
                         "delivery": delivery, "compute_start": delivery,
                         "compute_end": time.monotonic_ns()})
            emit(info)
            rest.start += size
            index += 1
        epoch += 1
    shut_down(loader, iterator)
    emit({"type": "end", "batches": index})
    return 0


if __name__ == "__main__":
    sys.exit(main())
