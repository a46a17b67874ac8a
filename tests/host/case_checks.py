"""The checks every case gets: the host behaved as without the agent (same
status, stdout, stderr less the agent's own lines; no hang; nothing left
running), and the agent left what it should (each trace parses and comes
with its other formats, no temporary files, the expected traces and, under
`brickprof run`, no empty traces of processes that recorded nothing)."""
import json
import re
import signal
import subprocess

from case import EXTENSIONS, is_job_summary, trace_prefixes
from runner import spawn

# Lines that are not the program's: the agent's and brickprof's own, and
# the loader's refusal of a preload it will not apply (static and set-user-ID
# programs: the expected outcome there).
_FOREIGN_LINE = re.compile(rb"^(brickprof: |ERROR: ld\.so: ).*\n?", re.MULTILINE)
# An empty trace (no node) is at most this big; bigger ones are not loaded
# to look.
_EMPTY_TRACE_MAX = 64 * 1024


def foreign_lines(stderr):
    return [m.group(0).decode(errors="replace").rstrip("\n")
            for m in _FOREIGN_LINE.finditer(stderr)]


def program_stderr(stderr):
    return _FOREIGN_LINE.sub(b"", stderr)


def describe_status(status):
    if status < 0:
        try:
            return f"killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"killed by signal {-status}"
    return f"exit {status}"


def _same_status(plain, agent, via_run):
    if plain == agent:
        return True
    # brickprof run exits 128+N when signal N killed the program.
    return via_run and plain < 0 and agent == 128 - plain


def _excerpt(data, limit=160):
    text = data.decode(errors="replace")
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


def _differs(what, plain, agent):
    at = _first_difference(plain, agent)
    start = max(0, at - 40)
    return (f"{what} differs at byte {at}: plain {_excerpt(plain[start:at + 80])}, "
            f"agent {_excerpt(agent[start:at + 80])}")


def compare(case, plain, agent, second_is_agent=True):
    """How the second run differs from the plain one, as problems."""
    problems = []
    other = "agent" if second_is_agent else "second plain run"
    for run, name in ((plain, "plain"), (agent, other)):
        if run.timed_out:
            problems.append(f"{name} run hung: killed after {case.timeout:g} s")
        if run.left_running:
            problems.append(f"{name} run left {run.left_running} process(es) running")
    if plain.timed_out or agent.timed_out:
        return problems
    via_run = second_is_agent and case.via == "run"
    allowed = [plain.status] + (list(case.also_statuses) if second_is_agent else [])
    if not any(_same_status(s, agent.status, via_run) for s in allowed):
        problems.append(f"status: plain {describe_status(plain.status)}, "
                        f"{other} {describe_status(agent.status)}")
    if plain.stdout != agent.stdout:
        problems.append(_differs("stdout", plain.stdout, agent.stdout))
    plain_err = program_stderr(plain.stderr)
    agent_err = program_stderr(agent.stderr)
    if plain_err != agent_err:
        problems.append(_differs("stderr", plain_err, agent_err))
    return problems


def trace_files(out):
    """The trace JSON files in `out` (not Chrome's .trace.json, not a job's
    summary)."""
    return sorted(p for p in out.iterdir()
                  if p.name.endswith(".json") and not p.name.endswith(".trace.json")
                  and not is_job_summary(p))


def check_outputs(case, out, brickprof, run_pid):
    """What the agent run left in its output folder, as problems."""
    problems = []
    for name in sorted(p.name for p in out.iterdir()):
        if ".tmp" in name or not name.endswith(tuple(EXTENSIONS.values())):
            problems.append(f"temporary file left: {name}")
    traces = trace_files(out)
    summaries = [p for p in out.iterdir() if is_job_summary(p)]
    for path in traces + summaries:
        report = spawn([brickprof, "report", str(path), "--summary"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, stderr = report.communicate()
        if report.returncode != 0:
            why = stderr.decode(errors="replace").strip().splitlines()
            why = why[0].replace(str(path), path.name) if why else f"exit {report.returncode}"
            problems.append(f"{path.name} does not parse: {why}")
    if case.formats:
        for prefix in sorted(trace_prefixes(out)):
            missing = [prefix + EXTENSIONS[f] for f in case.formats
                       if not (out / (prefix + EXTENSIONS[f])).exists()]
            if missing:
                problems.append(f"incomplete trace: {', '.join(missing)} missing")
    if case.traces is not None:
        expected = {k: v for k, v in case.traces.items() if k != "*"}
        for program, count in sorted(expected.items()):
            found = [p for p in traces if p.name.startswith(program + "-")]
            if count is None and not found:
                problems.append(f"no trace of {program}")
            elif count is not None and len(found) != count:
                problems.append(f"{len(found)} trace(s) of {program}, expected {count}"
                                + (": " + ", ".join(p.name for p in found) if found else ""))
        others = [p.name for p in traces
                  if not any(p.name.startswith(prog + "-") for prog in expected)]
        if others and "*" not in case.traces:
            problems.append("unexpected trace(s): " + ", ".join(others[:5])
                            + (f" and {len(others) - 5} more" if len(others) > 5 else ""))
    if case.via == "run":
        stray = [p.name for p in traces if _is_stray(p, run_pid)]
        if stray:
            problems.append(f"{len(stray)} empty trace(s) of processes that recorded nothing: "
                            + ", ".join(stray[:3]) + (" ..." if len(stray) > 3 else ""))
    return problems


def _is_stray(path, run_pid):
    """An empty trace of a process other than the one `brickprof run` (pid
    run_pid) started or its exec successors (same pid, so same parent)."""
    if path.stat().st_size > _EMPTY_TRACE_MAX:
        return False
    try:
        with open(path, "rb") as f:
            trace = json.load(f)
    except ValueError:
        return False  # reported as not parsing
    return not trace.get("nodes") and trace.get("process", {}).get("ppid") != run_pid
