#!/usr/bin/env python3
"""PyTorch's own DataLoader on an ImageFolder: the reference the loader benchmark
(loader_benchmark.cpp) compares LoaderLab against. Same eval transform (Resize 256,
CenterCrop 224, ToTensor, Normalize with the ImageNet mean and std), batch size,
worker count and epochs. Prints one JSON line with images_per_sec on stdout.

By default the workers are PyTorch's default: forked again for every epoch, so each
timed epoch pays their start-up. With --persistent-workers (persistent_workers=True)
they are forked once, in the warm-up epochs, and kept: the fair twin of LoaderLab's
persistent threads."""

import argparse
import json
import os
import resource
import sys
import time

import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

IMAGENET_MEAN = [0.485, 0.456, 0.406]
IMAGENET_STD = [0.229, 0.224, 0.225]


def worker_init(_worker_id):
    # One intra-op thread per worker, like LoaderLab's one thread per worker;
    # otherwise each worker process would spread its tensor ops over every core.
    torch.set_num_threads(1)


def process_cpu_seconds(pid):
    """User + system CPU time of a live process, from /proc/PID/stat."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    # Fields 14 and 15 of stat(5) (utime, stime); index 0 here is field 3.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_seconds(loader):
    """CPU time of this process, of its reaped children (non-persistent workers are
    joined when their epoch ends, so a whole epoch is counted) and of the worker
    processes still alive (persistent workers, never reaped while timed)."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    iterator = getattr(loader, "_iterator", None)
    for worker in getattr(iterator, "_workers", []) if loader.persistent_workers else []:
        if worker.is_alive():
            total += process_cpu_seconds(worker.pid)
    return total


def run_epochs(loader, epochs):
    images = 0
    for _ in range(epochs):
        for batch, _labels in loader:
            images += batch.shape[0]
    return images


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", required=True, help="ImageFolder root")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--warmup-epochs", type=int, default=1)
    parser.add_argument("--persistent-workers", action="store_true",
                        help="persistent_workers=True: fork the workers once")
    args = parser.parse_args()
    persistent = args.persistent_workers and args.workers > 0

    torch.set_num_threads(1)
    transform = transforms.Compose([
        transforms.Resize(256),
        transforms.CenterCrop(224),
        transforms.ToTensor(),
        transforms.Normalize(IMAGENET_MEAN, IMAGENET_STD),
    ])
    dataset = datasets.ImageFolder(args.root, transform=transform)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=False,
                        num_workers=args.workers,
                        worker_init_fn=worker_init if args.workers > 0 else None,
                        persistent_workers=persistent)

    run_epochs(loader, args.warmup_epochs)
    cpu_start = cpu_seconds(loader)
    start = time.perf_counter()
    images = run_epochs(loader, args.epochs)
    seconds = time.perf_counter() - start
    cpu = cpu_seconds(loader) - cpu_start

    print(json.dumps({
        "images": images,
        "seconds": seconds,
        "images_per_sec": images / seconds if seconds > 0 else 0.0,
        "cpu_seconds": cpu,
        "batch_size": args.batch_size,
        "workers": args.workers,
        "persistent_workers": persistent,
        "epochs": args.epochs,
        "torch": torch.__version__,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
