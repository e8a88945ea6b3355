"""loaderlab_ranks: the data-parallel ranks of LoaderLab's PyTorch engine (devices > 1).

A run of N devices is N processes, as a training job's N ranks are: the engine's
process is rank 0 and forks ranks 1..N-1 before it imports torch. Each rank runs
its own DataLoader over its shard of every epoch, its own step, and then meets the
others through torch.distributed (the gloo backend over loopback TCP; NCCL where
CUDA GPUs exist):

- a barrier (an all-reduce of one integer): every rank has finished its step; the
  wait in it is the wait for the slowest rank;
- with a gradient size (gradient_mb), the gradient exchange: an all-reduce of that
  many bytes of float32, divided by N, as DistributedDataParallel averages
  gradients. A pipeline whose own step trains a model under
  loaderlab_probe.data_parallel(model) exchanges its real gradients inside its step.

Only rank 0 reads LoaderLab's commands. The barrier's integer says whether rank 0
has read any since the last step; when it has, rank 0 broadcasts them, so every
rank applies a change, a pause or a resume at the same batch. Ranks 1..N-1 write
their records (batches and errors, each with its "rank") on a pipe of their own;
rank 0 relays them, whole lines, onto LoaderLab's records pipe.

Rendezvous: rank 0 opens a TCPStore on a free loopback port and writes the port to
each rank's own pipe; the ranks then find each other with MASTER_ADDR / MASTER_PORT
/ RANK / WORLD_SIZE, as torch.distributed's env:// does.

Ranks another program started (`run --slurm-ranks`: srun's tasks, one engine each)
are not forked: each is a Ranks of its own with the address and port where they
meet (rank 0's TCPStore), and writes its own records."""

import os
import select
import threading
import time

MAX_RANKS = 64
# A rank that waits for the others, or a pause that lasts, is not a failure: a
# collective fails when a peer has gone (its socket closes), not after a time.
COLLECTIVE_DAYS = 1


class RankFailure(Exception):
    """A collective failed: a peer rank has gone, or the backend cannot run."""


