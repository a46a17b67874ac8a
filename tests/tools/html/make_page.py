#!/usr/bin/env python3
"""Reference generator of brickprof's HTML report (data contract brickprof-html/1,
tools/html/README.md): builds the timeline and icicle from a trace, embeds the
`brickprof report --json` (or `brickprof diff --json`) output, and assembles the page.

  make_page.py report TRACE.json VIEWS.json -o OUT.html [--max-slices N] [--max-icicle N]
  make_page.py diff BASE.json NEW.json DIFF.json -o OUT.html
"""

import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3] / "tools" / "html"))
import assemble  # noqa: E402

SCHEMA = "brickprof-html/1"
CPU_KINDS = ("layer", "brick", "scope")
GPU_KINDS = ("kernel", "transfer", "memset")  # work on a stream; syncs are host waits
KINDS = ["layer", "brick", "scope", "kernel", "transfer", "memset", "sync"]
ICICLE_KINDS = ["root", "thread"] + KINDS
MAX_SLICES = 250_000
MAX_ICICLE = 20_000
MAX_LIST = 10_000  # entries of one list in a view


class BadInput(Exception):
    pass


def load_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise BadInput(f"{path}: {e.strerror}")
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise BadInput(f"{path}: not JSON ({e})")


def check_trace(trace, path):
    if not isinstance(trace, dict) or trace.get("schema") != "brickprof/1":
        raise BadInput(f"{path}: not a brickprof/1 trace")
    nodes = trace.get("nodes")
    if not isinstance(nodes, list):
        raise BadInput(f"{path}: no nodes array")
    ids = set()
    for i, n in enumerate(nodes):
        try:
            if n["kind"] not in KINDS or n["end_ns"] < n["start_ns"] or n["id"] in ids:
                raise ValueError
            ids.add(n["id"])
        except (KeyError, TypeError, ValueError):
            raise BadInput(f"{path}: nodes[{i}]: bad node")
    return nodes


def number_by_position(trace):
    """Each node's id becomes its position in `nodes`, parents to match: the views' JSON numbers
    nodes so (the same as their ids in every trace brickprof writes, 0, 1, 2, ...)."""
    position = {n["id"]: i for i, n in enumerate(trace["nodes"])}
    for i, n in enumerate(trace["nodes"]):
        n["id"] = i
        if n.get("parent") is not None:
            n["parent"] = position.get(n["parent"])


def format_ns(ns):
    """A duration as brickprof's text prints it (trace/model/format.cpp): rounded half up, in
    integers, the unit chosen after rounding."""
    if ns < 1000:
        return f"{ns}ns"
    us10 = (ns + 50) // 100
    if us10 < 10000:
        return f"{us10 // 10}.{us10 % 10}µs"
    ms100 = (ns + 5_000) // 10_000
    if ms100 < 100000:
        return f"{ms100 // 100}.{ms100 % 100:02d}ms"
    s100 = (ns + 5_000_000) // 10_000_000
    return f"{s100 // 100}.{s100 % 100:02d}s"


class Strings:
    """A string table: each distinct string once, in order of first use."""

    def __init__(self):
        self.index = {}
        self.items = []

    def __call__(self, s):
        i = self.index.get(s)
        if i is None:
            i = self.index[s] = len(self.items)
            self.items.append(s)
        return i


def node_depths(nodes, by_id):
    """Depth of each CPU node and sync among the host nodes of its thread (roots 0)."""
    depth = {}
    for n in nodes:
        if n["kind"] in GPU_KINDS:
            continue
        chain = []
        cur = n
        while cur is not None and cur["id"] not in depth:
            chain.append(cur)
            p = by_id.get(cur.get("parent"))
            cur = p if p is not None and p["kind"] in CPU_KINDS and p["thread"] == cur["thread"] else None
            if len(chain) > len(nodes):
                raise BadInput("parent cycle")
        base = depth[cur["id"]] + 1 if cur is not None else 0
        for c in reversed(chain):
            depth[c["id"]] = base
            base += 1
    return depth


