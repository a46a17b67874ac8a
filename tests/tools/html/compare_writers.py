#!/usr/bin/env python3
"""brickprof's HTML writer (C++) and the reference writer make_page.py write the same data for
every trace the page tests open: the GPU and CPU fixtures, the analyses' hand-made traces, the
diffs, one whose node ids are not their positions, and, at small limits (page_with_limits), a
reduced timeline, a flame graph cut to its heaviest entries and cut view lists with the critical
path's columns. Parsed JSON is compared; numbers equal within 1e-9 relative (the views' floats
are printed by different code).

  compare_writers.py DATA_DIR BRICKPROF PAGE_WITH_LIMITS
  compare_writers.py --trace TRACE BRICKPROF     (one trace of any size: prints the differences)
"""

import json
import pathlib
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "support"))
import make_page  # noqa: E402
import pages  # noqa: E402
from check_page import synthetic_trace  # noqa: E402
from checks import load_json, run  # noqa: E402

DATA = BRICKPROF = PAGE_WITH_LIMITS = None
TMP = tempfile.TemporaryDirectory()
RELATIVE = 1e-9


def differences(cpp, ref, path="$"):
    """Where two parsed JSON values differ (the first difference of each list)."""
    if isinstance(cpp, dict) and isinstance(ref, dict):
        for k in sorted(set(cpp) | set(ref)):
            if k not in cpp or k not in ref:
                yield f"{path}.{k}: only in {'the reference' if k in ref else 'brickprof'}"
            else:
                yield from differences(cpp[k], ref[k], f"{path}.{k}")
    elif isinstance(cpp, list) and isinstance(ref, list):
        if len(cpp) != len(ref):
            yield f"{path}: {len(cpp)} entries, the reference {len(ref)}"
        for i, (a, b) in enumerate(zip(cpp, ref)):
            first = next(differences(a, b, f"{path}[{i}]"), None)
            if first:
                yield first
                return
    elif isinstance(cpp, bool) or isinstance(ref, bool) or not (
        isinstance(cpp, (int, float)) and isinstance(ref, (int, float))
    ):
        if cpp != ref or type(cpp) is not type(ref):
            yield f"{path}: {cpp!r}, the reference {ref!r}"
    elif isinstance(cpp, float) or isinstance(ref, float):
        if abs(cpp - ref) > RELATIVE * max(abs(cpp), abs(ref)):
            yield f"{path}: {cpp!r}, the reference {ref!r}"
    elif cpp != ref:
        yield f"{path}: {cpp!r}, the reference {ref!r}"


def tmp(name):
    return pathlib.Path(TMP.name) / name


def reference_report(trace_path, views_args=(), **limits):
    """make_page.py's data for a trace, from the views brickprof computes for its own page."""
    views = tmp("views.json")
    views.write_text(run([BRICKPROF, "report", trace_path, *pages.VIEWS, *views_args]).stdout)
    data = make_page.make_report(
        str(trace_path),
        str(views),
        limits.get("max_slices", make_page.MAX_SLICES),
        limits.get("max_icicle", make_page.MAX_ICICLE),
        limits.get("max_list", make_page.MAX_LIST),
    )
    return json.loads(json.dumps(data))


