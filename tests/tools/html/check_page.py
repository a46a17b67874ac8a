#!/usr/bin/env python3
"""The HTML report in headless Chromium with the network cut off: pages brickprof writes
(`report --html`, `diff --html`) of the GPU, CPU and two-rank MPI fixtures, the analyses' hand-made traces,
diffs that pass and fail for each reason (the page must say what `brickprof diff` says), and a trace
reduced to fit, checked against the traces themselves: no console error or
request, one roofline point per kernel and brick, every node on the timeline, launch arrows,
tooltips, zoom, pan, keys, the flame graph, and screenshots that are not blank (decoded here).
Exit 77 when no Chromium is installed.

  check_page.py BRICKPROF DATA_DIR OUT_DIR
"""

import json
import os
import pathlib
import random
import re
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "support"))
import chromium  # noqa: E402
import make_page  # noqa: E402
import pages  # noqa: E402
from checks import load_json, run, skip  # noqa: E402

READY = 'document.documentElement.dataset.ready === "true"'
HOST_KINDS = ("layer", "brick", "scope", "sync")


class Checks:
    def __init__(self):
        self.failures = []
        self.count = 0

    def __call__(self, ok, what):
        self.count += 1
        if not ok:
            self.failures.append(what)
            print(f"FAIL {what}", flush=True)
        return ok


check = Checks()


def guard(name, checks, *args):
    """Runs one page's checks; an error the page caused (a bad coordinate, a missing element, a
    script exception) fails them with its message instead of ending the run."""
    try:
        return checks(*args)
    except (chromium.CdpError, KeyError, TypeError, ValueError, IndexError) as e:
        check(False, f"{name}: {type(e).__name__}: {e}")
        return None


# ---- expectations computed from the trace alone ----


def has_work(n):
    return n.get("flops", 0) > 0 or n.get("bytes_moved", 0) > 0


def expected_roofline(trace):
    """(kind, name) of each brick with FLOPs or bytes, and each kernel with its own or its brick's."""
    by_id = {n["id"]: n for n in trace["nodes"]}
    out = {("brick", n["name"]) for n in trace["nodes"] if n["kind"] == "brick" and has_work(n)}
    for n in trace["nodes"]:
        if n["kind"] != "kernel":
            continue
        p = by_id.get(n.get("parent"))
        while p is not None and p["kind"] != "brick":
            p = by_id.get(p.get("parent"))
        if has_work(n) or (p is not None and has_work(p)):
            out.add(("kernel", n["name"]))
    return out


def expected_flows(trace):
    """(host node, GPU node) per operation: the innermost host node on the launching thread open
    at the launch call (or, without one, at the start of the operation's parent)."""
    by_id = {n["id"]: n for n in trace["nodes"]}
    host = [n for n in trace["nodes"] if n["kind"] in HOST_KINDS]
    out = set()
    for n in trace["nodes"]:
        if n["kind"] not in make_page.GPU_KINDS:
            continue
        parent = by_id.get(n.get("parent"))
        when = n.get("api_start_ns") or (parent["start_ns"] if parent else None)
        if when is None:
            continue
        inside = [h for h in host if h["thread"] == n["thread"] and h["start_ns"] <= when <= h["end_ns"]]
        if inside:
            innermost = min(inside, key=lambda h: (h["end_ns"] - h["start_ns"], -h["start_ns"]))
            out.add((innermost["id"], n["id"]))
    return out


# ---- the report page ----

PROBE = (HERE / "probe.js").read_text()


def open_page(page, url):
    seconds = page.open(url, READY)
    page.eval(PROBE)
    time.sleep(0.3)  # let the first frames paint
    return seconds


