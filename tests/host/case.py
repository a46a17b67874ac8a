"""What a host case is (Case), and the extra checks a case may ask for.

A case is a command run twice, plain and with the agent, through
host_launch (which sets the stage: closed descriptors, ignored signals,
limits, a private tmpfs). In argv and in environment values these are
replaced: {bin} the built case programs, {src} their sources, {py} the
Python interpreter, {work} the run's private folder (the working
directory), {out} the output folder in it, {agent} the agent library,
{brickprof} the CLI, {shim_python} a python3 shim found on PATH, {fake_cuda} the
fake CUDA driver and CUPTI's folder (tests/fakes/cuda_driver), {mpi_app} the
MPI test program (tests/mpi)."""
import json
import re
from dataclasses import dataclass, field
from typing import Callable, Optional

from runner import Step

DEFAULT_FORMATS = ("json", "tree", "dot")
EXTENSIONS = {"json": ".json", "tree": ".tree.txt", "dot": ".dot", "chrome": ".trace.json",
              "folded": ".folded"}


@dataclass
class Case:
    name: str
    group: str
    argv: list
    # "preload": LD_PRELOAD=agent; "run": through `brickprof run --`;
    # "wrapper": the agent's path in BRICKPROF_CASE_AGENT, for the case's
    # own script to preload where it chooses (some ranks of an MPI job).
    via: str = "preload"
    # Environment of both runs, and of the run with the agent only.
    env: dict = field(default_factory=dict)
    agent_env: dict = field(default_factory=dict)
    # host_launch options (["--close", "1"], ["--tmpfs", "{out},64k"], ...).
    launch: list = field(default_factory=list)
    stdin: Optional[bytes] = None
    steps: list = field(default_factory=list)
    timeout: float = 30.0
    # Trace JSON files expected in {out}, per program name (the %n of the
    # default output pattern): exact counts, or None for one or more; None
    # instead of the dict: not checked; a key "*":
    # traces of other programs allowed (shells a case starts).
    traces: Optional[dict] = None
    # The files each trace must come with; () when some may be missing
    # (a full disk), where missing_named checks that a warning says so.
    formats: tuple = DEFAULT_FORMATS
    # Statuses the run with the agent may also end with (a signal that
    # arrives mid-exit may end the process either way).
    also_statuses: tuple = ()
    setup: Optional[Callable] = None  # setup(work: Path, places: dict), before each run
    checks: list = field(default_factory=list)  # check(ctx) -> [problems]
    needs: tuple = ()  # "root", "tmpfs", "shim-python", "fake-cuda", "mpi": else skipped
    heavy: bool = False  # runs alone, after the others
    why: str = ""  # one line: what the case shows


@dataclass
class Context:
    """What a check sees of one plain/agent pair."""
    case: Case
    plain: object  # runner.Outcome
    agent: object
    work: object  # pathlib.Path of the agent run's folder
    out: object
    traces: list  # the agent run's trace JSON paths
    agent_lines: list  # the agent's own stderr lines (str)

    def load(self, path):
        with open(path, "rb") as f:
            return json.load(f)

    def traces_of(self, program):
        return [p for p in self.traces if p.name.startswith(program + "-")]


def program_trace(ctx, program):
    """The one trace of `program` that is not a .pre-exec one, loaded."""
    final = [p for p in ctx.traces_of(program) if ".pre-exec" not in p.name]
    return ctx.load(final[0]) if len(final) == 1 else None


def has_scope(program, name):
    def check(ctx):
        trace = program_trace(ctx, program)
        if trace is None:
            return [f"no single trace of {program} to look for scope '{name}' in"]
        if not any(n.get("name") == name for n in trace.get("nodes", [])):
            return [f"the trace of {program} has no scope '{name}'"]
        return []
    return check


def warning_mentions(program, text):
    def check(ctx):
        trace = program_trace(ctx, program)
        if trace is None:
            return [f"no single trace of {program} to look for a warning in"]
        if not any(text in w for w in trace.get("diagnostics", {}).get("warnings", [])):
            return [f"the trace of {program} has no warning mentioning '{text}'"]
        return []
    return check


def events_dropped(program):
    def check(ctx):
        trace = program_trace(ctx, program)
        if trace is None:
            return [f"no single trace of {program}"]
        if trace.get("diagnostics", {}).get("dropped_events", 0) <= 0:
            return ["the event cap was passed but no dropped events are counted"]
        return []
    return check


