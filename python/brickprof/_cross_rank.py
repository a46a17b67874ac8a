"""The cross-rank half of the analyses: what the per-rank queries
(_queries.py) return for every rank, combined into the figures of `brickprof
report --ranks/--collectives/--imbalance/--rank-path` on the merged trace.

The inputs are small beside the events (a row per collective call, per
rank, per layer or brick name), so this runs in pandas on the machine that
asked. Each step mirrors the report's C++ (analysis/analyses/, named in the
comments), tie-breaks and integer arithmetic included, so the figures are
equal, not close. Ranks are numbered as the report numbers a merge of the
rank files in rank order: index i is the i-th rank of the dataset.
"""
import json

import numpy as np
import pandas as pd

from . import _native

_HOST_DEVICE = 2 ** 31  # trace/model/ids.h: kHostDeviceId
_INT64_MAX = np.iinfo(np.int64).max
_INT64_MIN = np.iinfo(np.int64).min


def _clamped_wait(until, arrival, end):
    """A call's wait until `until`, within the call (collectives.cpp: clamp_wait)."""
    return np.clip(until - arrival, 0, end - arrival)


def _hex(key):
    return "0x%016x" % int(key)


def ranks_json(ranks):
    """The `ranks` list every cross-rank view starts with."""
    return [{"index": i, "rank": int(r.process_rank), "label": "rank %d" % r.rank}
            for i, r in enumerate(ranks.itertuples())]


