"""What loaderlab_probe.watch() adds to a training loop (docs/your-pipeline.md):
the same loop of BATCHES batches (a DataLoader with 2 workers over small tensors,
a step of a few matrix products) timed plain and watched, ROUNDS rounds alternating
which goes first; prints each round's seconds and the ratio watched / plain, then
min / median / max. Target: at most 1 % (ratio <= 1.01).

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
    ratios = []
    with tempfile.TemporaryDirectory() as work:
        for r in range(rounds):
            out = os.path.join(work, "run%d" % r)
            if r % 2 == 0:
                plain, watched = loop(batches, None), loop(batches, out)
            else:
                watched, plain = loop(batches, out), loop(batches, None)
            with open(out + ".csv") as f:
                rows = sum(1 for _ in f) - 1
            assert rows == batches, (rows, batches)
            ratios.append(watched / plain)
            print("round %d (load %s): plain %.3f s, watched %.3f s, ratio %.4f"
                  % (r + 1, " ".join(open("/proc/loadavg").read().split()[:3]), plain, watched,
                     ratios[-1]))
    ratios.sort()
    median = ratios[len(ratios) // 2] if len(ratios) % 2 else sum(
        ratios[len(ratios) // 2 - 1:len(ratios) // 2 + 1]) / 2
    print("ratio watched/plain over %d rounds (min / median / max): %.4f / %.4f / %.4f"
          % (rounds, ratios[0], median, ratios[-1]))


if __name__ == "__main__":
    main()
