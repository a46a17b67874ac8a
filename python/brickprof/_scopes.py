"""Scopes for Python code: layer(i), brick(id_or_name, elements), scope(name).

Each is a context manager and a decorator. They go through the public C
header's scope API (compiled into brickprof._native), so a scope costs a
call into C and two timestamps while the agent records, and a call and a
branch when no agent is loaded.
"""
import enum
import functools

from . import _native

Brick = enum.IntEnum("Brick", [(name, i) for i, name in enumerate(_native.brick_names())])
Brick.__doc__ = "The well-known bricks (categories Norm, Attention, FFN, Other)."

_sites = {}  # (kind, brick, name) -> call-site handle, one per distinct scope
_push = _native.push
_pop = _native.pop


def _site(kind, brick_id, name):
    key = (kind, brick_id, name)
    site = _sites.get(key)
    if site is None:
        site = _sites[key] = _native.site(kind, brick_id, name)
    return site


class _Scope:
    """An open-able scope: `with` opens it, or it wraps a function."""

    __slots__ = ("_site", "_arg", "_how")

    def __init__(self, site, arg):
        self._site = site
        self._arg = arg
        self._how = 0

    def __enter__(self):
        self._how = _push(self._site, self._arg)
        return self

    def __exit__(self, *exc):
        if self._how:
            _pop(self._how)
        return False

    def __call__(self, fn):
        site, arg = self._site, self._arg

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            how = _push(site, arg)
            try:
                return fn(*args, **kwargs)
            finally:
                if how:
                    _pop(how)

        return wrapper


def scope(name):
    """A named scope (any stretch of code worth its own line in the tree)."""
    return _Scope(_site(_native.KIND_SCOPE, _native.BRICK_CUSTOM, str(name)), 0)


def layer(index):
    """Model layer `index`."""
    return _Scope(_site(_native.KIND_LAYER, _native.BRICK_CUSTOM, None), int(index))


def brick(id_or_name, elements=0):
    """A brick over `elements` elements: a well-known one (a Brick, its id,
    or its exact name such as "RmsNorm"), or a custom one by name."""
    if isinstance(id_or_name, str) and id_or_name in Brick.__members__:
        id_or_name = Brick[id_or_name]
    if isinstance(id_or_name, int):
        known = Brick(id_or_name)  # ValueError for an id that is not one
        return _Scope(_site(_native.KIND_BRICK, int(known), None), int(elements))
    return _Scope(_site(_native.KIND_BRICK, _native.BRICK_CUSTOM, str(id_or_name)), int(elements))


def add_work(flops, bytes_moved):
    """Adds FLOPs and bytes moved to the innermost open scope (the roofline)."""
    _native.add_work(float(flops), float(bytes_moved))


def counter(name, value):
    """A sample of the program's counter `name` (an L2 hit rate it measured, a batch size): a
    track of its own in the trace, under the innermost open scope. A value that is not finite is
    dropped and counted."""
    _native.counter(str(name), float(value))


def tokens(n):
    """`n` tokens produced now; `brickprof report --tokens` gives tokens per second over the
    outermost scopes they were reported in, and each brick's time per token."""
    _native.tokens(int(n))


def is_enabled():
    """True when the agent is loaded and recording."""
    return _native.is_enabled()


def set_enabled(on):
    """The program's own switch: recording on (within BRICKPROF_CAPTURE) or off."""
    _native.set_enabled(bool(on))
