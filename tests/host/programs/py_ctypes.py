"""ctypes: libc called directly (getpid, qsort calling back into Python),
beside scopes recorded through the agent's table."""
import ctypes
import os

import bp

libc = ctypes.CDLL(None)
print("getpid matches:", libc.getpid() == os.getpid())

values = (ctypes.c_int * 8)(5, 3, 8, 1, 9, 2, 7, 4)
COMPARE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int))


def compare(a, b):
    with bp.scope("qsort callback"):
        return a[0] - b[0]


libc.qsort(values, len(values), ctypes.sizeof(ctypes.c_int), COMPARE(compare))
print("sorted:", list(values))
bp.record("python main", 10)
