"""A LoaderLab pipeline file: text files read as a stream, tokenised in the
workers (each worker reads its own share of the files), and a small language
model's training step.

    loaderlab run --dataset python --path text_tokens.py --workers 2

The text is Python's own standard library (any folder of text files will do:
--set dataset.args.root=/path/to/texts). An IterableDataset has no length: an
epoch ends when every worker has read its files, and a change that needs new
workers applies at the next epoch.

dataset.args (all optional):
    root       folder read recursively               (Python's standard library)
    suffix     files read                            (".py")
    max_files  the first N files in sorted order     (300)
    seq_len    tokens per sample                     (64)
    vocab      hashed vocabulary size                (1024)
    step       "train", "forward" or "none"          ("train"; "none": LoaderLab's
                                                     simulated step)
"""

import os
import re
import zlib

import torch
import torch.nn.functional as F
from torch.utils.data import IterableDataset, get_worker_info

from loaderlab_probe import stage

WORD = re.compile(r"\w+|[^\w\s]")


def text_files(root, suffix, limit):
    found = []
    for folder, _dirs, names in os.walk(root):
        found.extend(os.path.join(folder, n) for n in names if n.endswith(suffix))
    found.sort()
    return found[:limit] if limit > 0 else found


class TokenWindows(IterableDataset):
    """Windows of `seq_len` + 1 token ids (input and next-token target)."""

    def __init__(self, files, seq_len, vocab):
        self.files, self.seq_len, self.vocab = files, seq_len, vocab

    def __iter__(self):
        info = get_worker_info()
        mine = self.files if info is None else self.files[info.id::info.num_workers]
        window = self.seq_len + 1
        for path in mine:
            with stage("read"):
                with open(path, "rb") as f:
                    raw = f.read()
            with stage("decode"):
                text = raw.decode("utf-8", errors="replace")
            with stage("transform"):
                ids = [zlib.crc32(w.encode()) % self.vocab for w in WORD.findall(text)]
            for start in range(0, len(ids) - window + 1, window):
                yield torch.tensor(ids[start:start + window], dtype=torch.long)


def make_dataset(args):
    root = args.get("root") or os.path.dirname(os.__file__)
    files = text_files(root, args.get("suffix", ".py"), int(args.get("max_files", 300)))
    if not files:
        raise FileNotFoundError("%s: no %s files" % (root, args.get("suffix", ".py")))
    return TokenWindows(files, int(args.get("seq_len", 64)), int(args.get("vocab", 1024)))


class TinyLm(torch.nn.Module):
    def __init__(self, vocab, width=64):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, width)
        self.mix = torch.nn.Conv1d(width, width, 5, padding=4)
        self.out = torch.nn.Linear(width, vocab)

    def forward(self, ids):
        x = self.embed(ids).transpose(1, 2)
        x = F.gelu(self.mix(x)[..., :ids.shape[1]]).transpose(1, 2)
        return self.out(x)


def make_step(args):
    mode = args.get("step", "train")
    if mode == "none":
        return None  # LoaderLab's simulated step (or none)
    vocab = int(args.get("vocab", 1024))
    model = TinyLm(vocab)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

    def step(batch):
        inputs, targets = batch[:, :-1], batch[:, 1:]
        if mode == "forward":
            with torch.no_grad():
                model(inputs)
            return
        optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(inputs).reshape(-1, vocab), targets.reshape(-1))
        loss.backward()
        optimizer.step()

    return step