def check_report(page, name, trace, views, url, out):
    load_s = open_page(page, url)
    problems = page.problems(url)
    check(problems == [], f"{name}: no console error, exception or request: {problems}")
    sections = page.eval("probe.sections()")
    for sid in (
        "overview",
        "timeline",
        "flame",
        "roofline",
        "critical-path",
        "gpu-idle",
        "launches",
        "transfers",
        "analyze",
    ):
        check(sid in sections, f"{name}: section {sid} is on the page")
    several_ranks = len(views["ranks"]["ranks"]) > 1
    check(("ranks" in sections) == several_ranks,
          f"{name}: a Ranks section exactly when the trace has several ranks")
    if several_ranks:
        ranks_text = page.eval("document.getElementById('ranks').innerText")
        for r in views["ranks"]["ranks"]:
            check(r["label"] in ranks_text, f"{name}: the Ranks section names {r['label']}")
        for op in views["collectives"]["ops"]:
            check(op["op"] in ranks_text, f"{name}: the Ranks section lists {op['op']}")
    check(page.eval("probe.failedViews()") == 0, f"{name}: no view failed to draw")

    # Roofline: one point per kernel and per brick.
    got = [tuple(p) for p in page.eval("probe.rooflinePoints()")]
    want = expected_roofline(trace)
    check(
        len(got) == len(set(got)) and set(got) == want,
        f"{name}: roofline points {sorted(set(got) ^ want)} differ from the trace's kernels and "
        f"bricks with work ({len(got)} points, {len(want)} expected)",
    )
    check(len(got) == len(views["roofline"]["entries"]), f"{name}: one point per roofline entry")

    # Timeline: every node once on its thread or stream, launch arrows, GPU range lanes.
    lanes = page.eval("probe.lanes()")
    placed = [n for lane in lanes if lane["kind"] != "range" for n in lane["nodes"]]
    ids = [n["id"] for n in trace["nodes"]]
    check(
        sorted(placed) == sorted(ids),
        f"{name}: the timeline holds each of the {len(ids)} nodes once ({len(placed)} placed)",
    )
    for lane in lanes:
        if lane["kind"] == "stream":
            want_n = sum(
                1
                for n in trace["nodes"]
                if n["kind"] in make_page.GPU_KINDS
                and (n.get("device", 0), n.get("stream", 0)) == (lane["device"], lane["stream"])
            )
        elif lane["kind"] == "thread":
            want_n = sum(1 for n in trace["nodes"] if n["kind"] in HOST_KINDS and n["thread"] == lane["tid"])
        else:
            continue
        check(len(lane["nodes"]) == want_n, f"{name}: {lane['kind']} lane {lane} holds {want_n} slices")
    flows = page.eval("probe.flows()")
    want_flows = expected_flows(trace)
    check(
        {tuple(f) for f in flows} == want_flows and len(flows) == len(want_flows),
        f"{name}: launch arrows ({len(flows)}) are the trace's launches ({len(want_flows)})",
    )
    launched = {
        n["parent"]
        for n in trace["nodes"]
        if n["kind"] in make_page.GPU_KINDS and n.get("parent") is not None
    }
    ranged = {n for lane in lanes if lane["kind"] == "range" for n in lane["nodes"]}
    check(launched <= ranged, f"{name}: each scope that launched GPU work has a GPU range slice")

    check_timeline_input(page, name)
    check_icicle(page, name, trace)

    critical = page.eval("probe.critical()")
    steps = {s["node"] for s in views["critical-path"]["steps"] if s["node"] is not None}
    check(
        critical["on"] and critical["marked"] >= len(steps),
        f"{name}: the critical path toggle marks its {len(steps)} nodes ({critical})",
    )

    screenshots(page, name, out)
    return load_s


def check_timeline_input(page, name):
    first = page.eval("probe.state()")
    # The longest GPU operation (else host slice): zoomed to, hovered, clicked.
    target = page.eval("probe.longestSlice()")
    info = page.eval(f"probe.slice({target})")
    x, y = page.eval(f"probe.aim({target}, 2)")
    page.mouse("mouseMoved", x, y)
    time.sleep(0.1)
    tip = page.eval("probe.tooltip()")
    check(
        not tip["hidden"] and tip["title"] == info["name"],
        f"{name}: hovering {info['name']} shows its tooltip (got {tip})",
    )
    page.click(x, y)
    time.sleep(0.1)
    state = page.eval("probe.state()")
    check(
        state["selected"] == target,
        f"{name}: a click selects the slice under the pointer ({state['selected']} != {target})",
    )
    details = page.eval("probe.details()")
    check(info["name"] in details, f"{name}: the details name the selection")
    if info["gpu"] and info["launched"]:
        check("launched from" in details, f"{name}: a GPU operation's details say where it was launched")

    # Wheel zooms in at the pointer; drag pans; keys zoom, reset, clear and step.
    page.wheel(x, y, -400)
    time.sleep(0.1)
    zoomed = page.eval("probe.state()")
    check(
        zoomed["v1"] - zoomed["v0"] < (state["v1"] - state["v0"]) * 0.9,
        f"{name}: the wheel zooms in ({state} -> {zoomed})",
    )
    scale = page.eval("probe.scale()")
    page.drag(x, y + 30, x + 150, y + 30)
    time.sleep(0.1)
    panned = page.eval("probe.state()")
    moved = (zoomed["v0"] - panned["v0"]) * scale
    check(abs(moved - 150) < 15, f"{name}: dragging 150px pans the view by 150px ({moved:.1f})")
    check(panned["selected"] == target, f"{name}: a drag does not change the selection")
    page.eval("probe.focusTimeline()")
    page.key("s")
    time.sleep(0.05)
    out = page.eval("probe.state()")
    check(out["v1"] - out["v0"] > (panned["v1"] - panned["v0"]) * 1.2, f"{name}: S zooms out")
    page.key("0")
    page.key("Escape")
    time.sleep(0.05)
    reset = page.eval("probe.state()")
    check(
        abs(reset["v0"] - first["v0"]) < 1 and abs(reset["v1"] - first["v1"]) < 1,
        f"{name}: 0 resets the zoom",
    )
    check(reset["selected"] == -1, f"{name}: Escape clears the selection")
    page.key("]")
    time.sleep(0.05)
    check(page.eval("probe.state()")["selected"] >= 0, f"{name}: ] selects a slice from the keyboard")


