"""Writes the rank traces of a generated MPI job, drawn from a seed, for
comparing a job's Parquet dataset with `brickprof report` on its merge:
what a real job's ranks look like to the cross-rank views, and the corners
their figures turn on.

The ranks run in step. Each has layers of bricks on its main thread, a
load of its own (the last ranks slower); a GPU rank's bricks launch
kernels (one an NCCL kernel: communication) and copies and memsets that
run on while its CPU already waits in the next MPI call (compute
overlapping waiting); a CPU rank computes in its leaf bricks. Every layer
ends in collectives of every wait pattern (all to all, rooted both ways
with varying roots, prefix, non-blocking) on MPI_COMM_WORLD or on a
sub-communicator of some ranks; a call returns after the ranks it waits
for arrived, and arrivals fall on a coarse grid, so ties happen (the
straggler's tie-break). One communicator's last member left its calls out
(incomplete instances). Clocks: each rank but 0 runs ahead of rank 0's by
an offset, one of them with a drift, measured by two clock-sync samples,
so merge and export must move its times alike. Some nodes are of no
length; some ranges sit on NVTX range lanes. A GPU rank allocates and frees
device memory under its bricks (a failed allocation and a free of nothing
among them), some pinned host memory, and a program pool.

    python3 job_generator.py OUT_DIR RANKS SEED [--layers N]
"""
import argparse
import json
import os
import random

BRICKS = [("RmsNorm", 0, "Norm"), ("QkvProjection", 2, "Attention"),
          ("AttentionScore", 4, "Attention"), ("GateProjection", 8, "FFN"),
          ("my_fused_op", -1, "Other")]
# (op, pattern): who a call waits for, as trace/model/comm.cpp has it.
COLLECTIVES = [("allreduce", "all"), ("barrier", "all"), ("bcast", "root"),
               ("reduce", "to_root"), ("gather", "to_root"), ("scatter", "root"),
               ("allgather", "all"), ("scan", "prefix"), ("exscan", "prefix"),
               ("alltoall", "all"), ("iallreduce", "none")]
RANGE_LANE = 2 ** 31
GRID = 1000  # arrivals fall on multiples of this


