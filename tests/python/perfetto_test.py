#!/usr/bin/env python3
"""The Perfetto output, decoded with the Perfetto project's own protos (the
`perfetto` package on PyPI, parsed by `protobuf`), holds every slice, track
and flow of the JSON trace with the same times:

- the GPU fixture through `report --perfetto`;
- a CPU run whose agent wrote json and perfetto at exit (nested scopes on
  three threads);
- the program's counters and tokens (as the Chrome export's counter events);
- an empty trace;
- a generated trace of 10^6 nodes (bytes per node printed).

usage: perfetto_test.py BRICKPROF DATA_DIR APP VENV_DIR
Skips (77) when the packages cannot be installed from PyPI.
"""
import collections
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from checks import check, load_json, run, summary  # noqa: E402


def expected_from_json(trace):
    """(slices, flows, tracks) of a JSON trace, keyed as decoded_keys() keys them."""
    names = {t["tid"]: t["name"] for t in trace.get("threads", []) if t.get("name")}
    devices = {d["id"]: d.get("name", "") for d in trace.get("devices", [])}
    pid = trace.get("process", {}).get("pid", 0)
    program = trace.get("process", {}).get("program") or "process"
    nodes = trace["nodes"]
    by_id = {n["id"]: n for n in nodes}

    def on_gpu(n):
        return n["kind"] not in ("layer", "brick", "scope") and "device" in n

    def key(n):
        if on_gpu(n):
            gpu = "GPU %d" % n["device"] + (" (%s)" % devices[n["device"]]
                                            if devices.get(n["device"]) else "")
            return ("named", "Stream %d" % n.get("stream", 0), ("named", gpu, None))
        tid = n.get("thread", 0)
        if tid >= 1 << 31:
            return ("named", names.get(tid, "Thread %d" % tid), ("process", pid, program))
        return ("thread", pid, tid)

    slices = []
    flows = []
    for n in nodes:
        plain = n.get("name") and n["kind"] not in ("transfer", "memset")
        slices.append((key(n), n["start_ns"], n["end_ns"], n["name"] if plain else None))
        parent = by_id.get(n.get("parent"))
        if on_gpu(n) and parent is not None and parent["kind"] in ("layer", "brick", "scope"):
            flows.append(((key(parent), parent["start_ns"], parent["end_ns"]),
                          (key(n), n["start_ns"], n["end_ns"])))
    tracks = {key(n) for n in nodes} | {("thread", pid, t) for t in names if t < 1 << 31}
    return slices, flows, tracks


def decoded_keys(decoded):
    """A key per track uuid, lanes for overlapping slices folded into their track."""
    keys = {}
    for uuid in decoded.tracks:
        def key(u):
            d = decoded.tracks[u]
            if d.HasField("thread"):
                return ("thread", d.thread.pid, d.thread.tid)
            if d.HasField("process"):
                return ("process", d.process.pid, d.process.process_name)
            name = re.sub(r" \(overlapping \d+\)$", "", d.name)
            return ("named", name, key(d.parent_uuid) if d.HasField("parent_uuid") else None)
        keys[uuid] = key(uuid)
    return keys


def compare(decoded, slices, flows, tracks, what):
    keys = decoded_keys(decoded)
    got = collections.defaultdict(list)
    for s in decoded.slices:
        got[(keys[s["track"]], s["start"], s["end"])].append(s["name"])
    want = collections.defaultdict(list)
    for k, start, end, name in slices:
        want[(k, start, end)].append(name)
    missing = [k for k in want if len(got.get(k, [])) != len(want[k])]
    extra = [k for k in got if k not in want]
    check(not missing and not extra, "%s: %d slices missing or miscounted (e.g. %s), %d extra "
          "(e.g. %s)" % (what, len(missing), missing[:1], len(extra), extra[:1]))
    for k, names in want.items():
        plain = sorted(n for n in names if n is not None)
        have = list(got.get(k, []))
        for n in plain:
            if n in have:
                have.remove(n)
            else:
                check(False, "%s: slice %s has no name %r (names %r)" % (what, k, n, got.get(k)))
                break
    got_flows = collections.Counter(
        ((keys[a["track"]], a["start"], a["end"]), (keys[b["track"]], b["start"], b["end"]))
        for a, b in decoded.flows())
    check(got_flows == collections.Counter(flows),
          "%s: flows differ (%d decoded, %d expected)" % (what, sum(got_flows.values()),
                                                          len(flows)))
    have_tracks = set(keys.values())
    check(tracks <= have_tracks, "%s: tracks missing: %s" % (what, sorted(tracks - have_tracks,
                                                                        key=str)[:3]))
    check(len(decoded.slices) == len(slices),
          "%s: %d slices decoded, %d nodes" % (what, len(decoded.slices), len(slices)))


def pb_unit_bytes():
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb
    return pb.CounterDescriptor.UNIT_SIZE_BYTES


def pb_unit_count():
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb
    return pb.CounterDescriptor.UNIT_COUNT