def check_icicle(page, name, trace):
    gpu_total = sum(n["end_ns"] - n["start_ns"] for n in trace["nodes"] if n["kind"] in make_page.GPU_KINDS)
    roots_total = sum(
        n["end_ns"] - n["start_ns"]
        for n in trace["nodes"]
        if n["kind"] in HOST_KINDS and n.get("parent") is None
    )
    totals = page.eval("probe.icicleTotals()")
    check(
        totals["gpu"] == gpu_total,
        f"{name}: the flame graph's GPU time is the trace's ({totals['gpu']} != {gpu_total})",
    )
    check(
        totals["cpu"] == roots_total,
        f"{name}: the flame graph's CPU time is the top-level host nodes' ({totals['cpu']} != {roots_total})",
    )
    child, x, y = page.eval("probe.icicleChild()")
    time.sleep(0.1)
    page.click(x, y)
    time.sleep(0.1)
    check(page.eval("probe.icicleZoom()") == child, f"{name}: a click zooms the flame graph into a frame")
    crumbs = page.eval("probe.crumbs()")
    check(crumbs == 2, f"{name}: the zoomed frame's path is shown ({crumbs} crumbs)")
    page.eval("probe.focusIcicle()")
    page.key("Escape")
    time.sleep(0.05)
    check(page.eval("probe.icicleZoom()") == 0, f"{name}: Escape zooms the flame graph out")
    # Find: the frames of the busiest kernel (else brick) add up to its time in the trace.
    kind = "kernel" if any(n["kind"] == "kernel" for n in trace["nodes"]) else "brick"
    per_name = {}
    for n in trace["nodes"]:
        if n["kind"] == kind:
            per_name[n["name"]] = per_name.get(n["name"], 0) + n["end_ns"] - n["start_ns"]
    busiest = max(per_name, key=per_name.get)
    others = [x for x in per_name if busiest in x and x != busiest]
    status = page.eval(f"probe.icicleFind({json.dumps(busiest)})")
    want = make_page.format_ns(per_name[busiest])
    check(
        others or f": {want}," in status,
        f"{name}: finding {busiest} in the flame graph sums {want} ({status!r})",
    )
    page.eval("probe.icicleFind('')")


def screenshots(page, name, out):
    """Light and dark full pages for people; the timeline decoded and its colours counted."""
    page.eval("probe.plainTimeline()")
    page.eval("window.scrollTo(0, 0)")
    for scheme in ("light", "dark"):
        page.scheme(scheme)
        time.sleep(0.3)
        page.screenshot(str(out / f"{name}-{scheme}.png"))
        x, y, w, h = page.eval('probe.rect(".timeline")')
        png = page.screenshot(
            str(out / f"{name}-timeline-{scheme}.png"), {"x": x, "y": y, "width": w, "height": h}
        )
        # Slices only: the plot without lane names, ruler or tool bar, whose text alone has colours.
        x, y, w, h = page.eval("probe.plotRect()")
        plot = page.screenshot(
            str(out / f"{name}-plot-{scheme}.png"), {"x": x, "y": y, "width": w, "height": h}
        )
        colors = chromium.distinct_colors(plot)
        check(colors >= 40, f"{name}: the {scheme} timeline's slices are drawn ({colors} distinct colours)")
        bg = chromium.png_pixels(png)[3][4][12:15]  # a pixel of the tool bar's background
        luma = sum(bg) / 3
        check(
            luma < 90 if scheme == "dark" else luma > 200,
            f"{name}: the {scheme} scheme's background ({tuple(bg)})",
        )
    page.scheme("light")


def check_smoke(page, name, trace, url):
    """A hand-made trace (odd names, no API times, several streams or threads): the page draws
    without an error and places every node once."""
    open_page(page, url)
    problems = page.problems(url)
    check(problems == [], f"{name}: no console error, exception or request: {problems}")
    check(page.eval("probe.failedViews()") == 0, f"{name}: no view failed to draw")
    placed = sorted(
        n for lane in page.eval("probe.lanes()") if lane["kind"] != "range" for n in lane["nodes"]
    )
    check(placed == sorted(n["id"] for n in trace["nodes"]), f"{name}: every node on the timeline once")


