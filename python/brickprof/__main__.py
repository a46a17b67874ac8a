"""python3 -m brickprof export|sql (what `brickprof export` and `brickprof sql` run)."""
import sys

from ._cli import main

sys.exit(main())