def in_venv(brickprof, data, app):
    import perfetto_decode
    import big_trace

    tmp = tempfile.mkdtemp(prefix="brickprof-perfetto-")
    try:
        # The GPU fixture, through report --perfetto.
        fixture = os.path.join(data, "gpu", "bricklayer-graph.json")
        out = os.path.join(tmp, "gpu.pftrace")
        run([brickprof, "report", fixture, "--perfetto", "-o", out])
        compare(perfetto_decode.decode(out), *expected_from_json(load_json(fixture)),
                what="GPU fixture")

        # Memory: a counter track per account, its samples report --memory's timeline.
        memory = os.path.join(data, "analyses", "memory_steps.json")
        out = os.path.join(tmp, "memory.pftrace")
        run([brickprof, "report", memory, "--perfetto", "-o", out])
        decoded = perfetto_decode.decode(out)
        views = json.loads(run([brickprof, "report", memory, "--memory", "--json"]).stdout)
        got = {decoded.tracks[u].name: samples for u, samples in decoded.counters.items()}
        want = {a["label"]: [tuple(p) for p in a["timeline"]] for a in views["memory"]["accounts"]}
        check(got == want, "memory counters: %r, report --memory: %r" % (got, want))
        units = {decoded.tracks[u].counter.unit for u in decoded.counters}
        check(units == {pb_unit_bytes()}, "memory counters' unit: %r" % units)

        # The program's counters and tokens so far: a counter track each under
        # the process, with the Chrome export's samples.
        tokens = os.path.join(data, "analyses", "tokens.json")
        out = os.path.join(tmp, "tokens.pftrace")
        run([brickprof, "report", tokens, "--perfetto", "-o", out])
        decoded = perfetto_decode.decode(out)
        chrome = json.loads(run([brickprof, "report", tokens, "--chrome"]).stdout)
        want = collections.defaultdict(list)
        for e in chrome["traceEvents"]:
            if e.get("ph") == "C" and e.get("cat") in ("counter", "tokens"):
                (value,) = e["args"].values()
                want[e["name"]].append((round(e["ts"] * 1000), value))
        got = {decoded.tracks[u].name: samples for u, samples in decoded.counters.items()}
        check(got == dict(want) and "tokens" in got,
              "program counters: %r, the Chrome export's: %r" % (got, dict(want)))
        units = {decoded.tracks[u].name: decoded.tracks[u].counter.unit for u in decoded.counters}
        check(units.get("tokens") == pb_unit_count(), "tokens track's unit: %r" % units)

        # A CPU run: the agent writes json and perfetto at exit.
        prefix = os.path.join(tmp, "cpu")
        run([brickprof, "run", "--formats", "json,perfetto", "--output", prefix, "--", app])
        if os.path.exists(prefix + ".pftrace"):
            trace = load_json(prefix + ".json")
            check(len(trace["nodes"]) >= 12, "CPU run: only %d nodes" % len(trace["nodes"]))
            compare(perfetto_decode.decode(prefix + ".pftrace"), *expected_from_json(trace),
                    what="CPU run")
        else:
            check(False, "the agent wrote no %s.pftrace" % prefix)

        # An empty trace.
        empty = os.path.join(tmp, "empty.json")
        with open(empty, "w") as f:
            f.write('{"schema":"brickprof/1","process":{"pid":1},"nodes":[],"edges":[]}')
        run([brickprof, "report", empty, "--perfetto", "-o", empty + ".pftrace"])
        decoded = perfetto_decode.decode(empty + ".pftrace")
        check(not decoded.slices, "empty trace: %d slices" % len(decoded.slices))

        # 10^6 nodes.
        big = os.path.join(tmp, "big.json")
        expected = []
        flows = big_trace.write(big, 1_000_000, expected=expected)
        run([brickprof, "report", big, "--perfetto", "-o", big + ".pftrace"], timeout=600)
        decoded = perfetto_decode.decode(big + ".pftrace")
        size = os.path.getsize(big + ".pftrace")
        print("10^6-node trace: %d nodes, %d bytes JSON, %d bytes Perfetto (%.1f per node)"
              % (len(expected), os.path.getsize(big), size, size / len(expected)))
        key = {("thread", t): ("thread", 4242, t) for t in range(100, 104)}
        key.update({("stream", 0, s): ("named", "Stream %d" % s, ("named", "GPU 0 (Test GPU)", None))
                    for s in range(10, 14)})
        slices = [(key[k], s, e, n) for k, s, e, n in expected]
        spans = [(key[e[0]], e[1], e[2]) for e in expected]
        compare(decoded, slices, [(spans[a], spans[b]) for a, b in flows],
                set(key.values()), what="10^6-node trace")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    brickprof, data, app, venv = sys.argv[1:5]
    if os.environ.get("BRICKPROF_TEST_VENV") != venv:
        import venv_helper
        python = venv_helper.python_with(venv, ["perfetto", "protobuf"])
        os.environ["BRICKPROF_TEST_VENV"] = venv
        os.execv(python, [python, os.path.abspath(__file__)] + sys.argv[1:])
    in_venv(brickprof, data, app)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
