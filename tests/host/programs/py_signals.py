"""Python and signals: the KeyboardInterrupt a Ctrl-C raises and the
cleanup it runs, what signal.getsignal reports, a SIGTERM handler, SIGINT
raised by the program itself."""
import os
import signal
import sys
import time

import bp


def wait_for_interrupt():
    try:
        bp.record("python main", 20)
        print("ready", flush=True)
        while True:
            time.sleep(0.05)
    except KeyboardInterrupt:
        print("KeyboardInterrupt: cleanup ran", flush=True)
    finally:
        print("finally ran", flush=True)


def show_handlers():
    for sig in sorted(signal.valid_signals()):
        if sig >= signal.SIGRTMIN or sig in (signal.SIGKILL, signal.SIGSTOP):
            continue
        handler = signal.getsignal(sig)
        shown = getattr(handler, "__name__", None) or str(handler)
        print(f"{signal.Signals(sig).name}: {shown}")


def default_then_show():
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    print("after SIG_DFL:", signal.getsignal(signal.SIGINT))


def on_term(sig, frame):
    print("SIGTERM handled", flush=True)
    sys.exit(0)


def handle_term():
    signal.signal(signal.SIGTERM, on_term)
    bp.record("python main", 20)
    print("ready", flush=True)
    while True:
        time.sleep(0.05)


def interrupt_self():
    try:
        bp.record("python main", 20)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)
        print("no KeyboardInterrupt")
    except KeyboardInterrupt:
        print("own SIGINT raised KeyboardInterrupt")


{"sigint": wait_for_interrupt, "getsignal": show_handlers, "sig-dfl": default_then_show,
 "sigterm-handler": handle_term, "self-sigint": interrupt_self}[sys.argv[1]]()