class Agree(unittest.TestCase):
    def assert_same(self, cpp, ref, what):
        found = list(differences(cpp, ref))
        self.assertEqual(found, [], f"{what}: {len(found)} differences, first: {found[:10]}")

    def test_fixtures(self):
        traces = [
            DATA / "gpu/bricklayer-graph.json",
            DATA / "cpu/bricklayer-avx2.json",
            DATA / "cpu/bricklayer-scalar.json",
            DATA / "tree_small.json",
        ] + sorted((DATA / "analyses").glob("*.json"))
        for trace in traces:
            if trace.name == "cycle.json":  # bad input for the graph views
                continue
            with self.subTest(trace=trace.name):
                cpp = pages.report_page(BRICKPROF, trace, tmp("page.html"))
                self.assert_same(cpp, reference_report(trace), trace.name)

    def test_diffs(self):
        for base, new in (
            ("cpu/bricklayer-scalar.json", "cpu/bricklayer-avx2.json"),
            ("analyses/diff_base.json", "analyses/diff_new.json"),
        ):
            with self.subTest(base=base, new=new):
                cpp = pages.diff_page(BRICKPROF, DATA / base, DATA / new, tmp("diff.html"))
                result = tmp("diff.json")
                diff = run([BRICKPROF, "diff", DATA / base, DATA / new, "--json"], ok_codes=(0, 1))
                result.write_text(diff.stdout)
                ref = make_page.make_diff(str(DATA / base), str(DATA / new), str(result))
                self.assert_same(cpp, json.loads(json.dumps(ref)), f"{base} -> {new}")

    def test_node_numbers_are_positions(self):
        # Ids need not be 0, 1, 2, ... in a hand-made trace; the views' JSON numbers a node by its
        # position in `nodes`, and so must the timeline, or a critical-path step would select
        # the wrong slice.
        trace = load_json(DATA / "analyses/seed_streams.json")
        shift = {n["id"]: n["id"] * 3 + 1000 for n in trace["nodes"]}
        for n in trace["nodes"]:
            n["id"] = shift[n["id"]]
            if n.get("parent") is not None:
                n["parent"] = shift[n["parent"]]
        for e in trace.get("edges", []):
            e["src"], e["dst"] = shift[e["src"]], shift[e["dst"]]
        path = tmp("sparse_ids.json")
        path.write_text(json.dumps(trace))
        cpp = pages.report_page(BRICKPROF, path, tmp("sparse.html"))
        dense = pages.report_page(BRICKPROF, DATA / "analyses/seed_streams.json", tmp("dense.html"))
        self.assertEqual(cpp["timeline"], dense["timeline"])
        self.assert_same(cpp, reference_report(path), "seed_streams with ids 1000, 1003, ...")

    def test_reductions(self):
        trace = synthetic_trace(3000)
        for i, n in enumerate(trace["nodes"]):  # distinct paths for the flame graph to cut
            if n["kind"] == "layer":
                n["name"] = f"Layer {i}"
        path = tmp("reduced.json")
        path.write_text(json.dumps(trace))
        limits = {"max_slices": 500, "max_icicle": 300, "max_list": 40}
        cpp = pages.limited_page(PAGE_WITH_LIMITS, path, tmp("reduced.html"), *limits.values())
        self.assertIsNotNone(cpp["timeline"]["sampled"])
        self.assertIsNotNone(cpp["icicle"]["sampled"])
        self.assertIn("critical_path", cpp)
        self.assertTrue(any(c["view"] == "critical-path" and c["key"] == "steps" for c in cpp["cuts"]))
        self.assert_same(cpp, reference_report(path, **limits), "reduced synthetic trace")

    def test_cut_lists_of_a_fixture(self):
        trace = DATA / "gpu/bricklayer-graph.json"
        cpp = pages.limited_page(PAGE_WITH_LIMITS, trace, tmp("cut.html"), 10**6, 10**6, 3)
        self.assertGreater(len(cpp["cuts"]), 3)
        self.assert_same(cpp, reference_report(trace, max_list=3), "gpu fixture, lists of 3")


def compare_one(trace, brickprof):
    global BRICKPROF
    BRICKPROF = brickprof
    cpp = pages.report_page(brickprof, trace, tmp("page.html"))
    found = list(differences(cpp, reference_report(trace)))
    print(f"{trace}: {len(found)} differences {found[:10]}; timeline reduced: {cpp['timeline']['sampled']}")
    return 1 if found else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--trace":
        sys.exit(compare_one(sys.argv[2], sys.argv[3]))
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    DATA = pathlib.Path(sys.argv.pop(1))
    BRICKPROF, PAGE_WITH_LIMITS = sys.argv.pop(1), sys.argv.pop(1)
    unittest.main()
