"""libkshark, KernelShark 2.x's library, through ctypes: every entry of a
trace.dat as KernelShark loads it, for the checkers of trace.dat exports
(check_tracedat.py, and the kernel stream's check_kernel_export.py)."""
import collections
import ctypes
import ctypes.util


class KsEntry(ctypes.Structure):
    # struct kshark_entry of KernelShark 2.x (libkshark.h)
    pass


KsEntry._fields_ = [("next", ctypes.POINTER(KsEntry)), ("visible", ctypes.c_uint16),
                    ("stream_id", ctypes.c_int16), ("event_id", ctypes.c_int16),
                    ("cpu", ctypes.c_int16), ("pid", ctypes.c_int32),
                    ("offset", ctypes.c_int64), ("ts", ctypes.c_int64)]

Entry = collections.namedtuple("Entry", "ts pid cpu event_id name")


def load_entries(dat):
    """Every entry of trace.dat dat, in KernelShark's order, an Entry each
    (name: its event's, as "system/event"); None if libkshark is not
    installed.  Raises RuntimeError if it cannot open or load dat."""
    try:
        ks = ctypes.CDLL(ctypes.util.find_library("kshark") or "libkshark.so.2")
    except OSError:
        return None
    ks.kshark_instance.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    ks.kshark_instance.restype = ctypes.c_bool
    ks.kshark_open.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    ks.kshark_load_entries.argtypes = [ctypes.c_void_p, ctypes.c_int,
                                      ctypes.POINTER(ctypes.POINTER(ctypes.POINTER(KsEntry)))]
    ks.kshark_load_entries.restype = ctypes.c_ssize_t
    ks.kshark_get_event_name.argtypes = [ctypes.POINTER(KsEntry)]
    ks.kshark_get_event_name.restype = ctypes.c_char_p
    ctx = ctypes.c_void_p()
    if not ks.kshark_instance(ctypes.byref(ctx)):
        raise RuntimeError("kshark_instance failed")
    try:
        sd = ks.kshark_open(ctx, dat.encode())
        if sd < 0:
            raise RuntimeError("kshark_open: %d" % sd)
        rows = ctypes.POINTER(ctypes.POINTER(KsEntry))()
        n = ks.kshark_load_entries(ctx, sd, ctypes.byref(rows))
        out = []
        for i in range(max(n, 0)):
            e = rows[i]
            name = ks.kshark_get_event_name(e)
            out.append(Entry(e.contents.ts, e.contents.pid, e.contents.cpu, e.contents.event_id,
                             name.decode() if name else "?"))
        return out
    finally:
        ks.kshark_close_all(ctx)
        ks.kshark_free(ctx)