def shard(order, rank, world):
    """Rank `rank`'s part of an epoch's order, as torch's DistributedSampler
    (drop_last=False): the order padded with its own first samples to a multiple of
    `world`, then every world-th position from `rank` on."""
    order = list(order)
    total = -(-len(order) // world) * world
    padded = order
    while len(padded) < total:
        padded = padded + order[:total - len(padded)]
    return padded[rank:total:world]


def shard_length(samples, world):
    return -(-samples // world)


class Ranks:
    """This process's rank and its links to the others."""

    def __init__(self, rank, world):
        self.rank, self.world = rank, world
        self.children = []       # rank 0: (rank, pid, records_read, port_write)
        self.records_fd = -1     # ranks > 0: where this rank's records go
        self.port_fd = -1        # ranks > 0: where rank 0's store port comes from
        self.relays = []
        self.parent = os.getppid() if rank > 0 else 0
        # Ranks another program started: where they meet (None: forked here).
        self.address, self.port = None, 0
        self.dist = self.torch = None
        self.gradient = None
        self.control = None
        self.expected = 0.0

    @property
    def lead(self):
        return self.rank == 0

    def shard(self, order):
        return shard(order, self.rank, self.world)

    def start_relays(self, write_line):
        """Rank 0: a thread per rank that passes its record lines to `write_line`."""
        # write_line(line, batch): `batch` says the line is a batch record.
        self.relayed = {rank: 0 for rank, _, _, _ in self.children}
        self.relayed_changed = threading.Condition()
        for rank, _, fd, _ in self.children:
            thread = threading.Thread(target=self._relay, args=(rank, fd, write_line),
                                      name="loaderlab-rank-%d-relay" % rank, daemon=True)
            thread.start()
            self.relays.append(thread)

    def await_batches(self, batches, timeout=5.0):
        """Rank 0, before a record that changes the run (a pause, a change): waits until
        every rank's first `batches` batch records have been relayed, so that each of
        them comes before it, as rank 0's own do. The ranks wrote them right after
        the step's exchange: this waits for their writes (20 ms at most) and the relay."""
        if not self.children:
            return
        deadline = time.monotonic() + timeout
        with self.relayed_changed:
            while min(self.relayed.values()) < batches:
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self.relayed_changed.wait(left)

    def _relay(self, rank, fd, write_line):
        pending = b""
        while True:
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b""
            if not data:
                break
            pending += data
            *lines, pending = pending.split(b"\n")
            for line in lines:
                if line.strip():
                    text = line.decode("utf-8", "replace")
                    batch = '"type":"batch"' in text
                    write_line(text, batch)
                    if batch:
                        with self.relayed_changed:
                            self.relayed[rank] += 1
                            self.relayed_changed.notify_all()
        os.close(fd)
        with self.relayed_changed:
            self.relayed[rank] = float("inf")  # ended: nothing more will come
            self.relayed_changed.notify_all()

    def connect(self, torch, backend, gradient_bytes):
        """Joins the process group (every rank calls it once, after its loader is
        built) and makes the step's buffers."""
        import torch.distributed as dist
        from datetime import timedelta
        self.torch, self.dist = torch, dist
        if backend == "nccl" and not (dist.is_nccl_available() and torch.cuda.is_available()):
            raise RankFailure("comm_backend nccl needs CUDA GPUs, and torch %s here has none "
                              "(comm_backend gloo runs on CPUs)" % torch.__version__)
        if self.address is None or self.address.startswith("127.") or self.address == "localhost":
            os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
        timeout = timedelta(days=COLLECTIVE_DAYS)
        try:
            if self.address is not None:
                store = dist.TCPStore(self.address, self.port, self.world, self.lead,
                                      timeout=timeout, wait_for_workers=False)
            elif self.lead:
                store = dist.TCPStore("127.0.0.1", 0, self.world, True, timeout=timeout,
                                      wait_for_workers=False)
                for _, _, _, fd in self.children:
                    os.write(fd, b"%d\n" % store.port)
                    os.close(fd)
            else:
                port = int(_read_line(self.port_fd, self.parent) or 0)
                os.close(self.port_fd)
                if port <= 0:
                    raise RankFailure("rank 0 ended before the ranks met")
                os.environ.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
                                   "RANK": str(self.rank), "WORLD_SIZE": str(self.world)})
                store = dist.TCPStore("127.0.0.1", port, self.world, False, timeout=timeout)
            dist.init_process_group(backend, store=store, rank=self.rank,
                                    world_size=self.world, timeout=timeout)
        except RankFailure:
            raise
        except (RuntimeError, ValueError, OSError) as error:
            raise RankFailure("the ranks could not meet (%s): %s" % (backend, error)) from None
        device = torch.device("cpu")
        if backend == "nccl":
            device = torch.device("cuda", self.rank % torch.cuda.device_count())
        self.control = torch.zeros(1, dtype=torch.int64, device=device)
        if gradient_bytes > 0:
            # Filled with rank + 1: after any exchange every element holds
            # (world + 1) / 2 on every rank, which each step checks.
            self.gradient = torch.full((max(1, gradient_bytes // 4),), float(self.rank + 1),
                                       dtype=torch.float32, device=device)
            self.expected = (self.world + 1) / 2.0

    def barrier(self, flag):
        """Meets every rank; returns the sum of the ranks' flags (rank 0's: whether it
        has commands to share)."""
        self.control.fill_(1 if flag else 0)
        self._collective(self.dist.all_reduce, self.control)
        return int(self.control.item())

    def exchange(self):
        """The gradient all-reduce, averaged; False without a gradient."""
        if self.gradient is None:
            return False
        self._collective(self.dist.all_reduce, self.gradient)
        self.gradient.div_(self.world)
        value = float(self.gradient[0].item())
        if abs(value - self.expected) > 1e-3 * self.expected:
            raise RankFailure("the gradient exchange gave %g, not %g: the ranks' sums differ"
                              % (value, self.expected))
        return True

    def share(self, commands):
        """Rank 0's commands, on every rank."""
        box = [commands if self.lead else None]
        self._collective(self.dist.broadcast_object_list, box, 0)
        return box[0] or []

    def poll(self, commands):
        """A barrier and, when rank 0 has commands, their broadcast: the ranks' meeting
        while paused (every tenth of a second)."""
        return self.share(commands) if self.barrier(bool(commands)) else []

    def _collective(self, function, *args):
        try:
            function(*args)
        except RuntimeError as error:
            raise RankFailure("rank %d's exchange with the other ranks failed (a rank has "
                              "ended?): %s" % (self.rank, str(error).splitlines()[0]
                                               if str(error) else type(error).__name__)) from None

    def finish(self, timeout=10.0):
        """Leaves the group; rank 0 then waits for the other ranks and their records,
        and returns what went wrong with them ("" when nothing)."""
        if self.dist is not None and self.dist.is_initialized():
            try:
                self.dist.destroy_process_group()
            except RuntimeError:
                pass
        if not self.lead:
            return ""
        problems = []
        deadline = time.monotonic() + timeout
        for rank, pid, _, _ in self.children:
            status = _wait_child(pid, deadline)
            if status is None:
                problems.append("rank %d did not end" % rank)
            elif status != 0:
                problems.append("rank %d ended with %s" % (rank, _status_text(status)))
        for thread in self.relays:
            thread.join(max(0.0, deadline - time.monotonic()))
        return "; ".join(problems)


def fork_ranks(world):
    """Forks ranks 1..world-1 from this process (before torch is imported, so no thread
    runs yet); returns this process's Ranks."""
    if not 2 <= world <= MAX_RANKS:
        raise ValueError("devices is %d, not 2 to %d" % (world, MAX_RANKS))
    lead = Ranks(0, world)
    for rank in range(1, world):
        records_read, records_write = os.pipe()
        port_read, port_write = os.pipe()
        pid = os.fork()
        if pid == 0:
            for _, _, fd_a, fd_b in lead.children:
                os.close(fd_a)
                os.close(fd_b)
            os.close(records_read)
            os.close(port_write)
            me = Ranks(rank, world)
            me.records_fd, me.port_fd = records_write, port_read
            return me
        os.close(records_write)
        os.close(port_read)
        lead.children.append((rank, pid, records_read, port_write))
    return lead


def _read_line(fd, parent):
    data = b""
    while not data.endswith(b"\n"):
        ready, _, _ = select.select([fd], [], [], 1.0)
        if not ready:
            if os.getppid() != parent:
                return ""  # rank 0 is gone
            continue
        chunk = os.read(fd, 64)
        if not chunk:
            return ""
        data += chunk
    return data.decode().strip()


def _wait_child(pid, deadline):
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if time.monotonic() > deadline:
            return None
        time.sleep(0.02)


def _status_text(status):
    if os.WIFSIGNALED(status):
        return "signal %d" % os.WTERMSIG(status)
    return "exit code %d" % os.WEXITSTATUS(status)