def check_memory(page, brickprof, data_dir, out):
    """A trace with memory events: the Memory section draws one step line per account through
    every point of report --memory's timeline, a card per account with its peak, and the
    out-of-memory failure with the live set it met."""
    trace_path = data_dir / "analyses" / "memory_steps.json"
    data = pages.report_page(brickprof, trace_path, out / "memory.html")
    url = (out / "memory.html").resolve().as_uri()
    open_page(page, url)
    check(page.problems(url) == [], f"memory: no console error, exception or request")
    check("memory" in page.eval("probe.sections()"), "memory: a Memory section")
    accounts = data["views"]["memory"]["accounts"]
    lines = page.eval("[...document.querySelectorAll('#memory .memory-chart path')]"
                      ".map((p) => (p.getAttribute('d').match(/V/g) || []).length)")
    check(lines == [len(a["timeline"]) for a in accounts],
          f"memory: one line per account with a step per timeline point ({lines})")
    text = page.eval("document.getElementById('memory').innerText")
    for a in accounts:
        check(a["label"] in text, f"memory: the section names {a['label']}")
    for words in ("492.0MiB", "532.0MiB headroom", "decode / step / leak", "asked 1.0TiB"):
        check(words in text, f"memory: the section says {words!r}")
    page.eval("probe.show('memory')")
    page.screenshot(str(out / "memory.png"))
    # A merged job: each rank's peak and headroom in the Ranks section.
    data = pages.report_page(brickprof, data_dir / "analyses" / "memory_ranks.json",
                             out / "memory-ranks.html")
    url = (out / "memory-ranks.html").resolve().as_uri()
    open_page(page, url)
    check(page.problems(url) == [], "memory ranks: no console error, exception or request")
    text = page.eval("document.getElementById('ranks').innerText")
    for m in data["views"]["ranks"]["memory"]:
        check(m["label"] in text, f"memory ranks: the Ranks section lists {m['label']}")
    check("532.0MiB of 1.0GiB" in text, "memory ranks: a rank's headroom on the page")


def check_gpu_metrics(page, brickprof, data_dir, out):
    """A trace with GPU metrics: the GPU metrics section has a row per brick and kernel of
    report --gpu-metrics, with its L2 hit rate and DRAM bytes as the text report prints them."""
    data = pages.report_page(brickprof, data_dir / "analyses" / "gpu_metrics.json",
                             out / "gpu_metrics.html")
    url = (out / "gpu_metrics.html").resolve().as_uri()
    open_page(page, url)
    check(page.problems(url) == [], "gpu metrics: no console error, exception or request")
    check("gpu-metrics" in page.eval("probe.sections()"), "gpu metrics: a GPU metrics section")
    text = page.eval("document.getElementById('gpu-metrics').innerText")
    for r in data["views"]["gpu-metrics"]["rows"]:
        check(r["name"] in text, f"gpu metrics: the section names {r['name']}")
    for words in ("L2 hit", "DRAM read", "50.2%", "476.8MiB", "1 in 2 occurrences"):
        check(words in text, f"gpu metrics: the section says {words!r}: {text[:400]!r}")
    page.eval("probe.show('gpu-metrics')")
    page.screenshot(str(out / "gpu_metrics.png"))


def check_tiles(page, brickprof, data_dir, out):
    """A trace with tiles: the Tiles section has a row per brick and level of report --tiles,
    a card per cache bandwidth, and each level's share of its cache."""
    data = pages.report_page(brickprof, data_dir / "analyses" / "tiles.json", out / "tiles.html")
    url = (out / "tiles.html").resolve().as_uri()
    open_page(page, url)
    check(page.problems(url) == [], "tiles: no console error, exception or request")
    check("tiles" in page.eval("probe.sections()"), "tiles: a Tiles section")
    rows = data["views"]["tiles"]["bricks"]
    text = page.eval("document.getElementById('tiles').innerText")
    for r in rows:
        check(r["name"] in text, f"tiles: the section names {r['name']}")
    shares = [r for r in rows if "of_cache" in r]
    check(shares, "tiles: the fixture's levels have cache shares")
    for r in shares:
        words = "%.1f%% of %s" % (100 * r["of_cache"], r["cache"])
        check(words in text, f"tiles: the section says {words!r}")
    check("l1 read" in text.lower() and "100.00GB/s" in text,
          f"tiles: the L1 card with its bandwidth: {text[:300]!r}")
    page.eval("probe.show('tiles')")
    page.screenshot(str(out / "tiles.png"))


