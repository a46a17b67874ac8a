"""The brickprof scope API from Python through ctypes, for the Python host
cases: scope(name) records a scope when the agent is loaded and does nothing
when it is not (as the C header does)."""
import contextlib
import ctypes

SCOPE = 2  # brickprof_kind: BRICKPROF_KIND_SCOPE
ABI_VERSION = 2


class _Api(ctypes.Structure):
    # The head of brickprof__api_table (include/brickprof/detail/abi.h); the
    # table only ever grows at its end.
    _fields_ = [
        ("abi_version", ctypes.c_uint32),
        ("size", ctypes.c_uint32),
        ("push", ctypes.c_void_p),
        ("push_name", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int32, ctypes.c_char_p,
                                       ctypes.c_uint64)),
        ("pop", ctypes.CFUNCTYPE(None)),
    ]


def _find_api():
    try:
        get = ctypes.CDLL(None).brickprof_get_api
    except AttributeError:
        return None
    get.restype = ctypes.POINTER(_Api)
    get.argtypes = [ctypes.c_uint32]
    table = get(ABI_VERSION)
    return table.contents if table else None


_API = _find_api()


@contextlib.contextmanager
def scope(name):
    pushed = _API is not None and _API.push_name(SCOPE, name.encode(), 0)
    try:
        yield
    finally:
        if pushed:
            _API.pop()


def record(name, count):
    for _ in range(count):
        with scope(name):
            pass
