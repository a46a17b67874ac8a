"""Host cases about the agent's surroundings: output paths it cannot use
(missing, read-only, a file, too long, shared, relative, a full disk, a file
size limit, no descriptor left), bad values of every BRICKPROF_* variable,
programs the loader will not preload into (static, set-user-ID), the agent
loaded twice, long runs and the event cap, bytes in argv."""
import os
import shutil

from case import (MEASURED, Case, events_dropped, file_unchanged, has_scope, memory_within,
                  json_kept_others_named, missing_named, one_warning, trace_in)
from cases_process import host

VICTIM = b"a file of root's that the trace must never overwrite\n"


def mkdirs(*relative):
    def setup(work, where):
        for r in relative:
            (work / r).mkdir(parents=True, exist_ok=True)
    return setup


def written_or_warned(relative, program):
    """A trace of `program` in `relative`, or a warning naming that path."""
    def check(ctx):
        folder = ctx.work / relative
        if folder.is_dir() and list(folder.glob(program + "-*.json")):
            return []
        if any(relative in line for line in ctx.agent_lines):
            return []
        return [f"no trace in {relative}/ and no warning naming it"]
    return check


def shared_folder(work, where):
    os.chmod(work / "out", 0o777)  # writable by others, no sticky bit
    (work / "victim").write_bytes(VICTIM)


def latin1_program(work, where):
    shutil.copy(os.path.join(where["bin"], "host_records"), os.fsdecode(work / os.fsdecode(b"caf\xe9")))


def setuid_program(work, where):
    copy = work / "setuid_records"
    shutil.copy(os.path.join(where["bin"], "host_records"), copy)
    os.chown(copy, 65534, 65534)  # nobody: effective user differs from the real one
    os.chmod(copy, 0o4755)


def second_agent_copy(work, where):
    (work / "copy").mkdir()
    shutil.copy(where["agent"], work / "copy" / "libbrickprof.so")


def records(name, *args, **kw):
    return host(name, kw.pop("group", "output"), "records", *args, **kw)


LONG_NAME = "x" * 300
TOO_DEEP = "/".join(["d" * 200] * 25)  # past PATH_MAX

