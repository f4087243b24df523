"""Python's generated files (ctypes), from the shared description
(bindings/describe.py); bindings/generate.py writes them. Not part of the
package (pyproject.toml ships rdmaverbs/ alone)."""
import keyword

from describe import NOTE, field_kind, kind, types

SCALAR = {"int": "C.c_int", "uint8_t": "C.c_uint8", "uint16_t": "C.c_uint16",
          "uint32_t": "C.c_uint32", "uint64_t": "C.c_uint64", "size_t": "C.c_size_t",
          "ssize_t": "C.c_ssize_t"}


def py_type(ctype):
    k = kind(ctype)
    return {"void": "None", "cstr": "C.c_char_p", "outptr": "C.POINTER(C.c_void_p)",
            "ptr": "C.c_void_p"}.get(k[0]) or (SCALAR[k[1]] if k[0] == "scalar" else
                                                 f"C.POINTER({k[1]})")


def py_field(ftype):
    k = field_kind(ftype)
    return {"ptr": "C.c_void_p"}.get(k[0]) or {"scalar": lambda: SCALAR[k[1]],
                                               "bytes": lambda: f"C.c_uint8 * {k[1]}",
                                               "struct": lambda: k[1], "union": lambda: k[1]}[k[0]]()


FUNCTIONS_DOC = """\
# (library, name, restype, argtypes, how a failure shows: 'int' -1 and errno, 'errno' the
#  value, 'neg' a negative value, 'ptr' NULL and errno, None,
#  [(index of an array parameter, index of its count, its struct's name, C writes it)],
#  a note, the symbol version node of ours, the rdma-core release that brought it if a
#  build of ours may lack it)
FUNCTIONS = [
"""


def api(fns, consts):
    """rdmaverbs/_api.py: the constants, the structs, the functions' table."""
    s = f'"""{NOTE}"""\n# flake8: noqa\nimport ctypes as C\n\n'
    s += "".join(f"{n} = {v}\n" for n, v in consts)
    s += f"\nCONSTANTS = {[n for n, _ in consts]!r}\n"
    for t in types():
        base = "C.Union" if t.union else "C.Structure"
        s += f"\n\nclass {t.name}({base}):\n    _fields_ = [\n"
        s += "".join(f'        ("{f}", {py_field(ft)}),\n' for f, ft in t.fields)
        s += "    ]\n"
    s += f"\n\nSTRUCTS = [{', '.join(t.name for t in types())}]\n\n"
    s += FUNCTIONS_DOC
    for f in fns:
        args = ", ".join(py_type(t) for t, _ in f.params)
        s += f'    ("{f.lib}", "{f.name}", {py_type(f.ret)}, [{args}], {f.error!r}, {f.arrays!r}, ' \
             f'{f.note!r}, {f.version!r}, {f.since!r}),\n'
    s += "]\n\n# The functions giving a network-order value in host order: {name: its C function}.\n"
    s += "HOST_ORDER = {" + ", ".join(f'"{f.host}": "{f.name}"' for f in fns if f.host) + "}\n"
    return s


STUB_HEAD = '''
The raw layer\'s functions as type checkers see them (rdmaverbs/__init__.py
makes them at import)."""
from typing import Any, Optional

# An address: an int, None, a ctypes object (passed by reference where C
# takes a pointer to it), ctypes.byref() of one, or a list for an array.
Pointer = Any
'''

STUB_RAW = '''

class raw:
    """The ctypes functions themselves: C results, errno left in ctypes.get_errno()."""
'''


def stub(fns, consts):
    """rdmaverbs/_functions.pyi: the raw layer's functions, which __init__.py
    makes at import, as type checkers read them (rdmaverbs has py.typed)."""

    def param(ctype):
        return {"scalar": "int", "cstr": "Optional[bytes]"}.get(kind(ctype)[0], "Pointer")

    def ret(f):
        k = kind(f.ret)[0]
        if k == "void":
            return "None"
        if k == "cstr":
            return "str"
        if k == "scalar":
            return "int"
        return "int" if f.error == "ptr" else "Optional[int]"

    s = f'"""{NOTE}\n' + STUB_HEAD
    for f in fns:
        args = ", ".join(f"{n + '_' if keyword.iskeyword(n) else n}: {param(t)}" for t, n in f.params)
        s += f"\n\ndef {f.name}({args + ', /' if args else ''}) -> {ret(f)}: ...\n"
        if f.host:
            s += f"\n\ndef {f.host}({args + ', /' if args else ''}) -> int: ...\n"
    s += STUB_RAW
    s += "".join(f"    {f.name}: Any\n" for f in fns)
    return s


# The files this writes, relative to bindings/python, and the function
# writing each (of the functions and the constants).
FILES = {
    "rdmaverbs/_api.py": api,
    "rdmaverbs/_functions.pyi": stub,
}
