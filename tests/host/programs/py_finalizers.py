"""Finalizers and GPU launches: cyclic garbage (freed only by the collector)
made before each launch, with the collector run at nearly every allocation
(gc.set_threshold(1)), counting the __del__ calls that run while a launch is
in progress. Only the program's own allocations (ctypes converting the
arguments) may run them there: the count must be the same with and
without the agent."""
import gc

import fake_cuda

LAUNCHES = 400
in_launch = False
inside = 0
finalized = 0


class Cycle:
    def __init__(self):
        self.me = self

    def __del__(self):
        global inside, finalized
        finalized += 1
        inside += in_launch


def launch_from_a_stack(gpu, levels):
    global in_launch
    if levels:
        return launch_from_a_stack(gpu, levels - 1)
    Cycle()
    in_launch = True
    gpu.launch()
    in_launch = False


def main():
    gpu = fake_cuda.Gpu(True)  # PyDLL: the GIL held, as the agent's old reader needed it
    gc.set_threshold(1)
    for _ in range(LAUNCHES):
        launch_from_a_stack(gpu, 8)
    gc.set_threshold(700)
    gpu.finish()
    gc.collect()
    print(f"finalizers run inside launches: {inside} of {finalized}")


main()