OUTPUT = [
    records("output-missing-dir", "scopes", "100",
            agent_env={"BRICKPROF_OUTPUT": "{out}/missing/sub/%n-%p"}, traces={},
            checks=[written_or_warned("out/missing/sub", "host_records")],
            why="BRICKPROF_OUTPUT in a folder that does not exist"),
    records("output-readonly-dir", "scopes", "100", setup=mkdirs("ro"),
            launch=["--tmpfs", "{work}/ro,64k,ro"], needs=("tmpfs",),
            agent_env={"BRICKPROF_OUTPUT": "{work}/ro/%n-%p"}, traces={},
            checks=[written_or_warned("ro", "host_records")],
            why="BRICKPROF_OUTPUT on a read-only file system"),
    records("output-path-is-file", "scopes", "100",
            setup=lambda work, where: (work / "afile").write_bytes(b"a file\n"),
            agent_env={"BRICKPROF_OUTPUT": "{work}/afile/%n-%p"}, traces={},
            checks=[written_or_warned("afile", "host_records")],
            why="BRICKPROF_OUTPUT under a path that is a file"),
    records("output-long-name", "scopes", "100",
            agent_env={"BRICKPROF_OUTPUT": "{out}/" + LONG_NAME + "-%p"}, traces={},
            checks=[written_or_warned(LONG_NAME[:100], "host_records")],
            why="a file name longer than NAME_MAX"),
    records("output-long-path", "scopes", "100",
            agent_env={"BRICKPROF_OUTPUT": "{out}/" + TOO_DEEP + "/%n-%p"}, traces={},
            checks=[written_or_warned("d" * 200, "host_records")],
            why="an output path longer than PATH_MAX"),
    records("output-shared-folder", "scopes", "2000", setup=shared_folder,
            env={"LD_PRELOAD": "{bin}/librace_attacker.so", "TORTURE_VICTIM": "{work}/victim",
                 "TORTURE_SHARED_DIR": "{out}"},
            traces={"host_records": 1}, checks=[file_unchanged("victim", VICTIM)],
            why="output folder writable by others, no sticky bit: a planted link"),
    records("output-relative-chdir", "chdir", "elsewhere", setup=mkdirs("traces", "elsewhere"),
            agent_env={"BRICKPROF_OUTPUT": "traces/%n-%p"}, traces=None,
            checks=[trace_in("traces", "host_records")],
            why="relative BRICKPROF_OUTPUT and a program that changes directory"),
    records("output-empty-variable", "scopes", "100", agent_env={"BRICKPROF_OUTPUT": ""},
            traces=None, checks=[trace_in(".", "brickprof-host_records")],
            why="BRICKPROF_OUTPUT empty: the default name in the working directory"),
    records("output-full-disk", "distinct", "3000", launch=["--tmpfs", "{out},64k"],
            needs=("tmpfs",), formats=(), traces=None,
            checks=[missing_named(("json", "tree", "dot"))],
            why="a full disk (64 KiB tmpfs): what is missing is named"),
    records("output-full-disk-json-last", "distinct", "3000", launch=["--tmpfs", "{out},512k"],
            needs=("tmpfs",), agent_env={"BRICKPROF_FORMATS": "tree,dot,json"}, formats=(),
            traces=None, checks=[json_kept_others_named()],
            why="room for the JSON alone (512 KiB), formats listing it last"),
    records("output-file-size-limit", "scopes", "2000", launch=["--fsize", "65536"],
            formats=(), traces=None, checks=[missing_named(("json", "tree", "dot"))],
            why="RLIMIT_FSIZE below the trace's size (SIGXFSZ)"),
    records("output-no-descriptors", "exhaust-fds", launch=["--nofile", "64"], traces=None,
            why="every descriptor in use when the trace is written"),
]

# Written from the aggregate tree, which a small BRICKPROF_BUFFER_MB may not hold.
TREE = ("tree", "dot")

BAD_VALUES = [
    ("BRICKPROF_FORMATS", "bogus"), ("BRICKPROF_FORMATS", ",,"), ("BRICKPROF_LOG", "loud"),
    ("BRICKPROF_BUFFER_MB", "abc"), ("BRICKPROF_BUFFER_MB", "0"),
    ("BRICKPROF_BUFFER_MB", "99999999999999999999999"), ("BRICKPROF_GPU", "maybe"),
    ("BRICKPROF_SYNC", "sometimes"), ("BRICKPROF_PTX", "binary"),
    ("BRICKPROF_CUDA_GRAPH_TRACE", "both"), ("BRICKPROF_CAPTURE", "window"),
    ("BRICKPROF_CAPTURE", "scope:"), ("BRICKPROF_SIGNAL_DUMP_SECONDS", "0"),
    ("BRICKPROF_SIGNAL_DUMP_SECONDS", "forever"), ("BRICKPROF_CMDLINE", "partial"),
    ("BRICKPROF_PEAK_GFLOPS", "-1"), ("BRICKPROF_PEAK_GBPS", "fast"),
    ("BRICKPROF_CHECKSUMS", "yes"),
]


def bad_value_name(var, value):
    short = var[len("BRICKPROF_"):].lower().replace("_", "-")
    tag = "".join(ch if ch.isalnum() else "-" for ch in value).strip("-") or "commas"
    return f"env-{short}-{tag[:12]}"


ENV = [
    records(bad_value_name(var, value), "scopes", "100", group="env", agent_env={var: value},
            traces={"host_records": 1}, checks=[one_warning(var)],
            why=f"{var}={value!r}: one warning, the default used")
    for var, value in BAD_VALUES
] + [
    records("env-all-bad", "scopes", "100", group="env",
            agent_env=dict(BAD_VALUES), traces={"host_records": 1},
            why="every variable bad at once: warnings, the host unaffected"),
]

