#!/usr/bin/env python3
"""One rank of an MPI job that computes on its CPU: the agent's Chrome file
(written at exit) and `brickprof report --chrome` of the same run's trace
must be the same bytes, "CPU work (rank R)" track included (the track HTA
measures a CPU rank's compute on; trace/derive/cpu_work.h).

The rank comes from Open MPI's variables, as mpirun sets them; the program
is a plain C program with brickprof scopes (no GPU).

usage: chrome_cpu_rank.py BRICKPROF APP WORK_DIR
"""
import os
import shutil
import subprocess
import sys


def main():
    brickprof, app, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ, OMPI_COMM_WORLD_RANK="1", OMPI_COMM_WORLD_SIZE="2")
    subprocess.run([brickprof, "run", "-o", os.path.join(work, "t"), "--formats", "json,chrome",
                    "--", app], env=env, check=True, capture_output=True)
    trace, agent_chrome = os.path.join(work, "t-r1.json"), os.path.join(work, "t-r1.trace.json")
    report_chrome = os.path.join(work, "report.trace.json")
    subprocess.run([brickprof, "report", trace, "--chrome", "-o", report_chrome], check=True,
                   capture_output=True)
    with open(agent_chrome, "rb") as f:
        agent = f.read()
    with open(report_chrome, "rb") as f:
        report = f.read()
    if b'"CPU work (rank 1)"' not in report:
        print("report --chrome has no CPU work track for a CPU-only rank")
        return 1
    if agent != report:
        at = next((i for i, (a, b) in enumerate(zip(agent, report)) if a != b),
                  min(len(agent), len(report)))
        print(f"the agent's Chrome file and report --chrome differ at byte {at} "
              f"({len(agent)} and {len(report)} bytes); the agent's has the CPU work track: "
              f"{b'CPU work (rank 1)' in agent}")
        return 1
    print("agent and report --chrome: the same bytes, CPU work track included")
    return 0


if __name__ == "__main__":
    sys.exit(main())
