#!/usr/bin/env python3
"""The HTML report's data contract (tools/html/README.md) as both writers write it, brickprof's
(`report --html`, and page_with_limits for small limits) and the reference make_page.py, checked
against the traces it comes from: columns decode to each node's times, rows do not overlap,
flows join host slices to GPU operations, the icicle adds up, reductions keep the longest and
heaviest and say so (and end where nothing more can merge), the data cannot break out of its
<script> element, bad input exits 2.

  test_make_page.py DATA_DIR BRICKPROF PAGE_WITH_LIMITS
"""

import json
import pathlib
import subprocess
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import make_page  # noqa: E402
import pages  # noqa: E402
from check_page import synthetic_trace  # noqa: E402

DATA = BRICKPROF = PAGE_WITH_LIMITS = None
TMP = tempfile.TemporaryDirectory()


def python_writer(trace_path, max_slices=make_page.MAX_SLICES, max_icicle=make_page.MAX_ICICLE):
    views = pathlib.Path(TMP.name) / "views.json"
    views.write_text("{}")
    return json.loads(json.dumps(make_page.make_report(str(trace_path), str(views), max_slices, max_icicle)))


def cpp_writer(trace_path, max_slices=make_page.MAX_SLICES, max_icicle=make_page.MAX_ICICLE):
    out = pathlib.Path(TMP.name) / "page.html"
    if (max_slices, max_icicle) == (make_page.MAX_SLICES, make_page.MAX_ICICLE):
        return pages.report_page(BRICKPROF, trace_path, out)
    return pages.limited_page(PAGE_WITH_LIMITS, trace_path, out, max_slices, max_icicle, make_page.MAX_LIST)


WRITERS = {"python": python_writer, "cpp": cpp_writer}


def trace_file(trace, name):
    path = pathlib.Path(TMP.name) / name
    path.write_text(json.dumps(trace))
    return path


def decode(tl):
    """Slices as dicts with absolute lane index, start and node (the columns are deltas per lane)."""
    out, i = [], 0
    c = tl["slices"]
    for li, lane in enumerate(tl["lanes"]):
        start = node = 0
        for _ in range(lane["count"]):
            start += c["start"][i]
            node += c["node"][i]
            out.append(
                {
                    "lane": li,
                    "start": start,
                    "dur": c["dur"][i],
                    "depth": c["depth"][i],
                    "name": tl["strings"][c["name"][i]],
                    "kind": tl["kinds"][c["kind"][i]],
                    "node": node,
                }
            )
            i += 1
    return out