class Rank:
    def __init__(self, rank, ranks, rng, on_gpu, offset, drift):
        self.rank, self.ranks, self.r, self.on_gpu = rank, ranks, rng, on_gpu
        self.offset, self.drift = offset, drift
        self.tid = 1000 + rank
        self.nodes = []
        self.clock = 10_000_000
        self.stream_free = 0
        self.correlation = 1
        self.load = 1.0 + 0.5 * rank / max(1, ranks - 1)
        self.memory = []
        self.live = []  # (address, source, device) allocated and not yet freed
        self.next_address = 0x10000000

    def local(self, t):
        """Rank 0's time on this rank's clock."""
        return int(t + self.offset + self.drift * t)

    def add(self, kind, name, parent, start, end, thread=None, **extra):
        node = {"id": len(self.nodes), "kind": kind, "name": name, "parent": parent,
                "thread": self.tid if thread is None else thread,
                "start_ns": self.local(start), "end_ns": self.local(end)}
        node.update(extra)
        self.nodes.append(node)
        return node["id"]

    def gpu_op(self, kind, name, parent, api, length, **extra):
        start = max(api + 200, self.stream_free)
        end = start + length
        self.add(kind, name, parent, start, end, device=0, context=1, stream=7,
                 correlation=self.correlation, api_start_ns=self.local(api),
                 api_end_ns=self.local(api + 100), **extra)
        self.correlation += 1
        self.stream_free = end

    def memory_event(self, t, scope, op, source, device, address, size=0, api="", result=0):
        event = {"t": self.local(t), "thread": self.tid, "scope": scope, "op": op,
                 "source": source, "device": device, "address": "0x%x" % address, "api": api}
        if op == "alloc":
            event["bytes"] = size
        if result:
            event["result"] = result
        self.memory.append(event)

    def allocate(self, t, scope):
        r = self.r
        kind = r.choice(["device", "device", "pinned", "program"])
        device = 2 ** 31 if kind == "pinned" else 0
        api = {"device": "cuMemAlloc_v2", "pinned": "cuMemHostAlloc", "program": "kv_cache"}[kind]
        if r.random() < 0.1:  # out of memory: changes nothing
            self.memory_event(t, scope, "alloc", kind, device, 0, 1 << 40, api, result=2)
            return
        self.next_address += 1 << 24
        self.memory_event(t, scope, "alloc", kind, device, self.next_address,
                          r.randrange(1, 64) << 20, api)
        self.live.append((self.next_address, kind, device))

    def free(self, t, scope):
        r = self.r
        if not self.live or r.random() < 0.1:  # a free of an address with nothing live
            self.memory_event(t, scope, "free", "device", 0, 0xdead0000, api="cuMemFree_v2")
            return
        address, kind, device = self.live.pop(r.randrange(len(self.live)))
        api = {"device": "cuMemFree_v2", "pinned": "cuMemFreeHost", "program": "kv_cache"}[kind]
        self.memory_event(t, scope, "free", kind, device, address, api=api)

    def layer_work(self, layer):
        r = self.r
        layer_id = self.add("layer", "Layer %d" % layer, None, self.clock, self.clock,
                            index=layer)
        for name, brick_id, category in BRICKS:
            length = 0 if r.random() < 0.05 else int(r.randrange(2, 12) * 500 * self.load)
            extra = {"category": category, "elements": 4096}
            if brick_id >= 0:
                extra["brick_id"] = brick_id
            b = self.add("brick", name, layer_id, self.clock, self.clock + length, **extra)
            api = self.clock + length // 3
            if self.on_gpu and r.random() < 0.4:
                (self.allocate if r.random() < 0.6 else self.free)(self.clock + length // 2, b)
            if self.on_gpu:
                for k in range(r.randint(1, 2)):
                    kernel = "ncclDevKernel_AllReduce" if name == "my_fused_op" and k == 0 \
                        else "k_%s_%d" % (name, k)
                    self.gpu_op("kernel", kernel, b, api, r.randrange(1, 40) * 300,
                                grid=[64, 1, 1], block=[128, 1, 1])
                if r.random() < 0.3:
                    copy = r.random() < 0.5
                    self.gpu_op("transfer" if copy else "memset", "memcpy HtoD" if copy
                                else "memset", b, api, r.randrange(1, 10) * 400, bytes=1 << 20,
                                direction="H2D" if copy else "unknown",
                                src_kind="pinned" if copy else "unknown", dst_kind="device")
            if r.random() < 0.2:
                self.add("scope", "nvtx range", None, self.clock, self.clock + length + 700,
                         thread=RANGE_LANE + self.rank)
            self.clock += length
        return layer_id


def write_job(folder, ranks, seed, layers=4):
    """RANKS files folder/rank<R>.json; returns their paths."""
    rng = random.Random(seed)
    sub = sorted(rng.sample(range(ranks), max(2, ranks // 2)))
    lossy = sorted(rng.sample(range(ranks), 3)) if ranks >= 3 else []
    members = {0: list(range(ranks)), 1: sub, 2: lossy}
    keys = {0: "0x00000000000000a1", 1: "0x00000000000000b2", 2: "0x00000000000000c3"}
    drifting = rng.randrange(1, ranks) if ranks > 1 else -1
    job = [Rank(k, ranks, random.Random(seed * 1000 + k), rng.random() < 0.5,
                0 if k == 0 else rng.randrange(1, 50) * 1_000_000,
                4e-5 if k == drifting else 0) for k in range(ranks)]
    comms = {k: [c for c in (0, 1, 2) if k in members[c]] for k in range(ranks)}
    seq = {c: 0 for c in members}
    for layer in range(layers):
        layer_ids = [rank.layer_work(layer) for rank in job]
        for _ in range(rng.randint(2, 5)):
            op, pattern = rng.choice(COLLECTIVES)
            comm = rng.choice([0, 0, 0, 1, 2] if lossy else [0, 0, 1])
            who = members[comm]
            root = rng.randrange(len(who)) if pattern in ("root", "to_root") else -1
            seq[comm] += 1
            arrival = {k: (job[k].clock // GRID + 1 + rng.randrange(0, 2)) * GRID for k in who}
            last = max(arrival.values())
            for i, k in enumerate(who):
                waits_for = {"all": last, "root": arrival[who[root]] if root >= 0 else 0,
                             "to_root": last if i == root else 0,
                             "prefix": max(arrival[w] for w in who[:i + 1]), "none": 0}[pattern]
                end = max(arrival[k], waits_for) + rng.randrange(1, 4) * 300
                rank = job[k]
                rank.clock = end
                if comm == 2 and k == lossy[-1]:
                    continue  # its calls were not recorded
                parent = layer_ids[k]
                if op == "allreduce" and rank.r.random() < 0.5:
                    parent = rank.add("brick", "AllReduce", parent, arrival[k] - 100, end + 100,
                                      category="Communication", elements=256)
                mpi = {"op": op, "comm": comms[k].index(comm), "bytes": 1024, "seq": seq[comm]}
                if root >= 0:
                    mpi["peer"] = root
                rank.add("scope", "MPI_" + op[0].upper() + op[1:], parent, arrival[k], end,
                         category="Communication", elements=256, mpi=mpi)
        for rank, layer_id in zip(job, layer_ids):
            rank.clock += GRID // 2
            rank.nodes[layer_id]["end_ns"] = rank.local(rank.clock)
    paths = []
    for rank in job:
        k = rank.rank
        communicators = [{"id": i, "name": "MPI_COMM_WORLD" if c == 0 else "comm %d" % c,
                          "key": keys[c], "size": len(members[c]),
                          "rank": members[c].index(k), "source": 0}
                         for i, c in enumerate(comms[k])]
        sync = [] if k == 0 else [
            {"local_ns": rank.local(t), "offset_ns": rank.local(t) - t, "rtt_ns": 50}
            for t in (1_000_000, rank.clock)]
        process = {"pid": 5000 + k, "ppid": 1, "program": "gen", "cmdline": "gen",
                   "host": "node%d" % (k // 2), "rank": k, "launcher": "open-mpi",
                   "job": "gen-%d" % seed, "local_rank": k % 2, "world_size": ranks,
                   "start_ns": rank.local(0), "end_ns": rank.local(rank.clock),
                   "clock": "CLOCK_MONOTONIC",
                   "clock_sync": {"reference_rank": 0, "samples": sync}}
        trace = {"schema": "brickprof/1", "process": process,
                 "devices": [{"id": 0, "name": "GPU", "memory_bytes": 1 << 34}]
                 if rank.on_gpu else [],
                 "memory": rank.memory,
                 "threads": [{"tid": rank.tid, "name": "main"}],
                 "communicators": communicators, "nodes": rank.nodes, "edges": []}
        paths.append(os.path.join(folder, "rank%d.json" % k))
        with open(paths[-1], "w") as f:
            json.dump(trace, f)
    return paths


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("ranks", type=int)
    ap.add_argument("seed", type=int)
    ap.add_argument("--layers", type=int, default=4)
    o = ap.parse_args()
    os.makedirs(o.out, exist_ok=True)
    for path in write_job(o.out, o.ranks, o.seed, o.layers):
        print(path)


if __name__ == "__main__":
    main()
