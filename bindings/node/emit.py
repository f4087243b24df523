"""Node.js's generated files (koffi, and their TypeScript declarations),
from the shared description (bindings/describe.py); bindings/generate.py
writes them. Not part of the package (package.json's "files" has them not)."""
import re

from describe import NOTE, field_kind, kind, types

# koffi's names of C's types where they are not C's.
SCALAR = {"ssize_t": "int64_t"}

# api.js's tables, each as its comment says.
STRUCTS_DOC = """\
// [name, 'struct' or 'union', [[field, type], ...]]: types as koffi's, 'uint8_t[N]' an
// array, another name a struct or union of this list.
const structs = [
"""

FUNCTIONS_DOC = """\
// [library, prototype, how a failure shows: 'int' negative and errno, 'errno' the
//  value, 'neg' a negative value, 'ptr' NULL and errno, null,
//  [[index of an array parameter, index of its count, C writes it], ...],
//  the symbol version node of ours, the rdma-core release that brought it if a build
//  of ours may lack it]
const functions = [
"""

DTS_HEAD = """\
// The declarations of api.js's functions, structs and constants, as index.js exports
// them (index.d.ts adds the objects).

/** A pointer as koffi gives it: its address, or null. */
export type Pointer = bigint | null;
/** What a void * parameter takes: a pointer, an address, or JS memory (its address). */
export type Memory = Pointer | number | ArrayBuffer | ArrayBufferView;

"""


def node_proto(f):
    """The koffi prototype: a struct C writes is _Out_ (an array of them
    _Inout_: the elements C leaves keep their values, as in C)."""
    arrays = {i for i, _, _, _ in f.arrays}

    def t(ctype, i=None):
        k = kind(ctype)
        if k[0] == "struct":
            return ("" if not k[2] else "_Inout_ " if i in arrays else "_Out_ ") + f"{k[1]} *"
        return {"void": "void", "cstr": "const char *", "outptr": "_Out_ void **",
                "ptr": "void *"}.get(k[0]) or SCALAR.get(k[1], k[1])
    return f"{t(f.ret)} {f.name}({', '.join(f'{t(c, i)} {n}' for i, (c, n) in enumerate(f.params))})"


def api(fns, consts):
    """api.js: the constants, the structs, the functions' table."""
    s = f"// {NOTE}\n'use strict';\n\nconst constants = {{\n"
    s += "".join(f"  {n}: {v},\n" for n, v in consts)
    s += "};\n\n" + STRUCTS_DOC
    for t in types():
        fl = ", ".join(f"['{f}', '{'void *' if ft == 'ptr' else re.sub('^(struct|union) ', '', ft)}']"
                       for f, ft in t.fields)
        s += f"  ['{t.name}', '{t.keyword}', [{fl}]],\n"
    s += "];\n\n" + FUNCTIONS_DOC
    for f in fns:
        err = f"'{f.error}'" if f.error else "null"
        arrays = "[" + ", ".join(f"[{i}, {c}, {str(out).lower()}]" for i, c, _, out in f.arrays) + "]"
        version = f"'{f.version}'" if f.version else "null"
        note = f"  // {f.note}" if f.note else ""
        since = f", {f.since}" if f.since else ""
        s += f"  ['{f.lib}', '{node_proto(f)}', {err}, {arrays}, {version}{since}],{note}\n"
    s += "];\n\n// The functions giving a network-order value in host order: {name: its C function}.\n"
    s += "const hostOrder = { " + ", ".join(f"{f.host}: '{f.name}'" for f in fns if f.host) + " };\n"
    return s + "\nmodule.exports = { constants, structs, functions, hostOrder };\n"


def ts_scalar(t):
    return "number | bigint" if t in ("uint64_t", "size_t", "ssize_t") else "number"


def ts_param(f, i, ctype):
    k = kind(ctype)
    if k[0] == "scalar":
        return ts_scalar(k[1])
    if k[0] == "cstr":
        return "string | null"
    if k[0] == "outptr":
        return "Pointer[]"
    if k[0] == "struct":
        if i in {j for j, _, _, _ in f.arrays}:
            return f"Partial<{k[1]}>[]"
        return f"Partial<{k[1]}>" if k[2] else f"Partial<{k[1]}> | Memory"
    return "Memory"


def ts_return(ctype):
    k = kind(ctype)
    return {"void": "void", "cstr": "string | null", "ptr": "Pointer", "outptr": "Pointer",
            "struct": "Pointer"}.get(k[0]) or ts_scalar(k[1])


def ts_field(ftype):
    k = field_kind(ftype)
    if k[0] == "scalar":
        return ts_scalar(k[1])
    if k[0] == "ptr":
        return "Pointer"
    if k[0] == "bytes":
        return "number[]"
    return f"Partial<{k[1]}>"


def api_dts(fns, consts):
    """api.d.ts: the declarations of api.js's functions, structs and
    constants, as index.js exports them (index.d.ts adds the rest)."""
    s = f"// {NOTE}\n" + DTS_HEAD
    for n, v in consts:
        s += f"export declare const {n}: {v};\n"
    s += "\n"
    for t in types():
        s += f"/** {t.c.replace('__typeof__', 'typeof')}{' (a union: an object of one member)' if t.union else ''} */\n"
        s += f"export interface {t.name} {{\n"
        s += "".join(f"  {f}{'?' if t.union else ''}: {ts_field(ft)};\n" for f, ft in t.fields)
        s += "}\n"
    sigs = []
    for f in fns:
        params = ", ".join(f"{n}: {ts_param(f, i, c)}" for i, (c, n) in enumerate(f.params))
        doc = f"  /** {f.note} */\n" if f.note else ""
        sigs.append((doc, f"{f.name}({params}): {ts_return(f.ret)}"))
    s += "\n/** The functions as C has them, unchecked (rv.raw). */\nexport interface RawFunctions {\n"
    s += "".join(f"{doc}  {sig};\n" for doc, sig in sigs) + "}\n\n"
    s += "// Each function, its failure thrown as RdmaVerbsError (index.js).\n"
    s += "".join(f"{doc.replace('  /**', '/**')}export declare function {sig};\n" for doc, sig in sigs)
    s += "".join(f"/** {f.name}'s value in host order. */\nexport declare function {f.host}("
                 + ", ".join(f"{n}: {ts_param(f, i, c)}" for i, (c, n) in enumerate(f.params))
                 + "): number;\n" for f in fns if f.host)
    return s


# The files this writes, relative to bindings/node, and the function
# writing each (of the functions and the constants).
FILES = {
    "api.js": api,
    "api.d.ts": api_dts,
}
