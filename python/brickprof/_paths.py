"""Where the installed package keeps the agent."""
import os


def agent_path():
    """The agent library inside this package (what `brickprof run` preloads)."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "libbrickprof.so")