def gpu_projections(nodes, by_id):
    """Per device, the span of GPU work under each CPU node that launched some, one per replay of
    a CUDA graph it captured (replayed kernels carry their graph launch's call time):
    {(device, node id, replay): [start, end]}."""
    spans = {}
    for n in nodes:
        if n["kind"] not in GPU_KINDS:
            continue
        dev = n.get("device", 0)
        replay = n.get("api_start_ns") if n.get("graph_node") else None  # 0: not replayed
        p = by_id.get(n.get("parent"))
        hops = 0
        while p is not None and p["kind"] in CPU_KINDS:
            span = spans.setdefault((dev, p["id"], replay), [n["start_ns"], n["end_ns"]])
            span[0] = min(span[0], n["start_ns"])
            span[1] = max(span[1], n["end_ns"])
            p = by_id.get(p.get("parent"))
            hops += 1
            if hops > len(nodes):
                raise BadInput("parent cycle")
    return spans


def build_timeline(trace, max_slices):
    nodes = trace["nodes"]
    by_id = {n["id"]: n for n in nodes}
    depth = node_depths(nodes, by_id)
    t0 = min((n["start_ns"] for n in nodes), default=0)
    end = max((n["end_ns"] for n in nodes), default=0)

    # Lanes: host threads, then per device its range lane and its streams.
    thread_names = {t["tid"]: t.get("name", "") for t in trace.get("threads", [])}
    devices = {d["id"]: d.get("name", "") for d in trace.get("devices", [])}
    lane_keys = {}
    listed = {tid: i for i, tid in enumerate(thread_names)}  # the trace's order, then by id
    threads = sorted(
        {n["thread"] for n in nodes if n["kind"] not in GPU_KINDS},
        key=lambda tid: (listed.get(tid, len(listed)), tid),
    )
    streams = sorted({(n.get("device", 0), n.get("stream", 0)) for n in nodes if n["kind"] in GPU_KINDS})
    lanes = []
    for tid in threads:
        lane_keys[("thread", tid)] = len(lanes)
        name = thread_names.get(tid) or ""
        lanes.append({"kind": "thread", "name": f"Thread {tid}" + (f" ({name})" if name else ""), "tid": tid})
    spans = gpu_projections(nodes, by_id)
    for dev in sorted({d for d, _ in streams}):
        # One range lane per thread that launched work on this device, as its scopes nest.
        for tid in sorted(
            {by_id[nid]["thread"] for d, nid, _ in spans if d == dev},
            key=lambda t: (listed.get(t, len(listed)), t),
        ):
            lane_keys[("range", dev, tid)] = len(lanes)
            lanes.append(
                {"kind": "range", "name": f"GPU {dev}: thread {tid}", "device": dev, "tid": tid}
            )
        for d, s in streams:
            if d == dev:
                lane_keys[("stream", d, s)] = len(lanes)
                lanes.append({"kind": "stream", "name": f"GPU {d}: stream {s}", "device": d, "stream": s})

    # One slice per node, plus one per (device, CPU node, replay) projection; a host slice
    # remembers its parent so that only siblings are merged.
    kind_index = {k: i for i, k in enumerate(KINDS)}
    slices = []  # (lane, start, dur, depth, name, kind, node, parent, merged)
    for n in nodes:
        if n["kind"] in GPU_KINDS:
            lane, d, parent = lane_keys[("stream", n.get("device", 0), n.get("stream", 0))], 0, None
        else:
            lane, d, parent = lane_keys[("thread", n["thread"])], depth[n["id"]], n.get("parent")
        slices.append(
            (
                lane,
                n["start_ns"] - t0,
                n["end_ns"] - n["start_ns"],
                d,
                n["name"],
                kind_index[n["kind"]],
                n["id"],
                parent,
                1,
            )
        )
    for (dev, nid, _), (s, e) in spans.items():
        n = by_id[nid]
        slices.append(
            (
                lane_keys[("range", dev, n["thread"])],
                s - t0,
                e - s,
                depth[nid],
                n["name"],
                kind_index[n["kind"]],
                nid,
                None,
                1,
            )
        )
    slices = pack_rows(slices, {i for i, lane in enumerate(lanes) if lane["kind"] != "thread"})
    slices.sort(key=lambda s: (s[0], s[1], s[3]))
    slices, sampled = reduce_slices(slices, max_slices)

    strings = Strings()
    cols = {k: [] for k in ("start", "dur", "depth", "name", "kind", "node", "merged")}
    counts = [0] * len(lanes)
    prev_lane, prev_start, prev_node = -1, 0, 0
    for lane, start, dur, d, name, kind, nid, _, merged in slices:
        if lane != prev_lane:
            prev_lane, prev_start, prev_node = lane, 0, 0
        counts[lane] += 1
        cols["start"].append(start - prev_start)
        cols["node"].append(nid - prev_node)
        prev_start, prev_node = start, nid
        cols["dur"].append(dur)
        cols["depth"].append(d)
        cols["name"].append(strings(name))
        cols["kind"].append(kind)
        cols["merged"].append(merged)
    if sampled is None:
        del cols["merged"]  # only a reduced timeline has merged slices
    for lane, c in zip(lanes, counts):
        lane["count"] = c

    flows = build_flows(nodes, slices, lanes, lane_keys, t0)
    windows = []
    for w in trace.get("diagnostics", {}).get("capture_windows", []) or []:
        windows.append([w["start_ns"] - t0, w["end_ns"] - t0])
    return {
        "t0_ns": t0,
        "span_ns": end - t0,
        "kinds": KINDS,
        "strings": strings.items,
        "devices": [{"id": d, "name": n} for d, n in sorted(devices.items())],
        "lanes": lanes,
        "slices": cols,
        "flows": flows,
        "windows": windows,
        "sampled": sampled,
    }