class Collectives:
    """analyze_collectives over the job's collective calls: instances matched
    by (communicator key, sequence number), each call's wait by its op's
    pattern, totals per op and per rank. DataFrames:

    calls      one row per call, grouped by instance in order of first sight
               (prefix ops by rank in the communicator): instance, rank
               (index), node (the rank's own node id), comm_rank,
               arrival_ns, end_ns, wait_ns
    instances  one per instance, by first arrival: op, comm, comm_key, seq,
               comm_size, root, bytes, first_arrival_ns, last_arrival_ns,
               skew_ns, end_ns, straggler, wait_ns, complete, first_call,
               call_count
    ops        per op: instances, bytes, skew_ns, max_skew_ns, wait_ns
    per_rank   per rank index: calls, call_ns, wait_ns, last_arrivals
    """

    def __init__(self, calls, rank_count):
        ops = _native.comm_ops()
        op_order = {name: i for i, (name, _, _) in enumerate(ops)}
        self._op_codes = op_order
        if calls.empty:
            self._none(rank_count)
            return
        c = calls.sort_values(["rank_index", "node"], kind="stable").reset_index(drop=True)
        c["instance"] = c.groupby(["comm_key", "seq"], sort=False).ngroup()
        c["sight"] = np.arange(len(c))
        c = c.sort_values(["instance", "sight"], kind="stable").reset_index(drop=True)
        first = c.drop_duplicates("instance").set_index("instance")
        pattern = first["pattern"].astype(str)
        rooted = pattern.isin(["one_to_all", "all_to_one"])
        inst = pd.DataFrame({
            "op": first["op"].astype(str), "pattern": pattern,
            "comm": first["comm_name"].astype(str), "comm_key": first["comm_key"],
            "seq": first["seq"], "comm_size": first["comm_size"].astype(np.int64),
            "root": np.where(rooted, first["peer"], -1).astype(np.int64),
            "bytes": first["bytes"],
        })
        g = c.groupby("instance")
        inst["call_count"] = g.size()
        inst["first_arrival_ns"] = g["arrival_ns"].min()
        inst["last_arrival_ns"] = g["arrival_ns"].max()
        inst["end_ns"] = g["end_ns"].max().clip(lower=0)
        inst["straggler"] = c["rank_index"].to_numpy()[g["arrival_ns"].idxmax().to_numpy()]

        # Waits (collectives.cpp: assign_waits), by the instance's pattern.
        of = c["instance"].to_numpy()
        arrival, end = c["arrival_ns"].to_numpy(), c["end_ns"].to_numpy()
        comm_rank = c["comm_rank"].to_numpy()
        call_pattern = inst["pattern"].to_numpy()[of]
        root = inst["root"].to_numpy()[of]
        last = inst["last_arrival_ns"].to_numpy()[of]
        wait = np.zeros(len(c), dtype=np.int64)
        everyone = call_pattern == "all_to_all"
        wait[everyone] = _clamped_wait(last, arrival, end)[everyone]
        the_root = (call_pattern == "all_to_one") & (comm_rank == root)
        wait[the_root] = _clamped_wait(last, arrival, end)[the_root]
        # One to all: the root's call is the last one of its rank in the communicator.
        is_root = (call_pattern == "one_to_all") & (comm_rank == root)
        root_call = pd.Series(np.flatnonzero(is_root)).groupby(of[is_root]).max()
        root_of = np.full(len(inst), -1, dtype=np.int64)
        root_of[root_call.index.to_numpy()] = root_call.to_numpy()
        receivers = (call_pattern == "one_to_all") & (root_of[of] >= 0)
        receivers &= np.arange(len(c)) != root_of[of]
        root_arrival = arrival[np.maximum(root_of[of], 0)] if len(c) else arrival
        wait[receivers] = _clamped_wait(root_arrival, arrival, end)[receivers]
        # Prefix: each rank waits for the latest of those before it.
        prefix = call_pattern == "prefix"
        order_key = np.where(prefix, comm_rank, 0).astype(np.int64)
        c["wait_ns"] = wait
        c["order"] = order_key
        c = c.sort_values(["instance", "order", "sight"], kind="stable").reset_index(drop=True)
        prefix = inst["pattern"].to_numpy()[c["instance"].to_numpy()] == "prefix"
        if prefix.any():
            p = c[prefix]
            latest = p.groupby("instance")["arrival_ns"].cummax()
            c.loc[prefix, "wait_ns"] = _clamped_wait(latest.to_numpy(), p["arrival_ns"].to_numpy(),
                                                     p["end_ns"].to_numpy())
        g = c.groupby("instance")
        inst["wait_ns"] = g["wait_ns"].sum()
        inst["first_call"] = g["sight"].size().cumsum().shift(fill_value=0)
        inst["skew_ns"] = inst["last_arrival_ns"] - inst["first_arrival_ns"]
        inst["complete"] = inst["call_count"] >= inst["comm_size"]
        self.incomplete = int((~inst["complete"]).sum())

        ops_rows = inst.groupby("op").agg(instances=("seq", "size"), bytes=("bytes", "sum"),
                                          skew_ns=("skew_ns", "sum"),
                                          max_skew_ns=("skew_ns", "max"),
                                          wait_ns=("wait_ns", "sum"))
        ops_rows["max_skew_ns"] = ops_rows["max_skew_ns"].clip(lower=0)
        ops_rows = ops_rows.reset_index()
        ops_rows = ops_rows.iloc[np.argsort([op_order[o] for o in ops_rows["op"]], kind="stable")]
        self.ops = ops_rows.reset_index(drop=True)

        per_rank = pd.DataFrame({"rank": np.arange(rank_count)})
        by_rank = c.assign(call_ns=c["end_ns"] - c["arrival_ns"]).groupby("rank_index")
        per_rank["calls"] = by_rank.size().reindex(per_rank["rank"], fill_value=0).to_numpy()
        per_rank["call_ns"] = by_rank["call_ns"].sum().reindex(per_rank["rank"],
                                                               fill_value=0).to_numpy()
        per_rank["wait_ns"] = by_rank["wait_ns"].sum().reindex(per_rank["rank"],
                                                               fill_value=0).to_numpy()
        last_in = inst.loc[inst["call_count"] > 1, "straggler"].value_counts()
        per_rank["last_arrivals"] = last_in.reindex(per_rank["rank"], fill_value=0).to_numpy()
        self.per_rank = per_rank

        self.calls = c[["instance", "rank_index", "node", "comm_rank", "arrival_ns", "end_ns",
                        "wait_ns"]].rename(columns={"rank_index": "rank"})
        self.instances = inst.iloc[np.argsort(inst["first_arrival_ns"].to_numpy(),
                                              kind="stable")].reset_index(drop=True)

    def _none(self, rank_count):
        self.incomplete = 0
        self.ops = pd.DataFrame(columns=["op", "instances", "bytes", "skew_ns", "max_skew_ns",
                                         "wait_ns"])
        self.per_rank = pd.DataFrame({"rank": np.arange(rank_count), "calls": 0, "call_ns": 0,
                                      "wait_ns": 0, "last_arrivals": 0})
        self.calls = pd.DataFrame({k: np.zeros(0, dtype=np.int64) for k in (
            "instance", "rank", "node", "comm_rank", "arrival_ns", "end_ns", "wait_ns")})
        self.instances = pd.DataFrame(
            {"op": pd.Series([], dtype=str), "root": np.zeros(0, dtype=np.int64),
             "first_call": np.zeros(0, dtype=np.int64), "call_count": np.zeros(0, dtype=np.int64),
             "first_arrival_ns": np.zeros(0, dtype=np.int64)})

    def waits(self):
        """(rank index, start_ns, end_ns) of every call that waited."""
        w = self.calls[self.calls["wait_ns"] > 0]
        return pd.DataFrame({"rank": w["rank"].to_numpy(), "start_ns": w["arrival_ns"].to_numpy(),
                             "end_ns": (w["arrival_ns"] + w["wait_ns"]).to_numpy()})

    def replay_arrays(self):
        """The instances and calls as rank_path() takes them."""
        i, c = self.instances, self.calls
        return {
            "inst_op": np.array([self._op_codes[o] for o in i["op"]], dtype=np.int32),
            "inst_root": i["root"].to_numpy(dtype=np.int32),
            "inst_first": i["first_call"].to_numpy(dtype=np.uint32),
            "inst_count": i["call_count"].to_numpy(dtype=np.uint32),
            "call_rank": c["rank"].to_numpy(dtype=np.uint32),
            "call_comm_rank": c["comm_rank"].to_numpy(dtype=np.int32),
            "call_arrival": c["arrival_ns"].to_numpy(dtype=np.int64),
            "call_end": c["end_ns"].to_numpy(dtype=np.int64),
            "call_wait": c["wait_ns"].to_numpy(dtype=np.int64),
        }

    _CALL = '{"rank":%d,"node":%d,"arrival_ns":%d,"end_ns":%d,"wait_ns":%d}'

    def _head(self, ranks):
        return {"ranks": ranks_json(ranks), "instances_count": len(self.instances),
                "incomplete": self.incomplete,
                "ops": [{k: _plain(v) for k, v in row.items()}
                        for row in self.ops.to_dict("records")],
                "per_rank": [{k: int(v) for k, v in row.items()}
                             for row in self.per_rank.to_dict("records")]}

    def _instances(self):
        """Each instance's fields and its calls' (rank, node, arrival_ns,
        end_ns, wait_ns) rows, one instance at a time."""
        columns = [self.calls[k].to_numpy() for k in ("rank", "node", "arrival_ns", "end_ns",
                                                      "wait_ns")]
        for row in self.instances.itertuples():
            a, b = row.first_call, row.first_call + row.call_count
            fields = {
                "op": row.op, "comm": row.comm, "comm_key": _hex(row.comm_key),
                "seq": int(row.seq), "comm_size": int(row.comm_size), "root": int(row.root),
                "bytes": int(row.bytes), "first_arrival_ns": int(row.first_arrival_ns),
                "last_arrival_ns": int(row.last_arrival_ns), "skew_ns": int(row.skew_ns),
                "end_ns": int(row.end_ns), "straggler": int(row.straggler),
                "wait_ns": int(row.wait_ns), "complete": bool(row.complete)}
            yield fields, zip(*(c[a:b].tolist() for c in columns))

    def json(self, ranks):
        """As `report --json --collectives` has it."""
        out = self._head(ranks)
        keys = ("rank", "node", "arrival_ns", "end_ns", "wait_ns")
        out["instances"] = [dict(fields, calls=[dict(zip(keys, call)) for call in calls])
                            for fields, calls in self._instances()]
        return out

    def write_json(self, out, ranks):
        """json() written to `out` an instance at a time (a job's calls can
        run to millions)."""
        out.write(json.dumps(self._head(ranks), separators=(",", ":"))[:-1] + ',"instances":[')
        for i, (fields, calls) in enumerate(self._instances()):
            out.write(("," if i else "") + json.dumps(fields, separators=(",", ":"))[:-1] +
                      ',"calls":[' + ",".join(self._CALL % call for call in calls) + "]}")
        out.write("]}")