def check_cpu_counters(page, brickprof, data_dir, out):
    """A trace with CPU counters: the CPU counters section has a row per brick and scope of
    report --cpu-counters, each event's count and the ratios as the report prints them."""
    data = pages.report_page(brickprof, data_dir / "analyses" / "cpu_counters.json",
                             out / "cpu_counters.html")
    url = (out / "cpu_counters.html").resolve().as_uri()
    open_page(page, url)
    check(page.problems(url) == [], "cpu counters: no console error, exception or request")
    check("cpu-counters" in page.eval("probe.sections()"), "cpu counters: a section")
    view = data["views"]["cpu-counters"]
    text = page.eval("document.getElementById('cpu-counters').innerText")
    check(view["status"] in text, "cpu counters: the section says what was counted")
    for e in view["events"]:
        check(e in text, f"cpu counters: a column for {e}")
    for r in view["rows"]:
        check(r["name"] in text, f"cpu counters: the section names {r['name']}")
        check("%.2f" % r["ipc"] in text, f"cpu counters: {r['name']}'s IPC {r['ipc']:.2f}")
        check("%.1f%%" % (100 * r["cache_miss_rate"]) in text,
              f"cpu counters: {r['name']}'s miss rate")
    page.eval("probe.show('cpu-counters')")
    page.screenshot(str(out / "cpu_counters.png"))


def check_memory_without_nodes(page, brickprof, data_dir, out):
    """A program that allocated but opened no scope and launched nothing: every other view says
    nothing was recorded, and the Memory section still shows its memory (the overview's "nothing
    recorded" once hid every section)."""
    trace = load_json(data_dir / "analyses" / "memory_steps.json")
    trace["nodes"], trace["edges"] = [], []
    for e in trace["memory"]:
        e["scope"] = None
    path = out / "memory-no-nodes.json"
    path.write_text(json.dumps(trace))
    pages.report_page(brickprof, path, out / "memory-no-nodes.html")
    url = (out / "memory-no-nodes.html").resolve().as_uri()
    open_page(page, url)
    check(page.problems(url) == [], "memory without nodes: no console error, exception or request")
    check("memory" in page.eval("probe.sections()"), "memory without nodes: a Memory section")
    text = page.eval("(document.getElementById('memory') || {innerText: ''}).innerText")
    check("GPU 0 device memory" in text, f"memory without nodes: the section names its account")


def check_first_screen(page, brickprof, data_dir, out):
    """What a first look at a plain program shows: a trace that recorded nothing says so in one line
    and draws no empty timeline; a CPU-only run has no GPU column and one plain line for the GPU;
    the wall time says how much of it was outside every scope."""
    empty = load_json(data_dir / "tree_small.json")
    empty["nodes"], empty["edges"] = [], []
    empty["diagnostics"]["cupti"] = "unavailable: no libcuda"
    empty_path = out / "empty.json"
    empty_path.write_text(json.dumps(empty))
    pages.report_page(brickprof, empty_path, out / "empty.html")
    url = (out / "empty.html").resolve().as_uri()
    open_page(page, url)
    check(page.problems(url) == [], f"empty: no console error: {page.problems(url)}")
    text = page.eval("document.getElementById('main').innerText")
    check("Nothing recorded: brickprof records scopes" in text,
          f"empty: the page says nothing was recorded and what would record something: {text[:300]}")
    check(page.eval("probe.sections()") == ["overview"],
          f"empty: only the overview, no empty timeline ({page.eval('probe.sections()')})")
    check("shown" not in text, "empty: no timeline ruler ('22ns shown')")
    page.screenshot(str(out / "empty-light.png"))

    cpu_path = data_dir / "cpu/bricklayer-avx2.json"
    views = pages.report_page(brickprof, cpu_path, out / "cpu-first.html")["views"]
    url = (out / "cpu-first.html").resolve().as_uri()
    open_page(page, url)
    overview = page.eval("document.getElementById('overview').innerText")
    heads = page.eval("[...document.querySelectorAll('#overview th')].map((t) => t.innerText.trim())")
    check("Brick" in heads and "GPU" not in heads and "elem/s" in heads,
          f"cpu: the bricks table has no GPU column ({heads})")
    check("no CUDA driver on this machine" in overview and "CUPTI" not in overview,
          f"cpu: one plain line for the GPU, no CUPTI status: {overview[:600]}")
    outside = views["summary"]["outside_scopes_ns"]
    check(outside is not None and outside > 0 and "outside every scope" in overview,
          f"cpu: the wall time says what was outside every scope ({outside})")
    check("A brick is one step of a model layer" in overview and "elem/s is" in overview,
          "cpu: the overview says what a brick and elem/s are")