class Fixture(unittest.TestCase):
    trace_path = None
    writer = None

    @classmethod
    def setUpClass(cls):
        cls.trace = json.loads(pathlib.Path(cls.trace_path).read_text())
        cls.data = WRITERS[cls.writer](cls.trace_path)
        cls.tl = cls.data["timeline"]
        cls.slices = decode(cls.tl)

    def test_envelope(self):
        self.assertEqual(self.data["schema"], "brickprof-html/1")
        self.assertEqual(self.data["kind"], "report")
        self.assertIsNone(self.tl["sampled"])
        self.assertIsNone(self.data["icicle"]["sampled"])

    def test_every_node_once_at_its_times(self):
        t0 = self.tl["t0_ns"]
        placed = {}
        for s in self.slices:
            if self.tl["lanes"][s["lane"]]["kind"] != "range":
                self.assertNotIn(s["node"], placed)
                placed[s["node"]] = s
        self.assertEqual(set(placed), {n["id"] for n in self.trace["nodes"]})
        for n in self.trace["nodes"]:
            s = placed[n["id"]]
            self.assertEqual(
                (s["start"], s["dur"], s["name"], s["kind"]),
                (n["start_ns"] - t0, n["end_ns"] - n["start_ns"], n["name"], n["kind"]),
            )
            lane = self.tl["lanes"][s["lane"]]
            if n["kind"] in make_page.GPU_KINDS:
                self.assertEqual(
                    (lane["kind"], lane["device"], lane["stream"]), ("stream", n["device"], n["stream"])
                )
            else:
                self.assertEqual((lane["kind"], lane["tid"]), ("thread", n["thread"]))
        self.assertEqual(self.tl["span_ns"], max(n["end_ns"] for n in self.trace["nodes"]) - t0)

    def test_lanes_sorted_and_rows_disjoint(self):
        rows = {}
        for s in self.slices:
            rows.setdefault((s["lane"], s["depth"]), []).append(s)
        for key, row in rows.items():
            for a, b in zip(row, row[1:]):
                self.assertLessEqual(a["start"], b["start"], key)
                self.assertLessEqual(a["start"] + a["dur"], b["start"], f"{key}: {a} overlaps {b}")

    def test_host_depth_is_nesting(self):
        by_id = {n["id"]: n for n in self.trace["nodes"]}
        for s in self.slices:
            if self.tl["lanes"][s["lane"]]["kind"] != "thread":
                continue
            depth, p = 0, by_id.get(by_id[s["node"]].get("parent"))
            while p is not None:
                depth += 1
                p = by_id.get(p.get("parent"))
            self.assertEqual(s["depth"], depth, s)

    def test_flows_join_launch_to_operation(self):
        f = self.tl["flows"]
        self.assertEqual(len(f["from"]), len(f["to"]))
        self.assertEqual(len(f["from"]), len(f["at"]))
        by_id = {n["id"]: n for n in self.trace["nodes"]}
        for src, dst, at in zip(f["from"], f["to"], f["at"]):
            a, b = self.slices[src], self.slices[dst]
            self.assertEqual(self.tl["lanes"][a["lane"]]["kind"], "thread")
            self.assertEqual(self.tl["lanes"][b["lane"]]["kind"], "stream")
            op = by_id[b["node"]]
            if "api_start_ns" in op:
                self.assertEqual(at, op["api_start_ns"] - self.tl["t0_ns"])
                self.assertTrue(a["start"] <= at <= a["start"] + a["dur"])
                deeper = [
                    s
                    for s in self.slices
                    if s["lane"] == a["lane"]
                    and s["depth"] > a["depth"]
                    and s["start"] <= at <= s["start"] + s["dur"]
                ]
                self.assertEqual(
                    deeper, [], f"{a['name']} is not the innermost slice at the launch of {b['name']}"
                )
        self.assertEqual(len(set(f["to"])), len(f["to"]))
        if any(n["kind"] == "kernel" for n in self.trace["nodes"]):
            self.assertGreater(len(f["to"]), 0)

    def test_icicle_adds_up(self):
        ic = self.data["icicle"]
        n = len(ic["name"])
        for e in range(1, n):
            self.assertLess(ic["parent"][e], e)
        gpu_ops = [x for x in self.trace["nodes"] if x["kind"] in make_page.GPU_KINDS]
        self.assertEqual(ic["gpu"][0], sum(x["end_ns"] - x["start_ns"] for x in gpu_ops))
        kinds = ic["kinds"]
        for kind in ("kernel", "brick", "layer"):
            self.assertEqual(
                sum(c for c, k in zip(ic["count"], ic["kind"]) if kinds[k] == kind),
                sum(1 for x in self.trace["nodes"] if x["kind"] == kind),
            )
        for e in range(n):
            self.assertGreaterEqual(ic["self"][e], 0)
            self.assertLessEqual(ic["self"][e], ic["total"][e])


