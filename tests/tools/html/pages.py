"""brickprof's HTML pages in the tests: written by the C++ writer (`brickprof report --html`,
`brickprof diff --html`, and page_with_limits for other limits), and the data read back out of
them."""

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "support"))
from checks import run  # noqa: E402

DATA_ELEMENT = 'id="brickprof-data">'
# The views make_page.py is given, as the C++ writer computes them for its page:
# both with GPU work left where it was recorded (not grouped by Python frames,
# which the reference writer does not do; the page groups it by default).
VIEWS = [
    "--json",
    "--python-frames",
    "0",
    "--summary",
    "--tree",
    "--critical-path",
    "--roofline",
    "--transfers",
    "--gpu-idle",
    "--launches",
    "--analyze",
    "--memory",
    "--ranks",
    "--collectives",
    "--imbalance",
    "--rank-path",
    "--numerics",
    "--tokens",
    "--tiles",
    "--cpu-counters",
    "--gpu-metrics",
]


def page_data(path):
    """The JSON a page embeds in its data element."""
    text = pathlib.Path(path).read_text(encoding="utf-8")
    start = text.index(DATA_ELEMENT) + len(DATA_ELEMENT)
    return json.loads(text[start : text.index("</script>", start)])


def report_page(brickprof, trace, out, *options):
    """Writes the report page of `trace` to `out` with brickprof, its GPU work not
    grouped by Python frames (as make_page.py writes it); returns its data."""
    run([brickprof, "report", trace, "--html", out, "--python-frames", "0", *options])
    return page_data(out)


def limited_page(page_with_limits, trace, out, max_slices, max_icicle, max_list):
    run([page_with_limits, trace, out, max_slices, max_icicle, max_list])
    return page_data(out)


def diff_page(brickprof, base, new, out):
    """Writes the diff page (a regression, exit 1, is fine); returns its data."""
    run([brickprof, "diff", base, new, "--html", out], ok_codes=(0, 1))
    return page_data(out)
