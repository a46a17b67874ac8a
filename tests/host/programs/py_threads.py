"""Python threads recording through ctypes, one still recording (a daemon)
when the interpreter exits."""
import threading

import bp


def work(count):
    bp.record("python thread", count)


def forever(started):
    started.set()
    while True:
        bp.record("python daemon", 16)


threads = [threading.Thread(target=work, args=(500,)) for _ in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
bp.record("python main", 10)
# Then one that records until the interpreter is gone.
started = threading.Event()
threading.Thread(target=forever, args=(started,), daemon=True).start()
started.wait()
print(f"{len(threads)} python threads joined, a daemon thread recording")