def check_names_are_markup_free(page, brickprof, data_dir, out):
    """Names are the traced program's data: markup in them stays text on the page (the data
    element is escaped, and every view draws names as text), and nothing they hold runs."""
    evil = '<img src=x onerror="window.__pwned=1"></script><script>window.__pwned=2</script>\x1b[2J'
    trace = load_json(data_dir / "gpu/bricklayer-graph.json")
    trace["process"]["program"] = evil
    for n in trace["nodes"]:
        n["name"] = n["name"] + evil
    for t in trace.get("threads", []):
        t["name"] = (t.get("name") or "") + evil
    path = out / "markup.json"
    path.write_text(json.dumps(trace))
    pages.report_page(brickprof, path, out / "markup.html")
    url = (out / "markup.html").resolve().as_uri()
    open_page(page, url)
    check(page.problems(url) == [], f"markup: no console error, request or exception: {page.problems(url)}")
    check(page.eval("window.__pwned === undefined"), "markup: a name's script ran")
    check(page.eval("document.querySelectorAll('img').length") == 0, "markup: a name became an element")
    check(evil in page.eval("document.getElementById('main').innerText"),
          "markup: the names are shown as text")
    page.screenshot(str(out / "markup-light.png"))


# ---- the diff page ----


def cli_judgement(brickprof, base, new):
    """What `brickprof diff` prints: its verdict line, its other lines, and per brick and kernel it
    lists whether it is a REGRESSION."""
    text = run([brickprof, "diff", base, new, "--quiet"], ok_codes=(0, 1)).stdout
    lines = text.rstrip("\n").split("\n")
    listed = {}
    entry = re.compile(r"^(REGRESSION| {10}) (brick|kernel) +(.+?)(?: \[0x[0-9a-f]+(?: -> 0x[0-9a-f]+)?\])?: ")
    for line in lines:
        m = entry.match(line)
        if m:
            listed[(m.group(2), m.group(3))] = m.group(1) == "REGRESSION"
    return lines[-1], lines, listed


def check_diff(page, url, brickprof, base, new, out, what="diff"):
    """The page says what `brickprof diff` says: its verdict line, each reason the runs as a
    whole fail, the note under the totals, and the same entries listed with the same regressions
    (not a judgement of its own)."""
    open_page(page, url)
    problems = page.problems(url)
    check(problems == [], f"{what}: no console error, exception or request: {problems}")
    verdict, lines, listed = cli_judgement(brickprof, base, new)
    overview = page.eval("document.getElementById('overview').innerText")
    check(verdict in overview, f"{what}: the page shows diff's verdict {verdict!r}")
    failed = verdict.startswith("FAIL")
    cards = page.eval("probe.cards()")
    check(any(c.startswith("Verdict" + ("FAIL" if failed else "PASS")) for c in cards),
          f"{what}: the verdict card says {'FAIL' if failed else 'PASS'} ({cards[:2]})")
    for reason in verdict.split(": ", 1)[1].split("; ") if failed else []:
        if not reason[0].isdigit():  # a problem of the runs, not "N regression(s): ..."
            check(reason in overview, f"{what}: the page says why the runs fail: {reason!r}")
    for line in lines:
        if line.strip().startswith("NOTE:"):
            check(line.strip() in overview, f"{what}: the page gives diff's note {line.strip()!r}")
    for kind in ("brick", "kernel"):
        rows = page.eval(f"probe.diff{kind.capitalize()}s()")
        shown = {r[1]: r[0] == "regression" for r in rows if len(r) > 2}  # not "nothing ..." 
        want = {name: regression for (k, name), regression in listed.items() if k == kind}
        check(shown == want,
              f"{what}: the {kind}s listed and their regressions are diff's "
              f"(page {sorted(shown.items())}, diff {sorted(want.items())})")


def check_diff_drawn(page, out):
    for scheme in ("light", "dark"):
        page.scheme(scheme)
        time.sleep(0.2)
        png = page.screenshot(str(out / f"diff-{scheme}.png"))
        check(chromium.distinct_colors(png) >= 16, f"diff: the {scheme} page is drawn")
    page.scheme("light")


def check_diff_pages(page, brickprof, data_dir, out):
    """Pages of diffs that fail for each reason diff has, and one that passes."""
    other = out / "another-program.json"
    trace = load_json(data_dir / "tree_small.json")
    trace["process"]["program"] = "another"
    other.write_text(json.dumps(trace))
    cases = [
        # A common move of -93% and one brick beyond it.
        ("diff", data_dir / "cpu/bricklayer-scalar.json", data_dir / "cpu/bricklayer-avx2.json"),
        # Every brick slower alike (+1400% per call): the NOTE under the totals.
        ("slower alike", data_dir / "cpu/bricklayer-avx2.json", data_dir / "cpu/bricklayer-scalar.json"),
        # NEW lost most of BASE's bricks.
        ("lost bricks", data_dir / "cpu/bricklayer-avx2.json", data_dir / "tree_small.json"),
        # Another program, nothing slower: fails with no regression.
        ("another program", data_dir / "tree_small.json", other),
        ("same trace", data_dir / "tree_small.json", data_dir / "tree_small.json"),
        # A kernel rebuilt and slower, a brick slower.
        ("kernels", data_dir / "analyses/diff_base.json", data_dir / "analyses/diff_new.json"),
    ]
    for what, base, new in cases:
        html = out / (what.replace(" ", "-") + ".html")
        pages.diff_page(brickprof, base, new, html)
        guard(what, check_diff, page, html.resolve().as_uri(), brickprof, base, new, out, what)
        if what == "diff":
            guard(what, check_diff_drawn, page, out)


