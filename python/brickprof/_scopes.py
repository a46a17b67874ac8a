"""Scopes for Python code: layer(i), brick(id_or_name, elements), scope(name);
memory a Python allocator hands out (mem_alloc, mem_free) and the shapes of
the innermost scope (set_shapes).

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


def checksum(name, array, dtype=None):
    """Attaches to the innermost open scope a digest of `array`, an output
    this code computed, so `brickprof diff --outputs` can line two runs up
    and name the first scope whose outputs differ.

    `array` is any C-contiguous object with the buffer protocol in host
    memory: a numpy array, array.array, bytes, a memoryview (a torch tensor:
    `t.detach().cpu().numpy()`). Its element type comes from its format
    (float32, float64, float16, int8/32/64, uint8; others are digested as
    bytes) unless `dtype` says otherwise ("bf16" for bfloat16 bits held in
    a uint16 array). The digest is taken before this returns; nothing is
    recorded when no agent records.
    """
    _native.checksum(str(name), array, None if dtype is None else str(dtype))


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


def mem_alloc(ptr, nbytes, pool=None):
    """Reports `nbytes` at address `ptr` (an int, e.g. a tensor's data_ptr())
    handed out by your allocator from `pool` (a name such as "kv_cache");
    the trace shows it under the open scope and this Python line, beside
    what the driver reserved. Pair it with mem_free(ptr, pool)."""
    _native.mem_alloc(int(ptr), int(nbytes), None if pool is None else str(pool))


def mem_free(ptr, pool=None):
    """Reports that the bytes mem_alloc() reported at `ptr` went back to `pool`."""
    _native.mem_free(int(ptr), None if pool is None else str(pool))


def set_shapes(dtype, inputs, output):
    """Attaches an element type ("f32", "bf16", ...) and shapes to the
    innermost open scope: `inputs` a list of shapes, `output` one shape,
    each a sequence of ints, e.g. set_shapes("f32", [(1, 4096), (4096, 4096)], (1, 4096))."""
    _native.set_shapes(str(dtype), [tuple(int(d) for d in s) for s in inputs],
                       tuple(int(d) for d in output))