def reduce_slices(slices, max_slices):
    """At most max_slices slices: in each row, runs of neighbouring slices shorter than a
    threshold become one merged slice (siblings only on host threads; a run ends at a gap of
    the threshold or more, so idle time stays idle, and before it would span more than the
    threshold, so busy and idle stretches stay apart at that resolution). The threshold starts
    at the duration of the (max_slices / 2)-th longest slice and doubles until the result fits,
    or until it passes the span: then no slice, gap or run is that long and nothing more can
    merge (rows of more unrelated slices than fit keep them)."""
    total = len(slices)
    if total <= max_slices:
        return slices, None
    threshold = max(1, sorted((s[2] for s in slices), reverse=True)[max_slices // 2])
    span = max(s[1] + s[2] for s in slices)
    while True:
        out = merge_short(slices, threshold)
        if len(out) <= max_slices or threshold > span:
            break
        threshold *= 2
    merged = [s for s in out if s[8] > 1]
    kept = len(out) - len(merged)
    standing = sum(s[8] for s in merged)
    return out, {
        "kept": kept,
        "of": total,
        "merged": len(merged),
        "threshold_ns": threshold,
        "how": f"{kept} of {total} slices as recorded ({format_ns(threshold)} or longer, or alone "
        f"between gaps); the other {standing} merged into {len(merged)} slices, one per run "
        "of short neighbours",
    }


def merge_short(slices, threshold):
    """One pass over slices sorted by (lane, start, depth); see reduce_slices."""
    rows = {}
    for s in slices:
        rows.setdefault((s[0], s[3]), []).append(s)
    out = []
    for row in rows.values():
        run = []

        def flush():
            if len(run) == 1:
                out.append(run[0])
            elif run:
                longest = max(run, key=lambda s: s[2])
                end = max(s[1] + s[2] for s in run)
                out.append(
                    (
                        longest[0],
                        run[0][1],
                        end - run[0][1],
                        longest[3],
                        longest[4],
                        longest[5],
                        longest[6],
                        longest[7],
                        sum(s[8] for s in run),
                    )
                )
            run.clear()

        for s in row:
            if s[2] >= threshold:
                flush()
                out.append(s)
                continue
            if run and (
                s[7] != run[-1][7]
                or s[1] - (run[-1][1] + run[-1][2]) >= threshold
                or s[1] + s[2] - run[0][1] > threshold
            ):
                flush()
            run.append(s)
        flush()
    out.sort(key=lambda s: (s[0], s[1], s[3]))
    return out


def pack_rows(slices, lanes_to_pack):
    """Rows for lanes whose slices need not nest (GPU range lanes, streams): each slice in the
    lowest free row below the slice that encloses it, so no two slices of a row overlap."""
    keep = [s for s in slices if s[0] not in lanes_to_pack]
    todo = sorted((s for s in slices if s[0] in lanes_to_pack), key=lambda s: (s[0], s[1], -s[2]))
    lane, row_end, stack = None, [], []
    for s in todo:
        if s[0] != lane:
            lane, row_end, stack = s[0], [], []
        start, end = s[1], s[1] + s[2]
        while stack and stack[-1][0] <= start:
            stack.pop()
        low = next((row + 1 for e, row in reversed(stack) if e >= end), 0)
        row = low
        while row < len(row_end) and row_end[row] > start:
            row += 1
        if row == len(row_end):
            row_end.append(end)
        row_end[row] = end
        stack.append((end, row))
        keep.append(s[:3] + (row,) + s[4:])  # the rest of the tuple as it was
    return keep


def build_flows(nodes, slices, lanes, lane_keys, t0):
    """Launch -> GPU operation: from the innermost host slice open on the launching thread at
    the launch call (for a replayed graph, its cuGraphLaunch), to the operation's slice."""
    by_id = {n["id"]: n for n in nodes}
    stream_lanes = {i for i, lane in enumerate(lanes) if lane["kind"] == "stream"}
    per_thread = {}  # thread lane -> [(start, depth, end, slice index)]
    queries = {}  # thread lane -> [(time, slice index of the op, call time or -1)]
    for i, (lane, start, dur, d, _, _, nid, _, merged) in enumerate(slices):
        if merged > 1:
            continue  # a merged slice launched nothing of its own, nor was launched
        if lanes[lane]["kind"] == "thread":
            per_thread.setdefault(lane, []).append((start, d, start + dur, i))
        elif lane in stream_lanes:
            n = by_id[nid]
            at = n["api_start_ns"] - t0 if n.get("api_start_ns") else -1
            parent = by_id.get(n.get("parent"))
            if at < 0 and parent is None:
                continue
            when = at if at >= 0 else parent["start_ns"] - t0
            key = lane_keys.get(("thread", n["thread"]))
            if key is not None:
                queries.setdefault(key, []).append((when, i, at))
    flows = []
    for lane, qs in queries.items():
        qs.sort()
        opened = per_thread.get(lane, [])  # already in (start, depth) order
        stack, j = [], 0
        for when, to, at in qs:
            while j < len(opened) and opened[j][0] <= when:
                while stack and stack[-1][2] <= opened[j][0]:
                    stack.pop()
                stack.append(opened[j])
                j += 1
            while stack and stack[-1][2] < when:
                stack.pop()
            if stack:
                flows.append((stack[-1][3], to, at))
    flows.sort(key=lambda f: f[1])
    return {"from": [f[0] for f in flows], "to": [f[1] for f in flows], "at": [f[2] for f in flows]}


def build_icicle(trace, max_entries):
    """The aggregate tree: one entry per path of (kind, name) from the root, parents first."""
    nodes = trace["nodes"]
    by_id = {n["id"]: n for n in nodes}
    thread_names = {t["tid"]: t.get("name", "") for t in trace.get("threads", [])}
    kind_index = {k: i for i, k in enumerate(ICICLE_KINDS)}
    strings = Strings()
    name, kind, parent, count, total, gpu = [strings("all")], [0], [-1], [0], [0], [0]
    children = [{}]

    def child(p, k, n):
        key = (k, n)
        c = children[p].get(key)
        if c is None:
            c = children[p][key] = len(name)
            name.append(strings(n))
            kind.append(kind_index[k])
            parent.append(p)
            count.append(0)
            total.append(0)
            gpu.append(0)
            children.append({})
        return c

    many_threads = len({n["thread"] for n in nodes if n.get("parent") is None}) > 1
    entry_of = {}
    for n in nodes:
        chain = []
        cur = n
        while cur is not None and cur["id"] not in entry_of:
            chain.append(cur)
            cur = by_id.get(cur.get("parent"))
            if len(chain) > len(nodes):
                raise BadInput("parent cycle")
        for c in reversed(chain):
            if cur is not None:
                p = entry_of[cur["id"]]
            elif many_threads:
                tname = thread_names.get(c["thread"])
                p = child(0, "thread", f"Thread {c['thread']}" + (f" ({tname})" if tname else ""))
            else:
                p = 0
            e = child(p, c["kind"], c["name"])
            entry_of[c["id"]] = e
            count[e] += 1
            dur = c["end_ns"] - c["start_ns"]
            total[e] += dur
            if c["kind"] in GPU_KINDS:
                gpu[e] += dur
            cur = c
    # Totals of the synthetic entries, then GPU time and self time upwards (children come after
    # their parent, so one backward pass sees every child before its parent).
    host_child = [0] * len(name)
    for e in range(len(name) - 1, 0, -1):
        p = parent[e]
        gpu[p] += gpu[e]
        if ICICLE_KINDS[kind[e]] not in GPU_KINDS:
            host_child[p] += total[e]
            if ICICLE_KINDS[kind[p]] in ("root", "thread"):
                total[p] += total[e]
    self_ns = [
        total[e] - host_child[e] if ICICLE_KINDS[kind[e]] not in GPU_KINDS else total[e]
        for e in range(len(name))
    ]
    cols = {
        "name": name,
        "kind": kind,
        "parent": parent,
        "count": count,
        "total": total,
        "self": self_ns,
        "gpu": gpu,
    }
    sampled = None
    if len(name) > max_entries:
        # max(total, gpu) never grows from parent to child, so the heaviest entries are a tree.
        weight = [max(t, g) for t, g in zip(total, gpu)]
        keep = sorted(sorted(range(len(name)), key=lambda e: (-weight[e], e))[:max_entries])
        keep_set = set(keep)
        for e in keep:  # ties may have cut an ancestor: bring it back
            p = parent[e]
            while p >= 0 and p not in keep_set:
                keep_set.add(p)
                p = parent[p]
        keep = sorted(keep_set)
        new_index = {e: i for i, e in enumerate(keep)}
        of = len(name)
        cols = {k: [v[e] for e in keep] for k, v in cols.items()}
        cols["parent"] = [new_index[p] if p >= 0 else -1 for p in cols["parent"]]
        sampled = {
            "kept": len(keep),
            "of": of,
            "how": f"the {len(keep)} heaviest of {of} entries; lighter ones are left out",
        }
    used = Strings()
    cols["name"] = [used(strings.items[i]) for i in cols["name"]]
    return {"kinds": ICICLE_KINDS, "strings": used.items, **cols, "sampled": sampled}


def report_title(trace):
    p = trace.get("process", {})
    who = p.get("program") or "trace"
    where = f" (pid {p['pid']}" + (f" on {p['host']}" if p.get("host") else "") + ")" if p.get("pid") else ""
    return who + where


def make_report(trace_path, views_path, max_slices=None, max_icicle=None, max_list=None):
    max_slices = max_slices or MAX_SLICES
    max_icicle = max_icicle or MAX_ICICLE
    max_list = max_list or MAX_LIST
    trace = load_json(trace_path)
    check_trace(trace, trace_path)
    number_by_position(trace)
    views = load_json(views_path)
    if not isinstance(views, dict):
        raise BadInput(f"{views_path}: not a report --json object")
    try:
        timeline = build_timeline(trace, max_slices)
        icicle = build_icicle(trace, max_icicle)
    except (KeyError, TypeError) as e:
        raise BadInput(f"{trace_path}: missing or bad field {e}")
    except BadInput as e:
        raise BadInput(f"{trace_path}: {e}")
    views.pop("tree", None)  # the icicle draws the aggregate tree
    data = {
        "schema": SCHEMA,
        "kind": "report",
        "title": report_title(trace),
        "source": pathlib.Path(trace_path).name,
        "views": views,
        "timeline": timeline,
        "icicle": icicle,
    }
    steps = views.get("critical-path", {}).get("steps", [])
    if len(steps) > max_list:
        data["critical_path"] = critical_path_columns(steps, timeline["lanes"])
    data["cuts"] = cut_lists(views, max_list)
    return data


def critical_path_columns(steps, lanes):
    """Every step of the critical path, compact, for when the view's list is cut."""
    lane_of = {}
    for i, lane in enumerate(lanes):
        if lane["kind"] == "thread":
            lane_of[("thread", lane["tid"])] = i
        elif lane["kind"] == "stream":
            lane_of[("stream", lane["device"], lane["stream"])] = i
    names, kinds = Strings(), Strings()
    cols = {"node": [], "dur": [], "name": [], "kind": [], "lane": []}
    for st in steps:
        lane = st.get("lane", {})
        key = (
            ("thread", lane["thread"])
            if "thread" in lane
            else ("stream", lane.get("device"), lane.get("stream"))
        )
        cols["node"].append(-1 if st["node"] is None else st["node"])
        cols["dur"].append(st["duration_ns"])
        cols["name"].append(names(st["name"]))
        cols["kind"].append(kinds(st["kind"]))
        cols["lane"].append(lane_of.get(key, -1))
    return {"strings": names.items, "kinds": kinds.items, **cols}


def cut_lists(views, limit):
    """Lists of a view longer than `limit` keep their first `limit` entries; returns the cuts."""
    cuts = []
    for name, view in views.items():
        if not isinstance(view, dict):
            continue
        for key, value in view.items():
            if isinstance(value, list) and len(value) > limit:
                cuts.append({"view": name, "key": key, "kept": limit, "of": len(value)})
                view[key] = value[:limit]
    return cuts


def make_diff(base_path, new_path, diff_path):
    result = load_json(diff_path)
    if not isinstance(result, dict) or not isinstance(result.get("entries"), list):
        raise BadInput(f"{diff_path}: not a diff --json object")
    sides = {}
    for key, path in (("base", base_path), ("new", new_path)):
        trace = load_json(path)
        check_trace(trace, path)
        p = trace.get("process", {})
        sides[key] = {
            "file": pathlib.Path(path).name,
            "title": report_title(trace),
            "span_ns": p["end_ns"] - p.get("start_ns", 0) if p.get("end_ns") else None,
        }
    title = f"{sides['base']['file']} → {sides['new']['file']}"
    return {
        "schema": SCHEMA,
        "kind": "diff",
        "title": title,
        "diff": {"base": sides["base"], "new": sides["new"], "result": result},
    }


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("report")
    rep.add_argument("trace")
    rep.add_argument("views")
    rep.add_argument("--max-slices", type=int, default=MAX_SLICES)
    rep.add_argument("--max-icicle", type=int, default=MAX_ICICLE)
    rep.add_argument("--max-list", type=int, default=MAX_LIST)
    dif = sub.add_parser("diff")
    dif.add_argument("base")
    dif.add_argument("new")
    dif.add_argument("diff")
    for p in (rep, dif):
        p.add_argument("-o", "--out", required=True)
        p.add_argument("--data-out", help="also write the embedded data as JSON")
    args = ap.parse_args(argv[1:])
    try:
        if args.command == "report":
            data = make_report(args.trace, args.views, args.max_slices, args.max_icicle, args.max_list)
        else:
            data = make_diff(args.base, args.new, args.diff)
        page = assemble.fill(assemble.shell(), data)
    except (BadInput, assemble.AssemblyError) as e:
        print(f"make_page.py: {e}", file=sys.stderr)
        return 2
    pathlib.Path(args.out).write_text(page, encoding="utf-8")
    if args.data_out:
        pathlib.Path(args.data_out).write_text(json.dumps(data), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
