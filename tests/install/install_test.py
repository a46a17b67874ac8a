#!/usr/bin/env python3
"""meson install gives a brickprof that works from where it was installed.

Twice: this build tree installed with DESTDIR (its prefix and libdir, on
Debian lib/x86_64-linux-gnu), and a second, minimal configuration (libdir
lib, its own prefix) built and installed here. Each time: `brickprof
--version` prints the project version; a client compiled against the
installed header with `pkg-config --cflags --libs brickprof`, and another
built by CMake with find_package(brickprof), run under the installed
`brickprof run` and their scope and brick are in the trace.

usage: install_test.py SOURCE_DIR BUILD_DIR VERSION WORK_DIR
"""
import json
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from checks import check, load_json, run, summary  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD_TIMEOUT_S = 1200  # building the second configuration on a loaded machine


def find(root, name):
    for folder, _, files in os.walk(root):
        if name in files:
            return os.path.join(folder, name)
    return None


def check_install(root, prefix, version, work, label):
    """`root` is where the files are (prefix, or DESTDIR + prefix)."""
    brickprof = os.path.join(root, "bin", "brickprof")
    if not check(os.path.exists(brickprof), "%s: no bin/brickprof under %s" % (label, root)):
        return
    r = run([brickprof, "--version"])
    check(r.stdout.strip() == "brickprof " + version,
          "%s: --version printed %r" % (label, r.stdout))
    pc = find(root, "brickprof.pc")
    config = find(root, "brickprofConfig.cmake")
    check(find(root, "libbrickprof.so") is not None, "%s: no libbrickprof.so" % label)
    check(os.path.exists(os.path.join(root, "include", "brickprof", "brickprof.h")),
          "%s: no include/brickprof/brickprof.h" % label)
    if not check(pc and config, "%s: brickprof.pc or brickprofConfig.cmake not installed" % label):
        return
    os.makedirs(work, exist_ok=True)
    clients = []
    # pkg-config: the .pc names its prefix; under DESTDIR it moved with it.
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.dirname(pc))
    flags = run(["pkg-config", "--define-variable=prefix=" + root, "--cflags", "--libs",
                 "brickprof"], env=env).stdout.split()
    exe = os.path.join(work, "client-pkg-config")
    run(["cc", "-std=c99", "-Wall", "-Werror", "-o", exe, os.path.join(HERE, "client", "client.c")]
        + flags)
    clients.append(exe)
    # CMake: find_package(brickprof) through the prefix.
    build = os.path.join(work, "cmake-build")
    shutil.rmtree(build, ignore_errors=True)
    run(["cmake", "-S", os.path.join(HERE, "client"), "-B", build, "-DCMAKE_PREFIX_PATH=" + root],
        timeout=BUILD_TIMEOUT_S)
    run(["cmake", "--build", build], timeout=BUILD_TIMEOUT_S)
    clients.append(os.path.join(build, "client"))
    for exe in clients:
        out = os.path.join(work, os.path.basename(exe))
        env = {k: v for k, v in os.environ.items() if k != "BRICKPROF_AGENT"}
        r = run([brickprof, "run", "--formats", "json", "--output", out, "--", exe], env=env)
        check("client done" in r.stdout, "%s: %s printed %r" % (label, exe, r.stdout))
        if not check(os.path.exists(out + ".json"), "%s: no trace from %s (%s)"
                     % (label, exe, r.stderr.strip())):
            continue
        names = {n["name"] for n in load_json(out + ".json")["nodes"]}
        check({"client work", "RmsNorm"} <= names,
              "%s: %s's trace lacks its scope and brick: %s" % (label, exe, sorted(names)))


def main():
    source, build, version, work = sys.argv[1:5]
    shutil.rmtree(os.path.join(work, "destdir"), ignore_errors=True)
    # 1. This build, installed with DESTDIR.
    destdir = os.path.join(work, "destdir")
    run(["meson", "install", "-C", build, "--no-rebuild", "--quiet", "--destdir", destdir])
    info = json.loads(run(["meson", "introspect", "--buildoptions", build]).stdout)
    opts = {o["name"]: o["value"] for o in info}
    prefix = opts["prefix"]
    print("1: prefix %s, libdir %s, DESTDIR %s" % (prefix, opts["libdir"], destdir))
    check_install(destdir + prefix, prefix, version, os.path.join(work, "clients-1"), "DESTDIR install")
    # 2. A second configuration: libdir lib, its own prefix, only what installs.
    prefix2 = os.path.join(work, "prefix")
    shutil.rmtree(prefix2, ignore_errors=True)
    build2 = os.path.join(work, "build")
    setup = ["meson", "setup", build2, source, "--prefix", prefix2, "--libdir", "lib",
             "--buildtype", "release", "-Dtests=false", "-Dbricklayer=false",
             "-Dbenchmarks=disabled", "-Dcuda=disabled"]
    if os.path.exists(os.path.join(build2, "build.ninja")):
        setup.append("--reconfigure")
    run(setup, timeout=BUILD_TIMEOUT_S)
    run(["ninja", "-C", build2], timeout=BUILD_TIMEOUT_S)
    run(["meson", "install", "-C", build2, "--no-rebuild", "--quiet"])
    print("2: prefix %s, libdir lib" % prefix2)
    check_install(prefix2, prefix2, version, os.path.join(work, "clients-2"), "prefix install")
    return summary()


if __name__ == "__main__":
    sys.exit(main())