class Reductions:
    """Each writer's reductions: subclassed once per writer below."""

    writer = None

    def write(self, trace, max_slices=make_page.MAX_SLICES, max_icicle=make_page.MAX_ICICLE):
        return WRITERS[self.writer](trace_file(trace, "reduced.json"), max_slices, max_icicle)

    def test_timeline_merges_short_neighbours_and_says_so(self):
        trace = synthetic_trace(3000)
        tl = self.write(trace, 500)["timeline"]
        red = tl["sampled"]
        out = decode(tl)
        self.assertLessEqual(len(out), 500)
        self.assertEqual(red["kept"] + red["merged"], len(out))
        self.assertGreater(red["of"], 3000)
        self.assertIn("merged", red["how"])
        merged = tl["slices"]["merged"]
        self.assertEqual(sum(merged), red["of"])  # each recorded slice stands in exactly one
        t0 = tl["t0_ns"]
        for s, m in zip(out, merged):
            s["merged"] = m
        by_row = {}
        for s in out:
            by_row.setdefault((s["lane"], s["depth"]), []).append(s)
        lanes = {}
        for li, lane in enumerate(tl["lanes"]):
            lanes[(lane["kind"], lane.get("tid"), lane.get("stream"))] = li
        by_id = {n["id"]: n for n in trace["nodes"]}
        depth = {
            n["id"]: 0 if n["parent"] is None else 1 + (by_id[n["parent"]]["parent"] is not None)
            for n in trace["nodes"]
        }
        for n in trace["nodes"]:
            gpu = n["kind"] in make_page.GPU_KINDS
            lane = lanes[("stream", None, n["stream"])] if gpu else lanes[("thread", n["thread"], None)]
            start, dur = n["start_ns"] - t0, n["end_ns"] - n["start_ns"]
            row = [s for key, ss in by_row.items() if key[0] == lane for s in ss]
            alone = [s for s in row if s["merged"] == 1 and s["node"] == n["id"] and s["start"] == start]
            if dur >= red["threshold_ns"]:
                self.assertEqual(len(alone), 1, n)
            elif not alone:
                covering = [
                    s
                    for s in row
                    if s["merged"] > 1
                    and s["start"] <= start
                    and start + dur <= s["start"] + s["dur"]
                    and (gpu or s["depth"] == depth[n["id"]])
                ]
                # On a stream, rows are packed: two rows' runs may both span a short kernel.
                self.assertTrue(len(covering) >= 1 if gpu else len(covering) == 1, n)
        for f in tl["flows"]["from"] + tl["flows"]["to"]:
            self.assertEqual(merged[f], 1)

    def test_unrelated_slices_are_kept_once_nothing_more_can_merge(self):
        # One brick under each of 600 layers: the bricks are no siblings and never merge, so no
        # threshold fits 1200 slices into 500; the reduction stops where the threshold passes the
        # span and says what it kept.
        nodes = []
        for i in range(600):
            t = i * 1000
            nodes.append({"id": 2 * i, "kind": "layer", "name": "Layer 0", "parent": None,
                          "thread": 1, "start_ns": t, "end_ns": t + 900})
            nodes.append({"id": 2 * i + 1, "kind": "brick", "name": "RmsNorm", "parent": 2 * i,
                          "thread": 1, "start_ns": t + 100, "end_ns": t + 800})
        trace = {"schema": "brickprof/1", "process": {"pid": 1, "program": "x"}, "nodes": nodes,
                 "edges": []}
        tl = self.write(trace, 500)["timeline"]
        red = tl["sampled"]
        self.assertEqual(red["of"], 1200)
        self.assertGreater(red["threshold_ns"], tl["span_ns"])
        bricks = [s for s in decode(tl) if s["kind"] == "brick"]
        self.assertEqual(len(bricks), 600)
        self.assertEqual(len(tl["slices"]["dur"]), 601)  # the layers: one run, one slice

    def test_icicle_keeps_a_tree_of_the_heaviest(self):
        trace = synthetic_trace(600)
        for i, n in enumerate(trace["nodes"]):  # many distinct names
            n["name"] = f"{n['name']} {i % 97}"
        full = self.write(trace, max_icicle=10**6)["icicle"]
        cut = self.write(trace, max_icicle=50)["icicle"]
        self.assertIsNone(full["sampled"])
        self.assertEqual(cut["sampled"]["of"], len(full["name"]))
        self.assertEqual(cut["sampled"]["kept"], len(cut["name"]))
        self.assertLessEqual(len(cut["name"]), 60)
        for e in range(1, len(cut["name"])):
            self.assertLess(cut["parent"][e], e)
        self.assertEqual(cut["gpu"][0], full["gpu"][0])


