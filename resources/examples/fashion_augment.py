"""A LoaderLab pipeline file: Fashion-MNIST as NumPy arrays, with a heavy
augmentation in the workers and a small CNN's training step.

    loaderlab run --dataset python --path fashion_augment.py --workers 2
    loaderlab run --dataset python --path fashion_augment.py --workers 1 --devices 2
    loaderlab sweep --dataset python --path fashion_augment.py \
        --axis loader.num_workers=0,1,2 --axis loader.batch_size=32,128

dataset.args (all optional; --set dataset.args.NAME=VALUE):
    root     folder of the IDX files    (Debian's dataset-fashion-mnist package)
    split    "train" or "t10k"          ("train": 60,000 images)
    samples  use the first N images     (0: all)
    size     side the 28 px images are augmented at, in pixels (64)
    step     "train" (forward, backward, SGD step), "forward" or "none" (no step of
             the file's own: LoaderLab's simulated step, --sleep-batch-ms) ("train")
"""

import gzip
import math
import os

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import Dataset

from loaderlab_probe import data_parallel, stage

DEFAULT_ROOT = "/usr/share/datasets/fashion-mnist"


def read_idx(path):
    """An IDX file (gzip or plain) as a NumPy array."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def find(root, name):
    for candidate in (name + ".gz", name):
        path = os.path.join(root, candidate)
        if os.path.exists(path):
            return path
    raise FileNotFoundError("%s: no %s(.gz) (install dataset-fashion-mnist or set "
                            "dataset.args.root)" % (root, name))


class AugmentedFashion(Dataset):
    """Each image: scaled up to `size`, a random rotation, scale and shift, a blur,
    noise and a random erased patch; per sample, in the worker that loads it."""

    def __init__(self, root, split, samples, size):
        self.images = read_idx(find(root, split + "-images-idx3-ubyte"))
        self.labels = read_idx(find(root, split + "-labels-idx1-ubyte"))
        if samples > 0:
            self.images, self.labels = self.images[:samples], self.labels[:samples]
        self.size = size
        kernel = torch.tensor([1.0, 4.0, 6.0, 4.0, 1.0])
        kernel = torch.outer(kernel, kernel)
        self.blur = (kernel / kernel.sum()).view(1, 1, 5, 5)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        generator = torch.Generator().manual_seed(index * 7919 + torch.initial_seed() % 65536)
        with stage("read"):
            pixels = torch.from_numpy(self.images[index].astype(np.float32) / 255.0)
            label = int(self.labels[index])
        with stage("transform"):
            image = F.interpolate(pixels.view(1, 1, 28, 28), size=(self.size, self.size),
                                  mode="bilinear", align_corners=False)
            angle = (torch.rand(1, generator=generator).item() - 0.5) * math.pi / 3
            scale = 0.8 + 0.4 * torch.rand(1, generator=generator).item()
            shift = (torch.rand(2, generator=generator) - 0.5) * 0.2
            cos, sin = math.cos(angle) / scale, math.sin(angle) / scale
            theta = torch.tensor([[[cos, -sin, shift[0].item()], [sin, cos, shift[1].item()]]])
            grid = F.affine_grid(theta, list(image.shape), align_corners=False)
            image = F.grid_sample(image, grid, align_corners=False)
            image = F.conv2d(image, self.blur, padding=2)
            image = image + 0.05 * torch.randn(image.shape, generator=generator)
            side = self.size // 4
            x, y = torch.randint(0, self.size - side, (2,), generator=generator).tolist()
            image[..., y:y + side, x:x + side] = 0.0
        return image.view(1, self.size, self.size), label


def make_dataset(args):
    return AugmentedFashion(args.get("root", DEFAULT_ROOT), args.get("split", "train"),
                            int(args.get("samples", 0)), int(args.get("size", 64)))


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(16, 32, 3, padding=1)
        self.head = torch.nn.Linear(32, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.relu(self.conv2(x))
        return self.head(F.adaptive_avg_pool2d(x, 1).flatten(1))


def make_step(args):
    mode = args.get("step", "train")
    if mode == "none":
        return None  # LoaderLab's simulated step (or none)
    # Under --devices N, each rank's model all-reduces its gradients in backward.
    model = data_parallel(SmallCnn())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

    def step(batch):
        images, labels = batch
        if mode == "forward":
            with torch.no_grad():
                model(images)
            return
        optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()

    return step