def check_kernel_diff(page, brickprof, analyses, out):
    """The hand-made pair whose kernel was rebuilt: the kernel table shows the regression and the
    changed PTX hash."""
    base, new = analyses / "diff_base.json", analyses / "diff_new.json"
    pages.diff_page(brickprof, base, new, out / "diff-kernels.html")
    url = (out / "diff-kernels.html").resolve().as_uri()
    open_page(page, url)
    problems = page.problems(url)
    check(problems == [], f"kernel diff: no console error, exception or request: {problems}")
    rows = {r[1]: r for r in page.eval("probe.diffKernels()")}
    gemv = rows.get("gemv", [])
    check(
        gemv[:1] == ["regression"] and "0x1 → 0x2" in gemv,
        f"kernel diff: gemv regressed with new code ({gemv})",
    )


def check_outputs_diff(page, brickprof, data_dir, out):
    """diff --outputs --html: the page gives diff's verdict and marks the first output beyond
    tolerance as the divergence, each changed output's status as diff --json has it."""
    for name, want_exit in (("changed", 1), ("base", 0)):
        base, new = data_dir / "outputs/base.json", data_dir / f"outputs/{name}.json"
        html = out / f"outputs-{name}.html"
        r = run([brickprof, "diff", "--outputs", base, new, "--html", html], ok_codes=(0, 1))
        check(r.returncode == want_exit, f"outputs {name}: diff exits {r.returncode}")
        want = json.loads(run([brickprof, "diff", "--outputs", base, new, "--json"],
                              ok_codes=(0, 1)).stdout)
        url = html.resolve().as_uri()
        open_page(page, url)
        problems = page.problems(url)
        check(problems == [], f"outputs {name}: no console error, exception or request: {problems}")
        check(want["verdict_text"] in page.eval("probe.outputsText()"),
              f"outputs {name}: the page gives diff's verdict {want['verdict_text']!r}")
        rows = page.eval("probe.diffOutputs()")
        # The outputs that are not bit-identical; every output when all are.
        shown = [c for c in want["compared"] if not c["identical"]] or want["compared"]
        check([r[2] for r in rows] == [c["path"] for c in shown],
              f"outputs {name}: the rows {rows} are diff's {shown}")
        first = next((c["path"] for c in want["compared"] if c["beyond"]), None)
        marked = [r[2] for r in rows if len(r) > 2 and r[1] == "first divergence"]
        check(marked == ([first] if first else []),
              f"outputs {name}: marked {marked} as the first divergence, diff names {first}")


# ---- a trace too large for the page ----


def synthetic_trace(nodes_wanted, seed=3):
    """Layers of bricks on one thread, each brick launching a kernel on one of two streams."""
    rng = random.Random(seed)
    nodes, t, nid = [], 0, 0
    while nid < nodes_wanted:
        layer = {
            "id": nid,
            "kind": "layer",
            "name": f"Layer {nid % 4}",
            "index": nid % 4,
            "parent": None,
            "thread": 1,
            "start_ns": t,
        }
        nodes.append(layer)
        nid += 1
        for b in range(6):
            dur = rng.randint(2_000, 40_000)
            brick = {
                "id": nid,
                "kind": "brick",
                "name": [
                    "RmsNorm",
                    "QkvProjection",
                    "AttentionScore",
                    "GateProjection",
                    "UpProjection",
                    "DownProjection",
                ][b],
                "parent": layer["id"],
                "thread": 1,
                "start_ns": t + 100,
                "end_ns": t + 100 + dur,
            }
            kstart = t + 300 + rng.randint(0, 2000)
            kernel = {
                "id": nid + 1,
                "kind": "kernel",
                "name": f"k{b}",
                "parent": nid,
                "thread": 1,
                "device": 0,
                "stream": 7 + b % 2,
                "start_ns": kstart,
                "end_ns": kstart + rng.randint(500, 30_000),
                "api_start_ns": t + 150,
                "api_end_ns": t + 250,
            }
            nodes += [brick, kernel]
            nid += 2
            t += 100 + dur
        layer["end_ns"] = t + 50
        t += 1000
    return {
        "schema": "brickprof/1",
        "process": {"pid": 1, "program": "synthetic"},
        "devices": [],
        "nodes": nodes,
        "edges": [],
    }


