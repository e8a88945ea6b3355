"""The gloo all-reduce alone, as the reference a recorded exchange is measured against
(tests/bench/exchange_overhead.sh): RANKS processes on loopback, each stepping STEP_MS
(a sleep), meeting in an all-reduce of one integer (the step's barrier) and then
all-reducing an MB-sized float32 gradient and dividing it by the ranks (the average
every data-parallel job takes, as DDP does), timed around those two alone. Prints
the ranks' mean of each rank's median all-reduce after WARMUP steps, in ms.

    bare_allreduce.py MB STEP_MS STEPS WARMUP RANKS
"""

import os
import socket
import statistics
import sys
import time

import torch
import torch.distributed as dist


def rank_main(rank, world, port, mb, step_ms, steps, warmup, out):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    gradient = torch.full((int(mb * 1e6 / 4),), float(rank + 1))
    flag = torch.zeros(1, dtype=torch.int64)
    times = []
    for step in range(warmup + steps):
        time.sleep(step_ms / 1e3)
        dist.all_reduce(flag)
        start = time.perf_counter_ns()
        dist.all_reduce(gradient)
        gradient.div_(world)
        end = time.perf_counter_ns()
        if step >= warmup:
            times.append((end - start) / 1e6)
    os.write(out, ("%f\n" % statistics.median(times)).encode())
    dist.destroy_process_group()


def main():
    mb, step_ms = float(sys.argv[1]), float(sys.argv[2])
    steps, warmup, world = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    read, write = os.pipe()
    children = []
    for rank in range(world):
        pid = os.fork()
        if pid == 0:
            os.close(read)
            code = 0
            try:
                rank_main(rank, world, port, mb, step_ms, steps, warmup, write)
            except BaseException:
                code = 1
            os._exit(code)
        children.append(pid)
    os.close(write)
    medians = [float(line) for line in os.fdopen(read).read().split()]
    failed = [pid for pid in children if os.waitpid(pid, 0)[1] != 0]
    if failed or len(medians) != world:
        sys.exit("a rank failed")
    print("%.3f" % (sum(medians) / world))


if __name__ == "__main__":
    main()
