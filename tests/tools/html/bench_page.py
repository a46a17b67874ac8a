#!/usr/bin/env python3
"""Benchmark of the HTML report at scale: a generated trace of N events (bench_analysis), the
page `brickprof report --html` writes of it, timed against `brickprof report --summary` on the
same file, and headless Chromium opening the page from a file:// URL with the network cut off.
Prints the seconds to write the page and its ratio to the summary's (and, to tell the page's own
cost from the views', the seconds of `report --json` with the views the page shows), the page's
size (and what takes it), and the seconds until Chromium has drawn it: from navigation to the page's ready flag,
and to the first frames painted after it. A benchmark, not a test: nothing is asserted.

  bench_page.py BUILD_DIR EVENTS... [--runs K] [--dir D]
"""

import argparse
import json
import pathlib
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import chromium  # noqa: E402
import pages  # noqa: E402
from check_page import READY  # noqa: E402

# The views the page shows (every one with a JSON form but the tree).
PAGE_VIEWS = [v for v in pages.VIEWS if v != "--tree"]
PAINTED = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(performance.now()))))"


def best_seconds(args, runs):
    """The fastest of `runs` runs of a command, and all of them."""
    times = []
    for _ in range(runs):
        start = time.monotonic()
        subprocess.run([str(a) for a in args], check=True, stdout=subprocess.DEVNULL)
        times.append(time.monotonic() - start)
    return min(times), times


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("events", nargs="+", type=float)
    ap.add_argument("--runs", type=int, default=3, help="runs per size and command, and page loads")
    ap.add_argument("--dir", help="where the generated files go (default: a temporary directory)")
    args = ap.parse_args(argv[1:])
    build = pathlib.Path(args.build)
    brickprof = build / "tools/brickprof"
    binary = chromium.find_chromium()
    if not binary:
        print("bench_page: no Chromium found", file=sys.stderr)
        return 2
    tmp = tempfile.TemporaryDirectory() if not args.dir else None
    out = pathlib.Path(args.dir or tmp.name)
    out.mkdir(parents=True, exist_ok=True)
    print(
        f"{'events':>10} {'trace MB':>9} {'summary s':>9} {'views s':>7} {'html s':>7} {'ratio':>6} "
        f"{'page MB':>8} "
        f"{'timeline':>9} {'views':>6} {'icicle':>7} {'critical':>8} {'slices':>8} {'ready s':>8} "
        f"{'painted s':>9}  (runs: summary s; html s; ready s)"
    )
    for n in args.events:
        n = int(n)
        subprocess.run(
            [str(build / "bench/analysis/bench_analysis"), "--dir", str(out), "--keep", str(n)],
            check=True,
            capture_output=True,
        )
        trace = out / f"brickprof-bench-{n}.json"
        page_path = out / f"page-{n}.html"
        summary, summaries = best_seconds([brickprof, "report", trace, "--summary"], args.runs)
        views, _ = best_seconds([brickprof, "report", trace] + PAGE_VIEWS, args.runs)
        html, htmls = best_seconds([brickprof, "report", trace, "--html", page_path], args.runs)
        data = pages.page_data(page_path)
        part = {
            k: len(json.dumps(data[k], ensure_ascii=False, separators=(",", ":"))) / 1e6 if k in data else 0
            for k in ("timeline", "views", "icicle", "critical_path")
        }
        url = page_path.resolve().as_uri()
        readies, painted = [], []
        for _ in range(args.runs):
            browser = chromium.Browser(binary)
            try:
                page = chromium.Page(browser)
                readies.append(page.open(url, READY, timeout=120))
                painted.append(page.eval(PAINTED) / 1e3)
                problems = page.problems(url)
                if problems:
                    print(f"bench_page: {n}: {problems[:3]}", file=sys.stderr)
            finally:
                browser.close()
        runs = "; ".join(", ".join(f"{t:.2f}" for t in ts) for ts in (summaries, htmls, readies))
        print(
            f"{n:>10} {trace.stat().st_size / 1e6:>9.1f} {summary:>9.2f} {views:>7.2f} {html:>7.2f} "
            f"{html / summary:>6.1f} {page_path.stat().st_size / 1e6:>8.1f} {part['timeline']:>9.1f} "
            f"{part['views']:>6.1f} {part['icicle']:>7.1f} {part['critical_path']:>8.1f} "
            f"{len(data['timeline']['slices']['dur']):>8} {min(readies):>8.2f} {min(painted):>9.2f}"
            f"  ({runs})",
            flush=True,
        )
        if not args.dir:
            trace.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