# Nodes of a synthetic trace whose timeline (nodes and the ranges of the bricks and layers that
# launched kernels: about 1.5 slices a node) is over the page's limit.
REDUCED_NODES = 170_000


def check_reduced(page, brickprof, out):
    trace = synthetic_trace(REDUCED_NODES)
    path = out / "reduced.json"
    path.write_text(json.dumps(trace))
    data = pages.report_page(brickprof, path, out / "reduced.html")
    url = (out / "reduced.html").resolve().as_uri()
    open_page(page, url)
    problems = page.problems(url)
    check(problems == [], f"reduced: no console error: {problems}")
    red = data["timeline"]["sampled"]
    state = page.eval("probe.state()")
    check(
        red is not None
        and state["slices"] <= make_page.MAX_SLICES
        and state["slices"] == red["kept"] + red["merged"],
        f"reduced: the timeline holds at most {make_page.MAX_SLICES} slices ({state['slices']})",
    )
    banner = page.eval("probe.reducedBanner()")
    check(
        "merged" in banner and str(red["of"]) in banner, f"reduced: the page says it was reduced ({banner!r})"
    )
    shown = set(page.eval("probe.recordedNodes()"))
    longer = {n["id"] for n in trace["nodes"] if n["end_ns"] - n["start_ns"] >= red["threshold_ns"]}
    check(
        longer <= shown,
        f"reduced: every node of {red['threshold_ns']}ns or longer is shown as recorded "
        f"({len(longer - shown)} missing)",
    )
    merged = page.eval("probe.firstMerged()")
    if check(merged >= 0, "reduced: some slices were merged"):
        x, y = page.eval(f"probe.aim({merged}, 0.5)")
        page.mouse("mouseMoved", x, y)
        time.sleep(0.1)
        tip = page.eval("probe.tooltip()")
        check("merged" in tip["text"], f"reduced: a merged slice's tooltip says it is merged ({tip})")


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    brickprof, data_dir, out = argv[1], pathlib.Path(argv[2]), pathlib.Path(argv[3])
    binary = chromium.find_chromium()
    if not binary:
        skip("no Chromium (install chromium-headless-shell; scripts/setup does)")
    out.mkdir(parents=True, exist_ok=True)
    browser = chromium.Browser(binary, str(out / "chromium.log"))
    try:
        page = chromium.Page(browser)
        for name, rel in (("gpu", "gpu/bricklayer-graph.json"), ("cpu", "cpu/bricklayer-avx2.json"),
                          ("mpi", "mpi/bricklayer-tp2.json")):
            trace_path = data_dir / rel
            data = pages.report_page(brickprof, trace_path, out / f"{name}.html")
            url = (out / f"{name}.html").resolve().as_uri()
            trace = load_json(trace_path)
            seconds = guard(name, check_report, page, name, trace, data["views"], url, out)
            if seconds is not None:
                print(f"{name}: {len(trace['nodes'])} nodes, page ready in {seconds:.2f}s", flush=True)
        # Hand-made traces of the analyses' tests (but the one with a dependency cycle).
        for trace_path in [data_dir / "tree_small.json"] + sorted((data_dir / "analyses").glob("*.json")):
            if trace_path.name == "cycle.json":
                continue
            name = "smoke-" + trace_path.stem
            pages.report_page(brickprof, trace_path, out / f"{name}.html")
            url = (out / f"{name}.html").resolve().as_uri()
            guard(name, check_smoke, page, name, load_json(trace_path), url)
        guard("first screen", check_first_screen, page, brickprof, data_dir, out)
        guard("memory", check_memory, page, brickprof, data_dir, out)
        guard("tiles", check_tiles, page, brickprof, data_dir, out)
        guard("cpu counters", check_cpu_counters, page, brickprof, data_dir, out)
        guard("gpu metrics", check_gpu_metrics, page, brickprof, data_dir, out)
        guard("memory without nodes", check_memory_without_nodes, page, brickprof, data_dir, out)
        guard("markup", check_names_are_markup_free, page, brickprof, data_dir, out)
        check_diff_pages(page, brickprof, data_dir, out)
        guard("reduced", check_reduced, page, brickprof, out)
        guard("kernel diff", check_kernel_diff, page, brickprof, data_dir / "analyses", out)
        guard("outputs diff", check_outputs_diff, page, brickprof, data_dir, out)
    finally:
        browser.close()
    print(f"{check.count - len(check.failures)} of {check.count} checks passed; screenshots in {out}")
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
