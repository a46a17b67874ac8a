"""A multiprocessing Pool with the start method named in argv[1] (fork,
spawn or forkserver) that maps and exits. A pool that does not answer in
time is a failure, not a hang: it says so and leaves at once."""
import multiprocessing
import os
import sys

import bp


def square(x):
    with bp.scope("pool task"):
        return x * x


if __name__ == "__main__":
    method = sys.argv[1]
    timeout = float(sys.argv[2]) if len(sys.argv) > 2 else 20
    context = multiprocessing.get_context(method)
    with bp.scope("pool"):
        pool = context.Pool(2)
        try:
            results = pool.map_async(square, range(20)).get(timeout=timeout)
        except multiprocessing.TimeoutError:
            print(f"{method} pool: no answer within {timeout:g} s", flush=True)
            os._exit(3)
        pool.close()
        pool.join()
    print(f"{method} pool: sum of squares {sum(results)}")