LOADER = [
    Case("loader-static", "loader", ["{bin}/host_static"], traces={},
         why="a static program: the preload does not apply"),
    Case("loader-static-run", "loader", ["{bin}/host_static"], via="run", traces={},
         also_statuses=(125,), checks=[one_warning("is statically linked")],
         why="a static program through brickprof run: run says the agent cannot load "
             "and, the program having exited 0, exits 125"),
    Case("loader-setuid", "loader", ["{work}/setuid_records", "ids"], setup=setuid_program,
         needs=("root",), traces={},
         why="a set-user-ID program: the loader refuses the preload"),
    records("loader-preload-twice", "scopes", "100", group="loader",
            agent_env={"LD_PRELOAD": "{agent}:{agent}"}, traces={"host_records": 1},
            why="the agent twice in LD_PRELOAD records once"),
    records("loader-two-copies", "scopes", "100", group="loader", setup=second_agent_copy,
            agent_env={"LD_PRELOAD": "{agent}:{work}/copy/libbrickprof.so"},
            traces={"host_records": 1}, why="two copies of the agent from two paths"),
    Case("loader-nested-run", "loader",
         ["{brickprof}", "run", "--", "{bin}/host_records", "scopes", "100"],
         via="run", traces={"host_records": 1, "*": None},
         why="brickprof run inside brickprof run"),
]

LONG = [
    records("long-threads-seconds", "for-seconds", "3", "16", group="long", heavy=True,
            timeout=120, traces={"host_records": 1}, checks=[has_scope("host_records", "work")],
            why="16 threads recording for 3 seconds"),
    records("long-event-cap", "scopes", "200000", group="long",
            agent_env={"BRICKPROF_BUFFER_MB": "1"}, traces={"host_records": 1},
            checks=[events_dropped("host_records")],
            why="past a 1 MiB event cap: dropped events counted"),
    records("long-distinct-names-cap", "distinct", "1000000", group="long", heavy=True,
            timeout=120, agent_env={"BRICKPROF_BUFFER_MB": "1"}, traces={"host_records": 1},
            launch=MEASURED, formats=("json",), checks=[memory_within(64), missing_named(TREE)],
            why="10^6 distinct run-time names under a 1 MiB cap: memory held (the aggregate "
                "tree's files may not fit it, and are then named)"),
    host("long-short-threads-cap", "long", "threads", "short", "100000", "1", heavy=True,
         timeout=120, agent_env={"BRICKPROF_BUFFER_MB": "1"}, traces={"host_threads": 1},
         launch=MEASURED, formats=("json",), checks=[memory_within(32), missing_named(TREE)],
         why="10^5 short-lived threads under a 1 MiB cap: memory held (the aggregate "
             "tree's files may not fit it, and are then named)"),
]

ARGV = [
    records("argv-latin1", "echo-args", b"caf\xe9", b"\xff\xfe na\xefve", group="argv",
            traces={"host_records": 1}, why="Latin-1 bytes in argv"),
    records("argv-latin1-run", "echo-args", b"caf\xe9", b"\xff\xfe na\xefve", group="argv",
            via="run", traces={"host_records": 1}, why="Latin-1 argv through brickprof run"),
    Case("argv-latin1-program-name", "argv", [b"./caf\xe9", "echo-args", b"\xe9t\xe9"],
         setup=latin1_program, traces={os.fsdecode(b"caf\xe9"): 1},
         why="a program whose name is Latin-1 (the trace's file name and program)"),
    records("argv-huge", "echo-args", "a" * 100000, group="argv", traces={"host_records": 1},
            why="a 100 kB argument"),
]

CASES = OUTPUT + ENV + LOADER + LONG + ARGV
