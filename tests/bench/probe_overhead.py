"""What loaderlab_probe.watch() adds to a training loop (docs/your-pipeline.md):
the same loop of BATCHES batches (a DataLoader with 2 workers over small tensors,
a step of a few matrix products) timed plain and watched, ROUNDS rounds alternating
which goes first; prints each round's seconds and the ratio watched / plain, then
min / median / max. Target: at most 1 % (ratio <= 1.01).

A loop of a few milliseconds a batch on a shared 2-core machine varies by several
per cent from run to run, more than the 1 % to be shown. So the probe's own cost is
also measured directly: the same batches with no worker processes (the probe's
work in the workers, timing each sample, then runs in this process too) and no
step, where the CPU time of this one process per batch, plain and watched, differs
only by what the probe does; ROUNDS alternating rounds again. That cost per batch,
over the first loop's median time per batch, is the probe's share of that loop.

    PYTHONPATH=$(build/app/loaderlab python-path) /usr/bin/python3 \
        tests/bench/probe_overhead.py [ROUNDS] [BATCHES]
"""

import os
import subprocess
import sys
import tempfile
import time

import torch
from torch.utils.data import DataLoader, Dataset

import loaderlab_probe


class Vectors(Dataset):
    def __len__(self):
        return 1 << 30

    def __getitem__(self, i):
        return torch.full((256,), float(i % 97))


def loop(batches, out):
    torch.manual_seed(0)
    loader = DataLoader(Vectors(), batch_size=32, num_workers=2, persistent_workers=True)
    if out is not None:
        loader = loaderlab_probe.watch(loader, out=out)
    weight = torch.randn(256, 256)
    start = time.monotonic()
    for i, batch in enumerate(loader):
        x = batch
        for _ in range(4):
            x = torch.tanh(x @ weight)
        if i + 1 == batches:
            break
    seconds = time.monotonic() - start
    if out is not None:
        loader.close()
    return seconds


def cpu_per_batch(batches, out):
    """CPU seconds per batch of this process iterating BATCHES batches, no workers."""
    loader = DataLoader(Vectors(), batch_size=32, num_workers=0)
    if out is not None:
        loader = loaderlab_probe.watch(loader, out=out)
    start = time.process_time()
    for i, _batch in enumerate(loader):
        if i + 1 == batches:
            break
    seconds = time.process_time() - start
    if out is not None:
        loader.close()
    return seconds / batches


def alternated(r, plain, watched):
    """Both sides of round r, plain first in even rounds: (plain's, watched's) result."""
    if r % 2 == 0:
        first = plain()
        return first, watched()
    second = watched()
    return plain(), second


def spread(values):
    values = sorted(values)
    middle = len(values) // 2
    median = values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2
    return values[0], median, values[-1]


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    batches = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    torch.set_num_threads(1)
    commit = subprocess.run(["git", "-C", os.path.dirname(os.path.abspath(__file__)), "describe",
                             "--always", "--dirty", "--abbrev=12"], capture_output=True,
                            text=True).stdout.strip()
    print("commit:  %s" % commit)
    print("machine: %d CPUs, torch %s" % (os.cpu_count(), torch.__version__))
    print("loop:    %d batches of 32 x 256, 2 workers, a 4-layer 256x256 step" % batches)
    ratios, per_batch = [], []
    with tempfile.TemporaryDirectory() as work:
        for r in range(rounds):
            out = os.path.join(work, "run%d" % r)
            plain, watched = alternated(r, lambda: loop(batches, None),
                                        lambda: loop(batches, out))
            with open(out + ".csv") as f:
                rows = sum(1 for _ in f) - 1
            assert rows == batches, (rows, batches)
            ratios.append(watched / plain)
            per_batch.append(plain / batches)
            print("round %d (load %s): plain %.3f s, watched %.3f s, ratio %.4f"
                  % (r + 1, " ".join(open("/proc/loadavg").read().split()[:3]), plain, watched,
                     ratios[-1]))
    print("ratio watched/plain over %d rounds (min / median / max): %.4f / %.4f / %.4f"
          % ((rounds,) + spread(ratios)))

    direct = 5 * batches
    print("direct:  %d batches of 32 x 256, no workers, no step; CPU time of this process"
          % direct)
    costs = []
    with tempfile.TemporaryDirectory() as work:
        # Imports and caches of both sides, not timed.
        alternated(0, lambda: cpu_per_batch(direct // 5, None),
                   lambda: cpu_per_batch(direct // 5, os.path.join(work, "warm-up")))
        for r in range(rounds):
            out = os.path.join(work, "direct%d" % r)
            plain, watched = alternated(r, lambda: cpu_per_batch(direct, None),
                                        lambda: cpu_per_batch(direct, out))
            costs.append(watched - plain)
            print("round %d: plain %.1f us/batch, watched %.1f us/batch, probe %.1f us/batch"
                  % (r + 1, plain * 1e6, watched * 1e6, costs[-1] * 1e6))
    low, median, high = spread(costs)
    loop_batch = spread(per_batch)[1]
    print("probe us/batch over %d rounds (min / median / max): %.1f / %.1f / %.1f"
          % (rounds, low * 1e6, median * 1e6, high * 1e6))
    print("probe share of the loop above (%.2f ms a batch): %.2f %% / %.2f %% / %.2f %%"
          % (loop_batch * 1e3, 100 * low / loop_batch, 100 * median / loop_batch,
             100 * high / loop_batch))


if __name__ == "__main__":
    main()
