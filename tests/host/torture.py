#!/usr/bin/env python3
"""Host-process torture suite: proves the agent never hurts the program it
is loaded into. Each case (cases_*.py) is run plain and with the agent
(LD_PRELOAD, or `brickprof run --`) and the two are compared; see
RELIABILITY.md at the root of the repository.

  tests/host/torture.py --build BUILD [--runs N] [--case REGEX] [--jobs J]
                        [--table] [--baseline plain] [--keep] [--list]

--baseline plain runs every case twice without the agent and compares
those: a case whose plain runs differ would make the suite flaky. The agent
is BUILD/agent/libbrickprof.so, or $BRICKPROF_AGENT.

Exit status 1 when a case failed that KNOWN below does not list; a listed
one that fails is a known failure, one that passes is reported as fixed.
"""
import argparse
import collections
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.dont_write_bytecode = True  # keep the source tree clean
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cases_env  # noqa: E402
import cases_process  # noqa: E402
import cases_python  # noqa: E402
import cases_shapes  # noqa: E402
import cases_signals  # noqa: E402
import case_checks  # noqa: E402
import runner  # noqa: E402
from case import MAXRSS_FILE, Context, expand  # noqa: E402

# Cases that fail because of a known defect of the agent, with the defect's
# short name. They are reported apart and do not fail the suite; remove a
# line once its defect is fixed (the suite then says "fixed — unmark it").
KNOWN: dict[str, str] = {}

GROUPS = (cases_process.CASES + cases_signals.CASES + cases_python.CASES + cases_env.CASES +
          cases_shapes.CASES)


class Suite:
    def __init__(self, args):
        self.build = Path(args.build).resolve()
        self.bin = self.build / "tests" / "host"
        self.launch = str(self.bin / "host_launch")
        self.brickprof = str(self.build / "tools" / "brickprof")
        self.mpi_app = str(self.build / "tests" / "mpi" / "mpi_app")  # built where Open MPI is
        self.agent = os.environ.get("BRICKPROF_AGENT") or str(
            self.build / "agent" / "libbrickprof.so")
        self.python = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
        self.baseline = args.baseline == "plain"
        self.keep = args.keep
        self.root = Path(tempfile.mkdtemp(prefix="brickprof-torture-"))
        self.base_env = {k: v for k, v in os.environ.items()
                         if not k.startswith("BRICKPROF_") and k not in (
                             "LD_PRELOAD", "CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH")}
        self.base_env["PYTHONDONTWRITEBYTECODE"] = "1"
        self.shim_python = self._find_shim_python()
        self.fake_cuda = self.build / "tests" / "fakes" / "cuda_driver"
        self.available = self._what_is_available()

    def _what_is_available(self):
        have = set()
        if os.geteuid() == 0:
            have.add("root")
        probe = self.root / "probe"
        probe.mkdir()
        if subprocess.run([self.launch, "--tmpfs", f"{probe},64k", "--", "true"],
                          stderr=subprocess.DEVNULL).returncode == 0:
            have.add("tmpfs")
        if self.shim_python:
            have.add("shim-python")
        if (self.fake_cuda / "libcuda.so.1").exists():  # a build with CUDA headers
            have.add("fake-cuda")
        if shutil.which("mpirun") and os.access(self.mpi_app, os.X_OK):
            have.add("mpi")
        return have

    @staticmethod
    def _find_shim_python():
        """A python3 on PATH that is a script (a version manager's shim, as
        pyenv's), or None. PATH is searched whole: a shim runs Python with
        the real interpreter's folder put first."""
        for folder in os.environ.get("PATH", "").split(os.pathsep):
            candidate = os.path.join(folder or ".", "python3")
            try:
                with open(candidate, "rb") as f:
                    if f.read(2) == b"#!" and os.access(candidate, os.X_OK):
                        return candidate
            except OSError:
                continue
        return None

    def skip_reason(self, case):
        missing = [n for n in case.needs if n not in self.available]
        return "needs " + ", ".join(missing) if missing else ""

    def places(self, work):
        return {"bin": str(self.bin), "src": str(HERE / "programs"), "py": self.python,
                "work": str(work), "out": str(work / "out"), "agent": self.agent,
                "brickprof": self.brickprof, "shim_python": self.shim_python or "python3",
                "fake_cuda": str(self.fake_cuda), "mpi_app": self.mpi_app}

    def command(self, case, work, with_agent):
        where = self.places(work)
        launch = [expand(o, where) for o in case.launch]
        argv = [expand(a, where) for a in case.argv]
        env = dict(self.base_env)
        env["PYTHONPATH"] = where["src"]
        env.update({k: expand(v, where) for k, v in case.env.items()})
        agent_env = {}
        if with_agent:
            agent_env["BRICKPROF_OUTPUT"] = where["out"] + "/%n-%p"
            agent_env.update({k: expand(v, where) for k, v in case.agent_env.items()})
            if case.via == "run":
                agent_env["BRICKPROF_AGENT"] = self.agent
                argv = [self.brickprof, "run", "--"] + argv
            elif case.via == "wrapper":  # the case's own script preloads it where it chooses
                agent_env["BRICKPROF_CASE_AGENT"] = self.agent
            else:
                preload = env.get("LD_PRELOAD")
                agent_env["LD_PRELOAD"] = self.agent + (":" + preload if preload else "")
        sets = []
        for k, v in agent_env.items():
            sets += ["--env", f"{k}={v}"]
        # Descriptors closed last: host_launch can still say what went wrong.
        return [self.launch] + _without_closes(launch) + sets + _closes(launch) + ["--"] + argv, env

    def run_once(self, case, work, with_agent):
        if work.exists():
            shutil.rmtree(work)
        (work / "out").mkdir(parents=True)
        if case.setup:
            with runner.SPAWN_LOCK:  # it may write an executable
                case.setup(work, self.places(work))
        argv, env = self.command(case, work, with_agent)
        outcome = runner.run(argv, env, str(work), case.timeout, stdin=case.stdin,
                             steps=case.steps, with_agent=with_agent,
                             via_run=with_agent and case.via == "run", watch=str(work / "out"))
        measured = work / MAXRSS_FILE
        if measured.exists():  # host_launch --maxrss: the program's own peak
            outcome.maxrss_kb = int(measured.read_text())
        # For whoever looks into a kept folder: what ran and what it did.
        (work / "harness.stdout").write_bytes(outcome.stdout)
        (work / "harness.stderr").write_bytes(outcome.stderr)
        (work / "harness.txt").write_text(
            f"command: {argv!r}\nstatus: {case_checks.describe_status(outcome.status)}\n"
            f"timed out: {outcome.timed_out}\npeak memory: {outcome.maxrss_kb} KiB\n")
        return outcome

    def run_case(self, case, index):
        """One plain/agent pair: the problems found."""
        folder = self.root / case.name / f"run{index}"
        plain = self.run_once(case, folder / "plain", with_agent=False)
        second = folder / ("plain2" if self.baseline else "agent")
        other = self.run_once(case, second, with_agent=not self.baseline)
        problems = case_checks.compare(case, plain, other, second_is_agent=not self.baseline)
        if not self.baseline:
            out = second / "out"
            problems += [f"the run ended before the step '{s}': the case did not happen as "
                         "designed" for s in other.missed_steps]
            if not other.timed_out:
                problems += case_checks.check_outputs(case, out, self.brickprof, other.pid)
                ctx = Context(case=case, plain=plain, agent=other, work=second, out=out,
                              traces=case_checks.trace_files(out),
                              agent_lines=case_checks.foreign_lines(other.stderr))
                for check in case.checks:
                    try:
                        problems += check(ctx)
                    except Exception as e:  # a check that cannot look is a failure
                        problems.append(f"check {getattr(check, '__qualname__', check)}: {e!r}")
        # Kept: what failed unexpectedly, for a look (everything with --keep).
        if not self.keep and (not problems or case.name in KNOWN):
            _remove(folder)
        return problems


