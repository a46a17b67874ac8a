#!/usr/bin/env python3
"""Every name <brickprof/brickprof.h> brings into a program, as the compiler
sees it: macros (gcc -dM, with and without BRICKPROF_DISABLE), functions
(gcc -aux-info), and types, enumerators and variables (the debug info of a
program built to keep every unused one), less those of the system headers
brickprof's headers include. The names of brickprof.h itself (read with its
detail/ includes left out) must all be API, brickprof_ or BRICKPROF_; the
rest, what brickprof/detail/ adds, must all be brickprof__ or BRICKPROF__.
Nothing else: no C++ namespace, none of the agent's names.

  public_api_names.py INCLUDE_DIR --cc CC... --cxx CXX...
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

KEEP_EVERYTHING = ["-g", "-O0", "-fno-eliminate-unused-debug-types",
                   "-fno-eliminate-unused-debug-symbols", "-fkeep-inline-functions",
                   "-fkeep-static-functions"]
LANGUAGES = {"c": ("-std=c99", ".c"), "c++": ("-std=c++11", ".cpp")}


def header_files(include_dir):
    root = os.path.join(include_dir, "brickprof")
    for folder, _, files in os.walk(root):
        for f in sorted(files):
            if f.endswith(".h"):
                yield os.path.join(folder, f)


def system_includes(include_dir):
    found = set()
    for path in header_files(include_dir):
        with open(path) as f:
            found.update(re.findall(r"^\s*#\s*include\s*<([^>]+)>", f.read(), re.M))
    return sorted(i for i in found if not i.startswith("brickprof/"))


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit("public_api_names: %s failed:\n%s" % (" ".join(cmd), r.stderr))
    return r.stdout


def macros(compiler, std, source, include_dir, extra):
    out = run(compiler + [std, "-I", include_dir, "-E", "-dM"] + extra + [source])
    return set(re.findall(r"^#define (\w+)", out, re.M))


# One debugging entry: ` <depth><offset>: Abbrev Number: N (DW_TAG_x)`,
# then its attributes, one per line.
DIE = re.compile(r"^\s*<(\d+)><[0-9a-f]+>: Abbrev Number: \d+ \((DW_TAG_\w+)\)")
ATTRIBUTE = re.compile(r"^\s*<[0-9a-f]+>\s+(DW_AT_\w+)\s*:(.*)$")


def entries(info):
    """The debugging entries of a readelf dump: (depth, tag, {attribute: text})."""
    entry = None
    for line in info.splitlines():
        m = DIE.match(line)
        if m:
            if entry:
                yield entry
            entry = (int(m.group(1)), m.group(2), {})
            continue
        m = ATTRIBUTE.match(line)
        if m and entry:
            entry[2][m.group(1)] = m.group(2).strip()
    if entry:
        yield entry


def declarations(compiler, std, source, include_dir, workdir):
    """Names declared at file scope (depth 1 of the unit), and every
    enumerator. Functions and variables only declared there are the system
    headers' (what the header calls), and base types the language's."""
    program = os.path.join(workdir, os.path.basename(source) + ".out")
    run(compiler + [std, "-I", include_dir] + KEEP_EVERYTHING + [source, "-o", program, "-ldl"])
    names = set()
    for depth, tag, attrs in entries(run(["readelf", "-W", "--debug-dump=info", program])):
        if "DW_AT_name" not in attrs or tag == "DW_TAG_base_type":
            continue
        if depth != 1 and tag != "DW_TAG_enumerator":
            continue
        if tag in ("DW_TAG_subprogram", "DW_TAG_variable") and "DW_AT_declaration" in attrs:
            continue
        # `(strp) (offset: 0x1f): name` or `(string) name`: the name is last.
        names.add(re.split(r"\): |\) ", attrs["DW_AT_name"])[-1].strip())
    return names


def functions(compiler, includes, include_dir, workdir, label):
    """Every function declared, defined or not (gcc -aux-info, C only; the
    header declares the same functions to C++)."""
    source = program("c", includes, workdir, label)
    std = LANGUAGES["c"][0]
    aux = os.path.join(workdir, os.path.basename(source) + ".aux")
    run(compiler + [std, "-I", include_dir, "-c", source, "-o", os.devnull, "-aux-info", aux])
    with open(aux) as f:
        return set(re.findall(r"(\w+) \([^()]*\);$", f.read(), re.M))


def include_line(header):
    """A C++ standard header (no .h, e.g. <initializer_list>) only for C++."""
    line = "#include <%s>\n" % header
    return line if header.endswith(".h") else "#ifdef __cplusplus\n%s#endif\n" % line


def program(language, includes, workdir, label):
    source = os.path.join(workdir, label + LANGUAGES[language][1])
    with open(source, "w") as f:
        f.write("".join(include_line(i) for i in includes))
        f.write("int main(void) { return 0; }\n")
    return source


def names_of(language, compiler, includes, include_dir, workdir, label):
    """Macros, types, enumerators, variables, and the functions defined."""
    std = LANGUAGES[language][0]
    source = program(language, includes, workdir, label)
    found = macros(compiler, std, source, include_dir, [])
    found |= macros(compiler, std, source, include_dir, ["-DBRICKPROF_DISABLE"])
    return found | declarations(compiler, std, source, include_dir, workdir)


def public_part(include_dir, workdir):
    """A copy of brickprof.h without its detail/ includes, in an include
    folder of its own: what the public header itself declares."""
    folder = os.path.join(workdir, "public", "brickprof")
    os.makedirs(folder)
    with open(os.path.join(include_dir, "brickprof", "brickprof.h")) as f:
        text = f.read()
    own = re.sub(r'^\s*#\s*include\s*"brickprof/detail/[^"]+"\s*$', "", text, flags=re.M)
    with open(os.path.join(folder, "brickprof.h"), "w") as f:
        f.write(own)
    return os.path.dirname(folder)


API = re.compile(r"(brickprof|BRICKPROF)_[A-Za-z0-9]")
DETAIL = re.compile(r"(brickprof|BRICKPROF)__")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("include_dir")
    parser.add_argument("--cc", nargs="+", required=True)
    parser.add_argument("--cxx", nargs="+", required=True)
    args = parser.parse_args()
    for compiler in (args.cc, args.cxx):
        if "clang" in run(compiler + ["--version"]).lower():
            print("public_api_names: needs GCC (-aux-info, -fkeep-static-functions); "
                  "%s is clang" % " ".join(compiler))
            return 77
    base_includes = system_includes(args.include_dir)
    problems, api = [], set()
    with tempfile.TemporaryDirectory() as workdir:
        public_dir = public_part(args.include_dir, workdir)
        header = ["brickprof/brickprof.h"]
        base_functions = functions(args.cc, base_includes, args.include_dir, workdir, "base_f")
        whole_functions = functions(args.cc, header, args.include_dir, workdir, "whole_f")
        own_functions = functions(args.cc, header, public_dir, workdir, "own_f")
        for language, compiler in (("c", args.cc), ("c++", args.cxx)):
            tag = language.replace("+", "x")
            base = base_functions | names_of(language, compiler, base_includes, args.include_dir,
                                             workdir, "base_" + tag)
            whole = whole_functions | names_of(language, compiler, header, args.include_dir,
                                               workdir, "whole_" + tag)
            own = own_functions | names_of(language, compiler, header, public_dir, workdir,
                                           "own_" + tag)
            whole, own = whole - base, own - base
            if not own:
                problems.append("%s: found no names in brickprof.h; the scan is broken" % language)
            if not whole - own:
                problems.append("%s: nothing comes from brickprof/detail/ (brickprof.h keeps "
                                "its implementation there)" % language)
            for name in sorted(own):
                if API.match(name):
                    api.add(name)
                else:
                    problems.append("%s: brickprof.h declares %s, which is not an API name "
                                    "(brickprof_, BRICKPROF_)" % (language, name))
            for name in sorted(whole - own):
                if not DETAIL.match(name):
                    problems.append("%s: brickprof/detail/ declares %s, which is not a detail "
                                    "name (brickprof__, BRICKPROF__)" % (language, name))
            for name in sorted(own - whole):
                problems.append("%s: %s is in brickprof.h alone but not with its detail/"
                                % (language, name))
    print("API names (%d): %s" % (len(api), " ".join(sorted(api))))
    for p in problems:
        print("FAIL " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
