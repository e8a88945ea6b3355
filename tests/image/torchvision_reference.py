#!/usr/bin/python3
"""The independent reference for test_torchvision_exact: writes a folder of test
images with Pillow (JPEGs of several subsamplings, progressive, greyscale, CMYK, odd and
small sizes, crops of real photographs when mate-backgrounds is installed, and a
PNG), then runs torchvision's own ImageFolder + eval transform (Resize, CenterCrop,
ToTensor, Normalize; PIL decodes) over it and writes every sample's float32 CHW
tensor, in ImageFolder order, to OUT.

    torchvision_reference.py FOLDER OUT RESIZE CROP

Exit status 77 when torch or torchvision is missing (the test then skips).
"""

import glob
import os
import random
import sys

try:
    import torch
    from PIL import Image
    from torchvision import datasets, transforms
except ImportError as error:
    print(f"skip: {error}", file=sys.stderr)
    sys.exit(77)


def pattern(width, height, seed):
    """Smooth gradients, sharp edges and noise: every filter tap matters."""
    rng = random.Random(seed)
    data = bytearray()
    for y in range(height):
        for x in range(width):
            edge = 255 if (x // 7 + y // 5) % 2 else 0
            data += bytes(((x * 255 // max(width - 1, 1) + rng.randint(0, 40)) % 256,
                           (y * 3 + edge // 2) % 256,
                           (edge + rng.randint(0, 255)) // 2))
    return Image.frombytes("RGB", (width, height), bytes(data))


def write_images(folder):
    os.makedirs(os.path.join(folder, "a"), exist_ok=True)
    os.makedirs(os.path.join(folder, "b"), exist_ok=True)
    sizes = [(500, 375), (333, 500), (256, 256), (301, 299), (640, 427), (100, 80), (257, 1000)]
    for i, (w, h) in enumerate(sizes):
        img = pattern(w, h, i)
        img.save(os.path.join(folder, "a", f"s420_{i}.jpg"), quality=90, subsampling=2)
        img.save(os.path.join(folder, "a", f"s444_{i}.jpg"), quality=95, subsampling=0)
    pattern(499, 371, 11).save(os.path.join(folder, "a", "s422.jpg"), quality=85, subsampling=1)
    pattern(480, 360, 12).save(os.path.join(folder, "a", "progressive.jpg"), quality=80,
                               progressive=True)
    pattern(410, 390, 13).convert("L").save(os.path.join(folder, "a", "grey.jpg"), quality=90)
    # CMYK: Pillow writes Adobe's inverted polarity and reads it back the same way.
    pattern(420, 300, 15).convert("CMYK").save(os.path.join(folder, "a", "cmyk.jpg"), quality=90)
    pattern(300, 350, 14).save(os.path.join(folder, "a", "image.png"))
    photos = sorted(glob.glob("/usr/share/backgrounds/mate/*/*.jpg"))[:6]
    for i, path in enumerate(photos):
        photo = Image.open(path).convert("RGB")
        photo.thumbnail((1200, 1200))
        photo.save(os.path.join(folder, "b", f"photo{i}.jpg"), quality=rng_quality(i))
        photo.crop((0, 0, 620, 410)).save(os.path.join(folder, "b", f"crop{i}.jpg"), quality=92)


def rng_quality(i):
    return 75 + (i * 7) % 21


def main():
    folder, out, resize, crop = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    write_images(folder)
    transform = transforms.Compose([
        transforms.Resize(resize),
        transforms.CenterCrop(crop),
        transforms.ToTensor(),
        transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
    ])
    dataset = datasets.ImageFolder(folder, transform=transform)
    with open(out, "wb") as f:
        for sample, _label in dataset:
            f.write(sample.contiguous().numpy().astype("<f4").tobytes())
    print(len(dataset))
    return 0


if __name__ == "__main__":
    sys.exit(main())