def _closes(options):
    out = []
    for i in range(0, len(options) - 1, 2):
        if options[i] == "--close":
            out += options[i:i + 2]
    return out


def _without_closes(options):
    out = []
    for i in range(0, len(options) - 1, 2):
        if options[i] != "--close":
            out += options[i:i + 2]
    return out


def _remove(folder):
    # A run may leave read-only folders (the read-only output case).
    for path in [folder] + list(folder.rglob("*")):
        if path.is_dir() and not path.is_symlink():
            try:
                os.chmod(path, 0o755)
            except OSError:
                pass
    shutil.rmtree(folder, ignore_errors=True)


def summarize(problem_lists):
    """Distinct problems over the failing runs, numbers that vary (pids,
    sizes) folded, most frequent first."""
    counts = collections.Counter()
    first = {}
    for problems in problem_lists:
        for p in dict.fromkeys(re.sub(r"\d{3,}", "N", p) for p in problems):
            counts[p] += 1
            first.setdefault(p, p)
    return [(first[p], n) for p, n in counts.most_common()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True, help="meson build folder")
    parser.add_argument("--runs", type=int, default=1, help="runs of each case (default 1)")
    parser.add_argument("--case", default="", help="only cases whose name or group matches")
    parser.add_argument("--jobs", type=int, default=min(os.cpu_count() or 1, 2),
                        help="cases run at once (default 2)")
    parser.add_argument("--table", action="store_true", help="end with a Markdown table")
    parser.add_argument("--baseline", choices=["agent", "plain"], default="agent",
                        help="plain: compare two plain runs (is every case deterministic?)")
    parser.add_argument("--keep", action="store_true", help="keep every run's folder")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    args = parser.parse_args()

    pattern = re.compile(args.case)
    selected = [c for c in GROUPS if pattern.search(c.name) or pattern.search(c.group)]
    names = [c.name for c in GROUPS]
    duplicates = {n for n in names if names.count(n) > 1}
    unknown = set(KNOWN) - set(names)
    if duplicates or unknown:
        sys.exit(f"torture.py: duplicate case names {sorted(duplicates)} or KNOWN entries "
                 f"naming no case {sorted(unknown)}")
    if args.list:
        for c in selected:
            known = f"  [known: {KNOWN[c.name]}]" if c.name in KNOWN else ""
            print(f"{c.group:10} {c.name:36} {c.why}{known}")
        return 0

    suite = Suite(args)
    started = time.monotonic()
    results = {c.name: [] for c in selected}
    skipped = {c.name: suite.skip_reason(c) for c in selected}
    lock = threading.Lock()
    seconds = collections.Counter()

    def finish(case):
        problems = [p for p in results[case.name] if p]
        line = verdict_line(case, len(results[case.name]), problems, skipped[case.name],
                            suite.baseline)
        if not skipped[case.name]:
            line += f"  [{seconds[case.name]:.1f} s]"
        print(line, flush=True)

    def one(case, index):
        began = time.monotonic()
        problems = suite.run_case(case, index)
        with lock:
            seconds[case.name] += time.monotonic() - began
            results[case.name].append(problems)
            if len(results[case.name]) == args.runs:
                finish(case)

    light = [c for c in selected if not c.heavy and not skipped[c.name]]
    heavy = [c for c in selected if c.heavy and not skipped[c.name]]
    for c in selected:
        if skipped[c.name]:
            finish(c)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(one, c, i) for c in light for i in range(args.runs)]
        for f in futures:
            f.result()
    for c in heavy:
        for i in range(args.runs):
            one(c, i)

    tally = collections.Counter()
    for c in selected:
        tally[classify(c, results[c.name], skipped[c.name], suite.baseline)] += 1
    elapsed = time.monotonic() - started
    mode = "plain against plain" if suite.baseline else f"agent {suite.agent}"
    print(f"\n{len(selected)} cases x {args.runs} run(s), {mode}, {elapsed:.0f} s")
    if tally["known"]:
        print(f"known failures: {tally['known']} (see KNOWN in tests/host/torture.py)")
    if tally["fixed"]:
        print(f"fixed — unmark in KNOWN: {tally['fixed']}")
    if tally["skipped"]:
        print(f"skipped: {tally['skipped']}")
    if args.table:
        print()
        print(markdown_table(selected, results, skipped, suite.baseline))
    print(f"host cases: {tally['passed'] + tally['fixed']} passed, {tally['failed']} failed")
    if suite.keep or tally["failed"]:
        print(f"run folders kept under {suite.root}")
    else:
        _remove(suite.root)
    return 1 if tally["failed"] else 0