def one_warning(about):
    """Exactly one line of the agent's on stderr, naming `about`."""
    def check(ctx):
        lines = ctx.agent_lines
        if len(lines) != 1 or about not in lines[0]:
            return [f"expected one warning about {about}, got {len(lines)} line(s): "
                    + " | ".join(lines)[:300]]
        return []
    return check


def warned(about):
    """At least one line of the agent's on stderr names `about`."""
    def check(ctx):
        if not any(about in line for line in ctx.agent_lines):
            return [f"no warning naming {about}"]
        return []
    return check


def stdout_says(text):
    """The program printed `text` (in both runs, as they are compared)."""
    def check(ctx):
        if text.encode() not in ctx.agent.stdout:
            return [f"the program did not print '{text}'"]
        return []
    return check


# Threads that record until the process ends fill whatever cap they get:
# with the default 256 MiB the exit write alone takes seconds, far more on
# a loaded machine, and a case's duration would depend on the load. Cases
# with such threads run under this cap: the same stress (recording, then
# dropping, at exit), a write of bounded size.
BUSY_THREADS = {"BRICKPROF_BUFFER_MB": "16"}

MAXRSS_FILE = "maxrss"  # where host_launch --maxrss writes, in the run's folder
MEASURED = ["--maxrss", "{work}/" + MAXRSS_FILE]  # host_launch options for memory_within


def memory_within(mb):
    """Peak resident memory with the agent at most `mb` MiB above without
    (the case's launch options include MEASURED)."""
    def check(ctx):
        grown = (ctx.agent.maxrss_kb - ctx.plain.maxrss_kb) / 1024
        if grown > mb:
            return [f"peak memory {grown:.0f} MiB above the plain run's (allowed {mb})"]
        return []
    return check


def file_unchanged(relative, content):
    def check(ctx):
        path = ctx.work / relative
        if path.read_bytes() != content:
            return [f"{relative} was overwritten through a planted link"]
        return []
    return check


def trace_in(relative, program):
    """A trace of `program` in the folder `relative` to the run's folder."""
    def check(ctx):
        folder = ctx.work / relative
        found = sorted(folder.glob(program + "-*.json")) if folder.is_dir() else []
        if not found:
            return [f"no trace of {program} in {relative}/"]
        return []
    return check


def is_job_summary(path):
    """An MPI job's summary (<prefix>-job.json, rank 0's at MPI_Finalize):
    a file of its own, not a trace."""
    if not path.name.endswith("-job.json"):
        return False
    with open(path, "rb") as f:
        return b'"brickprof-job/1"' in f.read(64)


def trace_prefixes(folder):
    """The output prefixes of every trace file in `folder`."""
    prefixes = set()
    for path in folder.iterdir():
        if is_job_summary(path):
            continue
        for ext in sorted(EXTENSIONS.values(), key=len, reverse=True):
            if path.name.endswith(ext):
                prefixes.add(path.name[:-len(ext)])
                break
    return prefixes


def missing_named(formats):
    """Each file of `formats` missing beside the others of its trace is
    named in one of the agent's stderr lines."""
    def check(ctx):
        problems = []
        for prefix in sorted(trace_prefixes(ctx.out)):
            for fmt in formats:
                name = prefix + EXTENSIONS[fmt]
                if not (ctx.out / name).exists() and not any(name in line
                                                             for line in ctx.agent_lines):
                    problems.append(f"{name} is missing and no warning names it")
        return problems
    return check


def json_kept_others_named():
    """On a disk with room for the JSON alone (a private tmpfs the harness
    cannot look into afterwards): the agent says which files it could not
    write, and the JSON is not among them."""
    def check(ctx):
        lines = [line for line in ctx.agent_lines if "not written" in line]
        if not lines:
            return ["no warning names the files that did not fit"]
        return [f"the JSON was not written: {line}" for line in lines
                if re.search(r"\.json\b(?!\.)", line)]
    return check


def expand(value, where):
    if isinstance(value, bytes):
        return value
    return value.format(**where)


__all__ = ["Case", "Context", "Step", "has_scope", "warning_mentions",
           "events_dropped", "one_warning", "MEASURED", "MAXRSS_FILE", "BUSY_THREADS", "warned", "stdout_says", "memory_within",
           "file_unchanged", "trace_in", "missing_named", "json_kept_others_named", "expand", "program_trace",
           "trace_prefixes"]
