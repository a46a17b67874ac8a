"""How well `brickprof merge` lines up the ranks' clocks: mpi_app under
`mpirun -np 2 brickprof run`, rank 1's clock shifted by a known amount
(BRICKPROF_TEST_CLOCK_SHIFT_NS; both ranks share the machine's clock, so
the shift is the true offset), RUNS times. Per run: the offset merge
applied against the shift (its error), the error bound the trace claims,
and the worst overlap left after merge between a rank leaving an
all-to-all collective and another arriving (a real one is < 0). Prints the
median and the worst of each. A measurement, not a test: it asserts
nothing (mpi_program.py checks the bound).

usage: clock_alignment.py BRICKPROF MPI_APP [RUNS]
  (BRICKPROF_AGENT=... measures another agent build)"""
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from checks import load_json, run  # noqa: E402
from mpi_common import mpirun  # noqa: E402

SHIFT_NS = 7_300_000_000
ALL_TO_ALL = ("barrier", "allreduce", "allgather", "alltoall")


def residual_overlap(merged):
    """Max over all-to-all collectives of (last arrival - first departure)."""
    by_instance = {}
    for n in merged["nodes"]:
        m = n.get("mpi")
        if m and m["op"] in ALL_TO_ALL and m.get("seq"):
            key = (merged["communicators"][m["comm"]]["key"], m["seq"])
            by_instance.setdefault(key, []).append((n["start_ns"], n["end_ns"]))
    gaps = [max(s for s, _ in calls) - min(e for _, e in calls)
            for calls in by_instance.values() if len(calls) > 1]
    return max(gaps) if gaps else None


def one_run(brickprof, app, folder):
    wrapper = ["sh", "-c", 'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then '
               "export BRICKPROF_TEST_CLOCK_SHIFT_NS=%d; fi; exec \"$@\"" % SHIFT_NS, "sh"]
    mpirun(2, wrapper + [brickprof, "run", "--log", "off", "--formats", "json", "--output",
                         os.path.join(folder, "app"), "--", app])
    ranks = sorted(Path(folder).glob("app-r*.json"))
    merged = os.path.join(folder, "merged.json")
    run([brickprof, "merge"] + [str(p) for p in ranks] + ["-o", merged])
    m = load_json(merged)
    alignment = m["sources"][1].get("alignment", {})
    bound = alignment.get("error_ns")
    if bound is None:  # traces that carry ping-pong samples: half the best round trip
        sync = load_json(str(ranks[1]))["process"].get("clock_sync", {})
        rtts = [s["rtt_ns"] for s in sync.get("samples", [])]
        bound = min(rtts) / 2 if rtts else None
    return abs(alignment.get("offset_ns", 0) - SHIFT_NS), bound, residual_overlap(m)


def describe(name, values, unit=1000, label="us"):
    values = [v for v in values if v is not None]
    if not values:
        return f"{name}: none"
    return (f"{name}: median {statistics.median(values) / unit:.1f} {label}, "
            f"worst {max(values) / unit:.1f} {label}")


def main():
    brickprof, app = sys.argv[1:3]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    errors, bounds, overlaps = [], [], []
    for i in range(runs):
        with tempfile.TemporaryDirectory(prefix="brickprof-clock-") as folder:
            error, bound, overlap = one_run(brickprof, app, folder)
        errors.append(error)
        bounds.append(bound)
        overlaps.append(overlap)
        print(f"run {i + 1}: offset error {error / 1000:.1f} us, claimed bound "
              f"{'-' if bound is None else f'{bound / 1000:.1f} us'}, "
              f"worst overlap after merge {overlap / 1000:.1f} us", flush=True)
    print(describe("offset error", errors))
    print(describe("claimed error bound", bounds))
    print(describe("overlap after merge (< 0: none)", overlaps))


if __name__ == "__main__":
    main()
