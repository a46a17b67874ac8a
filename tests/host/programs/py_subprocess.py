"""Python's subprocess: run, check_output and Popen with pipes."""
import subprocess
import sys

import bp

with bp.scope("subprocess"):
    child = subprocess.run([sys.executable, "-c", "print('child python')"],
                           capture_output=True, text=True, check=True)
    print("run:", child.stdout.strip())
    print("check_output:", subprocess.check_output(["sh", "-c", "echo from sh; exit 0"],
                                                   text=True).strip())
    proc = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    out, _ = proc.communicate("through cat\n")
    print("Popen:", out.strip(), "status", proc.returncode)
    failed = subprocess.run(["sh", "-c", "exit 4"])
    print("failed child status", failed.returncode)