class PythonReductions(Reductions, unittest.TestCase):
    writer = "python"


class CppReductions(Reductions, unittest.TestCase):
    writer = "cpp"


NASTY = "</script><script>alert(1)</script><!-- ]]>"


class Embedding(unittest.TestCase):
    def test_brickprofs_data_cannot_close_its_element(self):
        trace = synthetic_trace(30)
        trace["process"]["program"] = NASTY
        trace["nodes"][1]["name"] = NASTY + " µs →"
        out = pathlib.Path(TMP.name) / "nasty.html"
        data = pages.report_page(BRICKPROF, trace_file(trace, "nasty.json"), out)
        page = out.read_text(encoding="utf-8")
        start = page.index(pages.DATA_ELEMENT) + len(pages.DATA_ELEMENT)
        self.assertNotIn("<", page[start : page.index("</script>", start)])
        self.assertIn(NASTY, data["title"])
        self.assertIn(NASTY + " µs →", data["timeline"]["strings"])

    def test_data_cannot_close_its_element(self):
        import assemble

        nasty = {"title": "</script><script>alert(1)</script><!-- ]]>", "n": [1, 2]}
        page = assemble.fill(assemble.shell(), nasty)
        start = page.index('id="brickprof-data">') + len('id="brickprof-data">')
        end = page.index("</script>", start)
        self.assertEqual(json.loads(page[start:end]), nasty)
        self.assertNotIn("<", page[start:end])

    def test_shell_has_everything_inline(self):
        import assemble

        page = assemble.shell()
        self.assertNotIn("@include", page)
        self.assertEqual(page.count(assemble.DATA_MARKER), 1)
        for bad in ("src=", 'href="http', "@import", "url("):
            self.assertNotIn(bad, page)


class BadInput(unittest.TestCase):
    def run_tool(self, *args):
        return subprocess.run(
            [sys.executable, str(HERE / "make_page.py"), *args], capture_output=True, text=True
        )

    def test_one_line_and_exit_2(self):
        with tempfile.TemporaryDirectory() as d:
            bad = pathlib.Path(d) / "bad.json"
            bad.write_text('{"schema": "brickprof/1", "nodes": [{"id": 0}]}')
            views = pathlib.Path(d) / "views.json"
            views.write_text("{}")
            for args, needle in (
                ((str(bad), str(views)), "bad.json: nodes[0]"),
                ((str(pathlib.Path(d) / "none.json"), str(views)), "none.json"),
                ((str(views), str(views)), "not a brickprof/1 trace"),
            ):
                r = self.run_tool("report", *args, "-o", str(pathlib.Path(d) / "out.html"))
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
                self.assertIn(needle, r.stderr)
                self.assertFalse((pathlib.Path(d) / "out.html").exists())


if __name__ == "__main__":
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    DATA = pathlib.Path(sys.argv.pop(1))
    BRICKPROF, PAGE_WITH_LIMITS = sys.argv.pop(1), sys.argv.pop(1)
    # Each fixture through each writer.
    for writer in WRITERS:
        for name, rel in (("Gpu", "gpu/bricklayer-graph.json"), ("Cpu", "cpu/bricklayer-avx2.json")):
            cls = f"{writer.capitalize()}{name}Fixture"
            globals()[cls] = type(cls, (Fixture,), {"trace_path": str(DATA / rel), "writer": writer})
    del Fixture  # the base class runs through its fixtures only
    unittest.main()
