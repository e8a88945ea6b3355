#!/usr/bin/python3
"""Builds an ImageNet-like folder of real photographs for the loader benchmark.

Source: the JPEG photographs of Debian's mate-backgrounds package
(/usr/share/backgrounds/mate, 16 photos of 0.9 to 24 Mpx). Each output image is a
random crop of one photo (a quarter to all of its short side, aspect ratio 3:4 to
4:3, like ImageNet's mix of portrait and landscape shots), resized with Pillow's
antialiasing to a short side drawn from [--min-short, --max-short] and saved as a
baseline 4:2:0 JPEG at a quality drawn from 75..95, as cameras and web sites
write them. Deterministic for a given --seed; writes <out>/<class>/<n>.jpg with
--classes folders of --per-class images, classes cycling through the photos.

    make_photo_folder.py OUT [--classes 10] [--per-class 100] [--min-short 300]
                         [--max-short 500] [--source DIR] [--seed 1]
"""

import argparse
import os
import random
import sys

from PIL import Image

Image.MAX_IMAGE_PIXELS = None  # the sources are trusted Debian files


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--source", default="/usr/share/backgrounds/mate")
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--per-class", type=int, default=100)
    parser.add_argument("--min-short", type=int, default=300)
    parser.add_argument("--max-short", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    sources = sorted(os.path.join(d, f) for d, _, files in os.walk(args.source)
                     for f in files if f.lower().endswith((".jpg", ".jpeg")))
    if not sources:
        print(f"no JPEG photographs under {args.source} "
              "(apt-get install mate-backgrounds)", file=sys.stderr)
        return 1
    rng = random.Random(args.seed)
    part = args.out + ".part"
    written = 0
    for c in range(args.classes):
        photo = Image.open(sources[c % len(sources)]).convert("RGB")
        width, height = photo.size
        folder = os.path.join(part, f"class{c:02d}")
        os.makedirs(folder, exist_ok=True)
        for i in range(args.per_class):
            short = rng.randint(args.min_short, args.max_short)
            aspect = rng.uniform(3 / 4, 4 / 3)
            # Crop side lengths in source pixels: never smaller than the output, so
            # every image is a downscale, as photographs in a dataset are.
            crop_short = rng.uniform(max(short, min(width, height) / 4), min(width, height))
            cw = min(width, int(crop_short * max(aspect, 1)))
            ch = min(height, int(crop_short / min(aspect, 1)))
            left = rng.randint(0, width - cw)
            top = rng.randint(0, height - ch)
            tile = photo.crop((left, top, left + cw, top + ch))
            scale = short / min(cw, ch)
            size = (max(short, round(cw * scale)), max(short, round(ch * scale)))
            tile = tile.resize(size, Image.BILINEAR, reducing_gap=None)
            tile.save(os.path.join(folder, f"{i:04d}.jpg"), quality=rng.randint(75, 95))
            written += 1
    if os.path.exists(args.out):
        print(f"{args.out} exists; the new folder is {part}", file=sys.stderr)
        return 1
    os.rename(part, args.out)
    print(f"wrote {written} images from {len(sources)} photographs to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
