#!/usr/bin/env python3
"""Benchmark of the HTML report at scale: a generated trace of N events (bench_analysis), its
`brickprof report --json`, the page make_page.py builds from them, and headless Chromium opening
it from a file:// URL with the network cut off. Prints the page's size (and what takes it) and
the seconds until the page is drawn: from navigation to the page's ready flag, and to the first
frames painted after it. A benchmark, not a test: nothing is asserted.

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
import make_page  # noqa: E402
from check_page import READY, VIEWS  # noqa: E402

PAINTED = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(performance.now()))))"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("events", nargs="+", type=float)
    ap.add_argument("--runs", type=int, default=3, help="page loads per size (best and all are printed)")
    ap.add_argument("--dir", help="where the generated files go (default: a temporary directory)")
    args = ap.parse_args(argv[1:])
    build = pathlib.Path(args.build)
    binary = chromium.find_chromium()
    if not binary:
        print("bench_page: no Chromium found", file=sys.stderr)
        return 2
    tmp = tempfile.TemporaryDirectory() if not args.dir else None
    out = pathlib.Path(args.dir or tmp.name)
    out.mkdir(parents=True, exist_ok=True)
    print(
        f"{'events':>10} {'trace MB':>9} {'page MB':>8} {'timeline':>9} {'views':>7} {'icicle':>7} "
        f"{'critical':>8} {'slices':>8} {'build s':>8} {'ready s':>8} {'painted s':>10}  (page loads: ready s)"
    )
    for n in args.events:
        n = int(n)
        subprocess.run(
            [str(build / "bench/analysis/bench_analysis"), "--dir", str(out), "--keep", str(n)],
            check=True,
            capture_output=True,
        )
        trace = out / f"brickprof-bench-{n}.json"
        views = out / f"views-{n}.json"
        with open(views, "w") as f:
            subprocess.run(
                [str(build / "tools/brickprof"), "report", str(trace)] + VIEWS, check=True, stdout=f
            )
        start = time.monotonic()
        data = make_page.make_report(str(trace), str(views))
        page_path = out / f"page-{n}.html"
        page_path.write_text(make_page.assemble.fill(make_page.assemble.shell(), data), encoding="utf-8")
        built = time.monotonic() - start
        parts = ("timeline", "views", "icicle", "critical_path")
        part = {k: len(make_page.assemble.script_json(data[k])) / 1e6 if k in data else 0 for k in parts}
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
        trace_mb = trace.stat().st_size / 1e6
        print(
            f"{n:>10} {trace_mb:>9.1f} {page_path.stat().st_size / 1e6:>8.1f} {part['timeline']:>9.1f} "
            f"{part['views']:>7.1f} {part['icicle']:>7.1f} {part['critical_path']:>8.1f} "
            f"{len(data['timeline']['slices']['dur']):>8} "
            f"{built:>8.1f} {min(readies):>8.2f} {min(painted):>10.2f}  ({', '.join(f'{r:.2f}' for r in readies)})",
            flush=True,
        )
        if not args.dir:
            trace.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
