#!/usr/bin/env python3
"""Every command reads .json.gz as it reads .json, and the agent writes it.

- report (every view, text and --json), diff, merge and ptx on gzip copies
  of the fixtures print exactly what they print for the plain files; merge
  -o OUT.json.gz writes a gzip file that reads back the same;
- a gzip file named .json is still read (magic bytes, not the name);
- a truncated .gz is exit 2 with one line naming the file;
- the agent writes json.gz (BRICKPROF_FORMATS=json.gz) and, when libz.so.1
  cannot give it deflate (a stand-in libz.so.1 first on the library path),
  writes the plain json instead with a warning in diagnostics.warnings.

usage: gzip_cli.py BRICKPROF DATA_DIR APP ZLIB_STUB_DIR
"""
import gzip
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from checks import check, load_json, run, summary  # noqa: E402
from report_views import report_views  # noqa: E402


def main():
    brickprof, data, app, stub_dir = sys.argv[1:5]
    tmp = tempfile.mkdtemp(prefix="brickprof-gzip-cli-")
    try:
        fixtures = ["tree_small.json", "ptx_source.json", "gpu/bricklayer-graph.json",
                    "analyses/merged.json", "analyses/diff_base.json", "analyses/diff_new.json"]
        gz = {}
        for f in fixtures:
            path = os.path.join(tmp, f.replace("/", "_") + ".gz")
            with open(os.path.join(data, f), "rb") as src, gzip.open(path, "wb") as dst:
                shutil.copyfileobj(src, dst)
            gz[f] = path

        def same(args_plain, args_gz, what):
            # Compared as bytes: --perfetto writes binary.
            a, b = (subprocess.run([brickprof] + args, capture_output=True, timeout=300)
                    for args in (args_plain, args_gz))
            check(a.returncode == b.returncode and a.stdout == b.stdout,
                  "%s: .json.gz differs from .json (exit %d vs %d)"
                  % (what, a.returncode, b.returncode))

        switches, _, no_json = report_views(brickprof)
        for f in fixtures:
            plain = os.path.join(data, f)
            for view in switches:
                same(["report", plain, "--" + view], ["report", gz[f], "--" + view],
                     "report --%s %s" % (view, f))
            every = ["--" + v for v in switches if v not in no_json]
            same(["report", "--json", plain] + every, ["report", "--json", gz[f]] + every,
                 "report --json (every view) " + f)
        base, new = "analyses/diff_base.json", "analyses/diff_new.json"
        same(["diff", os.path.join(data, base), os.path.join(data, new), "--json"],
             ["diff", gz[base], gz[new], "--json"], "diff")
        same(["ptx", os.path.join(data, "ptx_source.json"), "0x00000000000000a1"],
             ["ptx", gz["ptx_source.json"], "0x00000000000000a1"], "ptx")
        same(["ptx", os.path.join(data, "ptx_source.json"), "0x00000000000000a1", "--info"],
             ["ptx", gz["ptx_source.json"], "0x00000000000000a1", "--info"], "ptx --info")

        # merge: gzip inputs, and a gzip output that reads back the same.
        a, b, c = (os.path.join(tmp, n) for n in ("a.json", "b.json", "c.json.gz"))
        inputs = ["tree_small.json", "gpu/bricklayer-graph.json"]
        run([brickprof, "merge"] + [os.path.join(data, f) for f in inputs] + ["-o", a])
        run([brickprof, "merge"] + [gz[f] for f in inputs] + ["-o", b])
        ja, jb = load_json(a), load_json(b)
        # The merged sources[] name the input files, which differ.
        for j in (ja, jb):
            for s in j.get("sources", []):
                s.pop("file", None)
        check(ja == jb, "merge of .json.gz inputs differs from .json inputs")
        run([brickprof, "merge"] + [os.path.join(data, f) for f in inputs] + ["-o", c])
        with open(c, "rb") as f:
            check(f.read(2) == b"\x1f\x8b", "merge -o OUT.json.gz did not write gzip")
        same(["report", a, "--summary"], ["report", c, "--summary"], "report of merge -o .json.gz")

        # Magic bytes, not the name.
        disguised = os.path.join(tmp, "disguised.json")
        shutil.copy(gz["tree_small.json"], disguised)
        same(["report", os.path.join(data, "tree_small.json")], ["report", disguised],
             "gzip named .json")

        # Truncated: exit 2, one line naming the file.
        cut = os.path.join(tmp, "cut.json.gz")
        with open(gz["gpu/bricklayer-graph.json"], "rb") as f:
            whole = f.read()
        with open(cut, "wb") as f:
            f.write(whole[:len(whole) // 2])
        for args in (["report", cut], ["diff", cut, cut], ["merge", cut, "-o",
                     os.path.join(tmp, "m.json")], ["ptx", cut, "0x1"]):
            r = run([brickprof] + args, ok_codes=None)
            err = r.stderr
            check(r.returncode == 2 and err.count("\n") == 1 and cut in err and "truncated" in err,
                  "%s on a truncated .gz: exit %d, stderr %r" % (args[0], r.returncode, err))

        # The agent writes json.gz; without deflate in libz.so.1, plain json.
        out = os.path.join(tmp, "run")
        r = run([brickprof, "run", "--formats", "json.gz", "--output", out, "--", app],
                ok_codes=None)
        check(r.returncode == 0, "brickprof run --formats json.gz: exit %d" % r.returncode)
        check(os.path.exists(out + ".json.gz") and not os.path.exists(out + ".json"),
              "the agent did not write %s.json.gz (alone)" % out)
        if os.path.exists(out + ".json.gz"):
            trace = load_json(out + ".json.gz")
            check(trace["schema"] == "brickprof/1" and trace["nodes"],
                  "the agent's json.gz is not a trace with nodes")
            check(("wrote " + out + ".json.gz") in r.stderr,
                  "brickprof run did not list the .json.gz")
            r = run([brickprof, "report", out + ".json.gz", "--summary"], ok_codes=None)
            check(r.returncode == 0, "report of the agent's json.gz: exit %d" % r.returncode)
        env = dict(os.environ, LD_LIBRARY_PATH=stub_dir)
        out2 = os.path.join(tmp, "nozlib")
        r = run([brickprof, "run", "--formats", "json.gz,tree", "--output", out2, "--", app],
                env=env, ok_codes=None)
        check(r.returncode == 0, "run without zlib: exit %d" % r.returncode)
        check(os.path.exists(out2 + ".json") and not os.path.exists(out2 + ".json.gz"),
              "without zlib the agent did not fall back to %s.json" % out2)
        if os.path.exists(out2 + ".json"):
            warnings = load_json(out2 + ".json")["diagnostics"]["warnings"]
            check(any("json.gz needs zlib" in w for w in warnings),
                  "no warning about the missing zlib in diagnostics.warnings: %r" % warnings)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
