"""python3 -m brickprof export|sql (what `brickprof export` and `brickprof sql` run)."""
import sys

from ._cli import main

# Guarded: a local Dask cluster's workers start as new processes that import
# the main module again.
if __name__ == "__main__":
    sys.exit(main())