def _plain(v):
    """numpy scalars as Python's (JSON)."""
    return v.item() if hasattr(v, "item") else v


def breakdown(ranks, spans, sweep):
    """rank_breakdown: rows for the ranks with work, by rank index, from
    SPANS and sweep_rank's per-rank results (indexed by rank index)."""
    rows = []
    for index, r in enumerate(ranks.itertuples()):
        if index not in spans.index or spans.at[index, "work_items"] == 0:
            continue
        s, b = spans.loc[index], sweep.loc[index]
        start, end = int(s["start_ns"]), int(s["end_ns"])
        span = end - start
        has_compute = s["compute_items"] > 0
        row = {"rank": index, "timeline": "gpu" if r.gpu_timeline else "cpu",
               "start_ns": start, "end_ns": end, "span_ns": span,
               "compute_start_ns": int(s["compute_start_ns"]) if has_compute else 0,
               "compute_end_ns": int(s["compute_end_ns"]) if has_compute else 0}
        for k in ("compute", "waiting", "communication", "memory", "idle", "overlap"):
            row[k + "_ns"] = int(b[k + "_ns"])
        for k in ("compute", "waiting", "communication", "memory", "idle"):
            row[k + "_share"] = float(row[k + "_ns"]) / float(span) if span > 0 else 0.0
        rows.append(row)
    return {"ranks": ranks_json(ranks), "rows": rows}


