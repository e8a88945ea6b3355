#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora: tests/fuzz/corpus/<target>/*.

A few valid inputs (so the fuzzer starts from the parsers' accepting paths) and a
few broken ones (a bad magic, a truncated file, a count mismatch), all small.
Run it again after changing a format; the output is deterministic. Inputs that
fuzzing found (a crash, kept so every run replays it) are added to the corpus by
hand and are not written here, e.g. fuzz_run_config_json/int_from_huge_float.json.

    python3 tests/fuzz/corpus/make_seeds.py
"""

import gzip
import json
import pathlib
import struct
import zlib

HERE = pathlib.Path(__file__).resolve().parent

# A 6x4 baseline JPEG (cv::imencode of a flat colour, quality 50): Python's standard
# library cannot write JPEG.
JPEG_6X4 = bytes.fromhex(
    "ffd8ffe000104a46494600010100000100010000ffdb004300100b0c0e0c0a100e0d0e1211101318281a181616183123251d283a333d3c3933383740485c4e404457453738506d51575f626768673e4d71797064785c656763ffdb0043011112121815182f1a1a2f634238426363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363636363ffc00011080004000603012200021101031101ffc4001f0000010501010101010100000000000000000102030405060708090a0bffc400b5100002010303020403050504040000017d01020300041105122131410613516107227114328191a1082342b1c11552d1f02433627282090a161718191a25262728292a3435363738393a434445464748494a535455565758595a636465666768696a737475767778797a838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9faffc4001f0100030101010101010101010000000000000102030405060708090a0bffc400b51100020102040403040705040400010277000102031104052131061241510761711322328108144291a1b1c109233352f0156272d10a162434e125f11718191a262728292a35363738393a434445464748494a535455565758595a636465666768696a737475767778797a82838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae2e3e4e5e6e7e8e9eaf2f3f4f5f6f7f8f9faffda000c03010002110311003f007514515f3e7ae7ffd9")


def write(target, name, data):
    folder = HERE / target
    folder.mkdir(exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    (folder / name).write_bytes(data)


def run_config_json():
    full = {
        "dataset": {"kind": "folder", "path": "/data/imagenette", "transform": "eval",
                    "resize": 256, "crop": 224, "synthetic_shape": [3, 224, 224],
                    "synthetic_samples": 4096, "max_image_pixels": 178956970,
                    "max_file_bytes": 268435456},
        "loader": {"batch_size": 32, "num_workers": 2, "prefetch_factor": 2, "shuffle": False,
                   "seed": 0, "drop_last": False, "persistent_workers": False,
                   "pin_memory": False, "in_order": True, "strategy": "per-worker",
                   "bad_samples": "skip"},
        "consumer": {"kind": "sleep", "sleep_per_batch_ms": 5, "sleep_per_sample_ms": 0.1},
        "epochs": 1, "max_batches": 0, "max_seconds": 0, "warmup_batches": 5,
    }
    write("fuzz_run_config_json", "full.json", json.dumps(full, indent=2))
    write("fuzz_run_config_json", "empty.json", "{}")
    write("fuzz_run_config_json", "synthetic.json",
          '{"dataset": {"kind": "synthetic", "synthetic_shape": [1, 28, 28]},'
          ' "loader": {"strategy": "sample-parallel", "bad_samples": "fail"}}')
    write("fuzz_run_config_json", "model.json",
          '{"consumer": {"kind": "model", "model": {"name": "resnet18", "mode": "inference",'
          ' "device": "cpu", "precision": "fp32", "threads": 0, "learning_rate": 0.01,'
          ' "num_classes": 10}}}')
    write("fuzz_run_config_json", "unknown_key.json", '{"loader": {"batch": 4}}')
    write("fuzz_run_config_json", "wrong_type.json", '{"epochs": "two"}')
    write("fuzz_run_config_json", "negative.json", '{"loader": {"batch_size": -1}}')
    write("fuzz_run_config_json", "bad_shape.json", '{"dataset": {"synthetic_shape": [3, 0]}}')
    write("fuzz_run_config_json", "not_json.json", '{"epochs": 1,')


def idx_images(count, rows, cols, magic=0x803):
    pixels = bytes((i * 37) & 0xFF for i in range(count * rows * cols))
    return struct.pack(">IIII", magic, count, rows, cols) + pixels


def idx_labels(count, magic=0x801):
    return struct.pack(">II", magic, count) + bytes(i % 10 for i in range(count))


def idx_input(images, labels):
    # fuzz_idx.cpp: a little-endian length of the images part, then both files.
    return struct.pack("<I", len(images)) + images + labels


def idx():
    write("fuzz_idx", "valid", idx_input(idx_images(3, 4, 5), idx_labels(3)))
    write("fuzz_idx", "valid_gzip",
          idx_input(gzip.compress(idx_images(2, 3, 3), mtime=0), gzip.compress(idx_labels(2), mtime=0)))
    write("fuzz_idx", "bad_magic", idx_input(idx_images(2, 2, 2, magic=0x802), idx_labels(2)))
    write("fuzz_idx", "count_mismatch", idx_input(idx_images(2, 2, 2), idx_labels(3)))
    write("fuzz_idx", "truncated_pixels", idx_input(idx_images(2, 4, 4)[:-5], idx_labels(2)))
    write("fuzz_idx", "huge_count",
          idx_input(struct.pack(">IIII", 0x803, 0xFFFFFFFF, 28, 28) + bytes(16), idx_labels(2)))
    write("fuzz_idx", "trailing_data", idx_input(idx_images(1, 2, 2) + b"x", idx_labels(1)))
    truncated_gzip = gzip.compress(idx_images(2, 3, 3), mtime=0)[:-6]
    write("fuzz_idx", "truncated_gzip", idx_input(truncated_gzip, idx_labels(2)))


def cifar_record(label):
    return bytes([label]) + bytes((label * 7 + i) & 0xFF for i in range(3 * 32 * 32))


def cifar10():
    write("fuzz_cifar10", "one_record.bin", cifar_record(3))
    write("fuzz_cifar10", "two_records.bin", cifar_record(0) + cifar_record(9))
    write("fuzz_cifar10", "bad_label.bin", cifar_record(10))
    write("fuzz_cifar10", "truncated.bin", cifar_record(1)[:-1])
    write("fuzz_cifar10", "empty.bin", b"")


def tensor_file(dtype, shape, count, *, magic=b"LLTENSOR", version=1, record=None, extra=0):
    c, h, w = shape
    size = 4 if dtype == 0 else 1
    record_bytes = 8 + c * h * w * size if record is None else record
    header = magic + struct.pack("<IIIIIIQQ", version, dtype, c, h, w, 0, count, record_bytes)
    header += bytes(64 - len(header))
    body = b"".join(struct.pack("<q", i) + bytes((i + j) & 0xFF for j in range(c * h * w * size))
                    for i in range(count))
    return header + body + bytes(extra)


def tensor():
    write("fuzz_tensor_file", "float32", tensor_file(0, (1, 2, 3), 2))
    write("fuzz_tensor_file", "uint8", tensor_file(1, (3, 2, 2), 3))
    write("fuzz_tensor_file", "empty_records", tensor_file(1, (1, 1, 1), 0))
    write("fuzz_tensor_file", "bad_magic", tensor_file(0, (1, 1, 1), 1, magic=b"LLTENSOX"))
    write("fuzz_tensor_file", "bad_version", tensor_file(0, (1, 1, 1), 1, version=2))
    write("fuzz_tensor_file", "bad_record_size", tensor_file(1, (1, 2, 2), 1, record=13))
    write("fuzz_tensor_file", "extra_bytes", tensor_file(1, (1, 2, 2), 1, extra=3))
    write("fuzz_tensor_file", "header_only", tensor_file(0, (1, 2, 2), 5)[:64])
    write("fuzz_tensor_file", "short_header", b"LLTENSOR\x01\x00\x00\x00")


def png(width, height, *, declared=None):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    dw, dh = declared or (width, height)
    ihdr = struct.pack(">IIBBBBB", dw, dh, 8, 2, 0, 0, 0)   # 8-bit RGB
    rows = b"".join(b"\x00" + bytes((x * 40 + y * 20) & 0xFF for x in range(width * 3))
                    for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


def image_header():
    write("fuzz_image_header", "valid.png", png(3, 2))
    write("fuzz_image_header", "valid.jpg", JPEG_6X4)
    write("fuzz_image_header", "bomb.png", png(1, 1, declared=(100000, 100000)))
    write("fuzz_image_header", "lies_about_size.png", png(2, 2, declared=(3, 2)))
    write("fuzz_image_header", "truncated.jpg", JPEG_6X4[: len(JPEG_6X4) // 2])
    write("fuzz_image_header", "no_sof.jpg", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9")
    write("fuzz_image_header", "not_an_image.txt", b"GIF89a, not a JPEG or PNG")
    write("fuzz_image_header", "short.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHD")


def pytorch_channel():
    """The PyTorch engine's records channel: one JSON record a line (core/engine/pytorch/pytorch_channel.h).
    The fuzz target's context: times in [1000, 10^12], batch size 8, 2 workers, 3 epochs,
    changes 2 and 3 asked for."""
    def batch(i, epoch=0, first=None, **changes):
        record = {"type": "batch", "index": i, "epoch": epoch, "worker": i % 2, "samples": 8,
                  "version": 0, "first": 8 * i if first is None else first, "ids": 12345,
                  "load_start": 2000 + i * 100, "collate_start": 2050 + i * 100,
                  "load_end": 2090 + i * 100, "read": 10, "decode": 20, "transform": 30,
                  "request": 2000 + i * 100, "delivery": 2095 + i * 100,
                  "compute_start": 2095 + i * 100, "compute_end": 2099 + i * 100}
        record.update(changes)
        return json.dumps(record, separators=(",", ":"))
    start = '{"type":"start","torch":"1.13.1","samples":20,"t0":1500}'
    good = [start, batch(0), batch(1), batch(2, epoch=1, first=0, samples=4),
            '{"type":"end","batches":3}']
    write("fuzz_pytorch_channel", "run.jsonl", "\n".join(good) + "\n")
    write("fuzz_pytorch_channel", "error.jsonl", start + '\n{"type":"error","message":"no torch"}\n')
    write("fuzz_pytorch_channel", "number.jsonl", start + "\n" + batch(0) + "\n42\n")
    write("fuzz_pytorch_channel", "null.jsonl", start + "\nnull\n")
    write("fuzz_pytorch_channel", "string_index.jsonl", start + "\n" + batch(0, index="x") + "\n")
    write("fuzz_pytorch_channel", "float_time.jsonl", start + "\n" + batch(0, load_end=2090.5) + "\n")
    write("fuzz_pytorch_channel", "huge_time.jsonl",
          start + "\n" + batch(0, compute_end=18446744073709551615) + "\n")
    write("fuzz_pytorch_channel", "out_of_order.jsonl", start + "\n" + batch(1) + "\n")
    write("fuzz_pytorch_channel", "batch_first.jsonl", batch(0) + "\n" + start + "\n")
    write("fuzz_pytorch_channel", "nested.jsonl", start + '\n{"type":[[[[[["batch"]]]]]]}\n')
    write("fuzz_pytorch_channel", "no_newline.jsonl", start + "\n" + "x" * 300)
    # Live changes: an applied change (version 2), a refused one (3), a pause.
    changed = '{"type":"reconfigured","version":2,"index":1,"t":2150,"batch_size":4,"workers":1}'
    live = [start, batch(0), changed,
            batch(1, worker=0, samples=4, version=2, first=8),
            '{"type":"refused","version":3,"message":"no"}',
            '{"type":"paused","index":2,"t":2300}', '{"type":"resumed","index":2,"t":2350}',
            batch(2, worker=0, samples=4, version=2, first=12),
            batch(3, epoch=1, worker=0, samples=4, version=2, first=0),
            '{"type":"end","batches":4}']
    write("fuzz_pytorch_channel", "live.jsonl", "\n".join(live) + "\n")
    # A replay: two batches loaded, then the kept ones again, by no worker, into epoch 1.
    replay = [start, batch(0), batch(1), '{"type":"replay","index":2,"t":2250,"batches":2}',
              batch(2, worker=-1, first=16, samples=8),
              batch(3, epoch=1, worker=-1, first=0, samples=8), '{"type":"end","batches":4}']
    write("fuzz_pytorch_channel", "replay.jsonl", "\n".join(replay) + "\n")
    write("fuzz_pytorch_channel", "gap.jsonl", start + "\n" + batch(0) + "\n" + batch(1, first=9) + "\n")
    write("fuzz_pytorch_channel", "old_version.jsonl", "\n".join(
        [start, batch(0), changed, batch(1, worker=0, samples=4)]) + "\n")
    write("fuzz_pytorch_channel", "batch_while_paused.jsonl", "\n".join(
        [start, '{"type":"paused","index":0,"t":2000}', batch(0)]) + "\n")
    write("fuzz_pytorch_channel", "unasked_change.jsonl", start + "\n"
          + '{"type":"reconfigured","version":4,"index":0,"t":2000,"batch_size":8,"workers":2}\n')


def sweep_record(order, workers, batch, **extra):
    record = {"order": order, "grid": order % 4, "repeat": order // 4,
              "values": [workers, batch], "state": "finished", "cell_seconds": 0.5,
              "summary": {"wall_seconds": 0.25, "samples_per_sec_mean": 512.0,
                          "first_batch_latency_ms": 3.0, "input_bound_share": 0.4,
                          "wait_ms": {"p95": 1.5}},
              "trace": "traces/cell-%06d.csv" % order}
    record.update(extra)
    return json.dumps(record, separators=(",", ":"))


def sweep_records():
    # Without a NUL byte the input is cells.jsonl beside the fuzzer's fixed 2 x 2
    # sweep (workers 0,1 x batch 4,8); with one, sweep.json comes first.
    t = "fuzz_sweep_records"
    good = sweep_record(0, 0, 4) + "\n" + sweep_record(3, 1, 8) + "\n"
    write(t, "valid.jsonl", good)
    write(t, "torn_last_line.jsonl", good + sweep_record(1, 0, 8)[:40])
    write(t, "failed_cell.jsonl", json.dumps({"order": 2, "grid": 2, "repeat": 0,
                                              "values": [1, 4], "state": "failed",
                                              "error": "does not fit", "summary": None}) + "\n")
    write(t, "no_values.jsonl", sweep_record(0, 0, 4, values=[]) + "\n")
    write(t, "text_p95.jsonl",
          sweep_record(0, 0, 4, summary={"wait_ms": {"p95": "x"}}) + "\n")
    write(t, "other_sweep.jsonl", sweep_record(1, 0, 16) + "\n")
    write(t, "order_outside.jsonl", sweep_record(4, 0, 4, grid=0) + "\n")
    write(t, "trace_escape.jsonl", sweep_record(0, 0, 4, trace="../.bashrc") + "\n")
    write(t, "deep.jsonl", "[" * 200 + "]" * 200 + "\n")
    definition = {"format": "loaderlab-sweep-1", "fingerprint": "0",
                  "definition": {"axes": [{"key": "loader.batch_size", "values": [4, 8, 16]}],
                                 "budget": {"kind": "batches", "amount": 2}, "repeats": 2}}
    repeated = (sweep_record(0, 4, 4).replace("[4,4]", "[4]") + "\n"
                + sweep_record(5, 16, 16).replace("[16,16]", "[16]").replace(
                    '"grid":1', '"grid":2').replace('"repeat":1', '"repeat":1') + "\n")
    write(t, "with_definition.bin", json.dumps(definition).encode() + b"\0" + repeated.encode())
    write(t, "bad_definition.bin", b'{"format": "loaderlab-sweep-1", "definition": '
          b'{"axes": [{"key": "loader.nope", "values": [1]}]}}\0')


RUN_CSV_COLUMNS = (
    "index,epoch,worker,samples,skipped,config_version,dispatch_ns,load_start_ns,load_end_ns,"
    "read_ns,decode_ns,transform_ns,collate_ns,ready_ns,pin_start_ns,pin_end_ns,request_ns,"
    "delivery_ns,wait_ns,copy_start_ns,copy_end_ns,compute_start_ns,compute_end_ns,rank")


def run_csv(rows, *, ranks=1, workers=2):
    lines = [RUN_CSV_COLUMNS]
    for i in range(rows):
        t = 1_000_000 * (i + 1)
        request, delivery = t, t + 5_000
        lines.append(",".join(str(v) for v in (
            i, 0, i % workers if workers else -1, 8, 0, 0, t - 900_000, t - 800_000,
            t - 100_000, 300_000, 200_000, 100_000, 50_000, t - 90_000, 0, 0, request, delivery,
            delivery - request, 0, 0, delivery, delivery + 700_000, i % ranks)))
    return "\n".join(lines) + "\n"


def run_summary(*, devices=1, workers=2, markers=(), peak_memory=1000):
    return json.dumps({
        "format": "loaderlab-summary-2",
        "config": {"devices": devices, "loader": {"batch_size": 8, "num_workers": workers}},
        "config_versions": [],
        "state": "finished",
        "summary": {"peak_memory_bytes": peak_memory, "skipped_samples": 0},
        "skipped": [],
        "markers": list(markers),
    })


def run_reader_input(csv, summary):
    csv = csv.encode()
    return struct.pack("<I", len(csv)) + csv + summary.encode()


def run_reader():
    target = "fuzz_run_reader"
    write(target, "valid", run_reader_input(run_csv(12), run_summary()))
    write(target, "valid_two_ranks",
          run_reader_input(run_csv(12, ranks=2), run_summary(devices=2)))
    write(target, "valid_marker", run_reader_input(run_csv(6), run_summary(markers=[
        {"batch": 3, "time_ns": 3_000_000, "kind": "note", "detail": "x"}])))
    write(target, "rank_int32_max",
          run_reader_input(run_csv(3).replace(",0\n", ",2147483647\n", 1), run_summary()))
    write(target, "negative_time",
          run_reader_input(run_csv(3).replace(",100000,", ",-100000,", 1), run_summary()))
    write(target, "rank_past_devices", run_reader_input(run_csv(4, ranks=2), run_summary()))
    write(target, "float_memory", run_reader_input(run_csv(2), run_summary(peak_memory=1e77)))
    write(target, "not_a_summary", run_reader_input(run_csv(2), '{"format": 7}'))
    write(target, "cut_json", run_reader_input(run_csv(2), run_summary()[:40]))
    write(target, "old_header", run_reader_input(
        run_csv(2).replace(",rank\n", "\n", 1).replace(",0\n", "\n"), run_summary()))


if __name__ == "__main__":
    run_config_json()
    idx()
    cifar10()
    tensor()
    image_header()
    pytorch_channel()
    sweep_records()
    run_reader()