def classify(case, runs, skip, baseline):
    if skip:
        return "skipped"
    failed = any(runs)
    known = case.name in KNOWN and not baseline
    if known:
        return "known" if failed else "fixed"
    return "failed" if failed else "passed"


def verdict_line(case, count, failing, skip, baseline):
    kind = classify(case, failing + [[]] * (count - len(failing)), skip, baseline)
    if kind == "skipped":
        return f"skip   {case.name}: {skip}"
    if kind == "passed":
        return f"ok     {case.name}"
    if kind == "fixed":
        return (f"FIXED  {case.name} [{KNOWN[case.name]}]: passed {count} of {count} runs, "
                "fixed — unmark it")
    what = "; ".join(f"{p}" + (f" (x{n})" if n > 1 else "") for p, n in summarize(failing)[:3])
    label = "known " if kind == "known" else "FAIL  "
    tag = f" [{KNOWN[case.name]}]" if kind == "known" else ""
    return f"{label} {case.name}{tag} ({len(failing)}/{count} runs): {what}"


def markdown_table(selected, results, skipped, baseline):
    rows = ["| case | group | runs | failures | what failed |", "|---|---|---:|---:|---|"]
    for c in selected:
        runs = results[c.name]
        failing = [p for p in runs if p]
        if skipped[c.name]:
            rows.append(f"| {c.name} | {c.group} | 0 | - | skipped: {skipped[c.name]} |")
            continue
        what = "; ".join(f"{p}" + (f" (x{n})" if n > 1 else "") for p, n in summarize(failing)[:2])
        if c.name in KNOWN and not baseline:
            what = f"known ({KNOWN[c.name]}): {what}" if failing else \
                f"{KNOWN[c.name]} fixed — unmark it"
        what = what.replace("|", "\\|")
        rows.append(f"| {c.name} | {c.group} | {len(runs)} | {len(failing)} | {what} |")
    return "\n".join(rows)


if __name__ == "__main__":
    sys.exit(main())