def memory_peaks(ranks, peaks):
    """The ranks view's memory rows (memory_ranks.h), by rank index: each
    rank's accounts as export found them, named as the merged trace names
    them (its devices numbered after the ranks' before it, the rank's label
    first when there are several)."""
    first_device = np.concatenate([[0], np.cumsum(ranks["merge_devices"].to_numpy())])
    out = []
    for p in peaks.itertuples():
        index = int(p.rank_index)
        device = _HOST_DEVICE if p.device < 0 else int(first_device[index] + p.device)
        label = "rank %d" % ranks["rank"].iat[index] if len(ranks) > 1 else None
        memory = int(p.memory_bytes)
        peak = int(p.peak_bytes)
        out.append({"rank": index, "account": p.account,
                    "label": _native.memory_label(p.account, device, p.pool, label),
                    "peak_bytes": peak, "peak_ns": int(p.peak_ns),
                    "memory_bytes": memory or None,
                    "headroom_bytes": max(0, memory - peak) if memory else None})
    return out


def imbalance(ranks, sums):
    """analyze_imbalance from IMBALANCE's rows (rank index, what, layer,
    brick, instances, compute_ns)."""
    count = len(ranks)

    def table(part, key):
        keys = part[key].drop_duplicates().tolist()
        at = {k: i for i, k in enumerate(keys)}
        compute = np.zeros((len(keys), count), dtype=np.int64)
        instances = np.zeros((len(keys), count), dtype=np.int64)
        rows, cols = part[key].map(at).to_numpy(), part["rank_index"].to_numpy()
        np.add.at(compute, (rows, cols), part["compute_ns"].to_numpy(dtype=np.int64))
        np.add.at(instances, (rows, cols), part["instances"].to_numpy(dtype=np.int64))
        out = []
        for k, i in at.items():
            out.append(_imbalance_row(key, k, compute[i], instances[i]))
        return out

    layers = table(sums[sums["what"] == "layer"], "layer")
    layers.sort(key=lambda row: row["layer"])
    bricks = [row for row in table(sums[sums["what"] == "brick"], "brick") if row["max_ns"] > 0]
    bricks.sort(key=lambda row: (-row["mean_ns"], row["brick"].encode()))
    return {"ranks": ranks_json(ranks), "layers": layers, "bricks": bricks}


def _imbalance_row(key, value, compute, instances):
    """imbalance.cpp: finish()."""
    count = len(compute)
    total = int(compute.sum())
    straggler = int(np.argmax(compute)) if count else -1
    max_ns = int(compute[straggler]) if count else 0
    mean = float(total) / float(count) if count else 0.0
    excess = 0.0
    if count >= 2:
        others = float(total - max_ns) / float(count - 1)
        runs = max(1, int(instances[straggler]))
        excess = (float(max_ns) - others) / float(runs)
    return {key: int(value) if key == "layer" else value,
            "compute_ns": [int(v) for v in compute], "instances": [int(v) for v in instances],
            "max_ns": max_ns, "mean_ns": mean,
            "max_over_mean": float(max_ns) / mean if mean > 0 else 0.0,
            "straggler": straggler, "excess_per_instance_ns": excess}


def rank_path(ranks, spans, collectives):
    """rank_critical_path: the report's replay (through _native) on each
    rank's span and the matched collectives."""
    count = len(ranks)
    start = np.full(count, _INT64_MAX, dtype=np.int64)
    end = np.full(count, _INT64_MIN, dtype=np.int64)
    has = spans["chain_items"] > 0
    start[spans.index[has]] = spans.loc[has, "chain_start_ns"].astype(np.int64)
    end[spans.index[has]] = spans.loc[has, "chain_end_ns"].astype(np.int64)
    arrays = collectives.replay_arrays()
    arrays.update(span_start=start, span_end=end)
    out = {"ranks": ranks_json(ranks)}
    out.update(_native.rank_path(arrays))
    return out
