"""Ways out of a Python program: sys.exit, os._exit, an uncaught
exception, os.abort."""
import os
import sys

import bp

bp.record("python main", 20)
how = sys.argv[1]
print("leaving by", how, flush=True)
if how == "sys.exit":
    sys.exit(7)
elif how == "os._exit":
    os._exit(5)
elif how == "exception":
    raise ValueError("uncaught on purpose")
elif how == "os.abort":
    os.abort()
