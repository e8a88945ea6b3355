"""LoaderLab's PyTorch engine: PyTorch's real DataLoader (worker processes) over the
same dataset, transform, batch size, workers, prefetch, shuffle and simulated step
as a LoaderLab run, streaming one JSON line per batch on stdout. Times are
time.monotonic_ns() (CLOCK_MONOTONIC, the clock LoaderLab's steady_clock reads),
so LoaderLab places them on its own time line. Embedded in the loaderlab binary
and run with `python3 -c`; the settings come as one JSON argument."""

import io
import json
import os
import signal
import sys
import time

RECORDS = sys.stdout


def emit(record):
    RECORDS.write(json.dumps(record, separators=(",", ":")) + "\n")
    RECORDS.flush()


def main():
    global RECORDS
    # The records go to a copy of stdout, and stdout itself (fd 1, which the worker
    # processes inherit) to stderr: whatever else prints, a library or a worker,
    # cannot put a line that is not a record in LoaderLab's channel.
    sys.stdout.flush()
    RECORDS = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    settings = json.loads(sys.argv[1])
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        import torch
        from PIL import Image
        from torch.utils.data import DataLoader, Dataset, get_worker_info
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
                                   decoded - read, end - decoded)

    def collate(items):
        begin = time.monotonic_ns()
        samples = torch.stack([i[0] for i in items])
        labels = torch.tensor([i[1] for i in items])
        times = [i[2] for i in items]
        return samples, labels, {
            "worker": times[0][0], "load_start": min(t[1] for t in times), "collate_start": begin,
            "read": sum(t[3] for t in times), "decode": sum(t[4] for t in times),
            "transform": sum(t[5] for t in times), "load_end": time.monotonic_ns()}

    def worker_init(_worker_id):
        torch.set_num_threads(1)  # one thread per worker, as LoaderLab's workers

    torch.set_num_threads(1)
    dataset = Timed(settings["kind"])
    workers = settings["workers"]
    generator = torch.Generator().manual_seed(settings["seed"] % 2**63)
    options = {}
    if workers > 0:
        options = {"prefetch_factor": settings["prefetch"],
                   "persistent_workers": settings["persistent"], "worker_init_fn": worker_init}
    loader = DataLoader(dataset, batch_size=settings["batch_size"], shuffle=settings["shuffle"],
                        num_workers=workers, drop_last=settings["drop_last"],
                        pin_memory=settings["pin_memory"], collate_fn=collate,
                        generator=generator, **options)
    # The run's clock starts here, as LoaderLab's starts when its loader is built:
    # Python's start and `import torch` (about a second) are not the loader's.
    emit({"type": "start", "torch": torch.__version__, "samples": len(dataset),
          "t0": time.monotonic_ns()})
    step_s = settings["sleep_batch_ms"] / 1000.0
    per_sample_s = settings["sleep_sample_ms"] / 1000.0
    max_batches, epochs = settings["max_batches"], settings["epochs"]
    index = 0
    epoch = 0
    while (epochs == 0 or epoch < epochs) and (max_batches == 0 or index < max_batches):
        iterator = iter(loader)
        while max_batches == 0 or index < max_batches:
            request = time.monotonic_ns()
            try:
                samples, _labels, info = next(iterator)
            except StopIteration:
                break
            delivery = time.monotonic_ns()
            pause = step_s + per_sample_s * samples.shape[0]
            if pause > 0:
                time.sleep(pause)
            info.update({"type": "batch", "index": index, "epoch": epoch,
                         "samples": int(samples.shape[0]), "request": request,
                         "delivery": delivery, "compute_start": delivery,
                         "compute_end": time.monotonic_ns()})
            emit(info)
            index += 1
        epoch += 1
    emit({"type": "end", "batches": index})
    return 0


if __name__ == "__main__":
    sys.exit(main())
