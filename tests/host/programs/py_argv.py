"""Prints its arguments as bytes: Latin-1 in argv must arrive unchanged."""
import os
import sys

for arg in sys.argv[1:]:
    print(os.fsencode(arg).hex(), repr(arg))
