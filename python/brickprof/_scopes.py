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

    `array` is either a C-contiguous object with the buffer protocol in host
    memory (a numpy array, array.array, bytes, a memoryview), or one in GPU
    memory with `__cuda_array_interface__` (a CUDA torch tensor, a CuPy or
    Numba array): the agent copies that to the host once the GPU's work
    queued so far is done. Its element type comes from its format (float32,
    float64, float16, int8/32/64, uint8; others are digested as bytes)
    unless `dtype` says otherwise ("bf16" for bfloat16 bits held in a
    16-bit integer array, e.g. `t.view(torch.int16)`). The digest is taken
    before this returns; nothing is recorded when no agent records.
    """
    asked = None if dtype is None else str(dtype)
    device = _cuda_array(array)
    if device is None:
        _native.checksum(str(name), array, asked)
    else:
        address, nbytes, its_dtype = device
        _native.checksum_address(str(name), address, nbytes, asked or its_dtype)


# __cuda_array_interface__'s type codes (after the byte order) that a digest reads as numbers.
_CUDA_ARRAY_TYPES = {"f4": "f32", "f8": "f64", "f2": "f16", "i4": "i32", "i8": "i64",
                     "i1": "i8", "u1": "u8", "b1": "u8"}


def _cuda_array(array):
    """(address, bytes, dtype or None) of an array in GPU memory, or None for any other
    object. The interface is Numba's (version 2 and 3), which PyTorch and CuPy implement."""
    try:
        interface = array.__cuda_array_interface__
    except AttributeError:
        return None
    shape = tuple(int(n) for n in interface["shape"])
    typestr = interface["typestr"]
    itemsize = int(typestr[2:])
    count = 1
    for n in shape:
        count *= n
    strides = interface.get("strides")
    if strides is not None and count > 1:
        expected = itemsize
        for n, stride in reversed(list(zip(shape, strides))):
            if n > 1 and stride != expected:
                raise ValueError("brickprof.checksum: the CUDA array is not C-contiguous "
                                 "(strides %r); digest a contiguous copy" % (tuple(strides),))
            expected *= n
    if interface.get("mask") is not None:
        raise ValueError("brickprof.checksum: a masked CUDA array cannot be digested")
    little = typestr[0] in "<|="
    return (int(interface["data"][0]), count * itemsize,
            _CUDA_ARRAY_TYPES.get(typestr[1:]) if little else None)


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
