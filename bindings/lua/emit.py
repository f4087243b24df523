"""LuaJIT's generated file (ffi), from the shared description
(bindings/describe.py); bindings/generate.py writes it. Not part of the
rock (the rockspec's build.modules lists the modules it installs)."""
from string import Template

from describe import NOTE, field_kind, kind, types

HEAD = """\
-- What rdmaverbs.lua declares and binds: the structs, the functions, the
-- constants (rdmaverbs.api).

-- {name, "struct" or "union", its declaration, {field, ...}}
local STRUCTS = {
"""

FUNCTIONS_DOC = """\
-- {library, name, declaration, how a failure shows: "int" negative and errno,
--  "errno" the value, "neg" a negative value, "ptr" NULL and errno, false,
--  {{index of an array parameter, index of its count, its struct, C writes it}, ...},
--  returns a C string, the symbol version node of ours, its function pointer type,
--  the rdma-core release that brought it if a build of ours may lack it}
local FUNCTIONS = {
"""

# A row of each table.
STRUCT = Template('  {"$name", "$keyword", "$decl };", {$names}},\n')
FUNCTION = Template('  {"$lib", "$name", "$decl", $err, {$arrays}, $text, $version,\n   $pointer$since},$note\n')
ARRAY = Template('{$array, $count, "$st", $out}')
CONSTANT = Template('  {"$name", $value},\n')

TAIL = """
return { STRUCTS = STRUCTS, FUNCTIONS = FUNCTIONS, HOST_ORDER = HOST_ORDER, CONSTANTS = CONSTANTS }
"""


def lua_decl(ctype, name=""):
    k = kind(ctype)
    t = {"void": "void", "cstr": "const char *", "outptr": "void **", "ptr": "void *"}.get(k[0])
    if t is None:
        t = f"struct {k[1]} *" if k[0] == "struct" else k[1]
    return f"{t}{' ' if name and not t.endswith('*') else ''}{name}"


def api(fns, consts):
    """rdmaverbs/api.lua: the structs, the functions' table, the constants."""
    s = f"-- {NOTE}\n" + HEAD
    for t in types():
        decl = f"{t.keyword} {t.name} " + "{"
        for f, ft in t.fields:
            k = field_kind(ft)
            decl += " " + {"scalar": lambda: f"{k[1]} {f};", "ptr": lambda: f"void *{f};",
                           "bytes": lambda: f"uint8_t {f}[{k[1]}];",
                           "struct": lambda: f"struct {k[1]} {f};",
                           "union": lambda: f"union {k[1]} {f};"}[k[0]]()
        names = ", ".join(f'"{f}"' for f, _ in t.fields)
        s += STRUCT.substitute(name=t.name, keyword=t.keyword, decl=decl, names=names)
    s += "}\n\n" + FUNCTIONS_DOC
    for f in fns:
        args = ", ".join(lua_decl(t, n) for t, n in f.params)
        ret = lua_decl(f.ret)
        decl = f"{ret}{'' if ret.endswith('*') else ' '}{f.name}({args});"
        err = f'"{f.error}"' if f.error else "false"
        arrays = ", ".join(ARRAY.substitute(array=i + 1, count=c + 1, st=st, out=str(out).lower())
                           for i, c, st, out in f.arrays)
        version = f'"{f.version}"' if f.version else "false"
        pointer = f'"{ret} (*)({args or "void"})"' if f.version else "false"
        note = f"  -- {f.note}" if f.note else ""
        since = f", {f.since}" if f.since else ""
        s += FUNCTION.substitute(lib=f.lib, name=f.name, decl=decl, err=err, arrays=arrays,
                                 text=str(f.text).lower(), version=version, pointer=pointer,
                                 since=since, note=note)
    s += "}\n\n-- The functions giving a network-order value in host order: {name = its C function}.\n"
    s += "local HOST_ORDER = { " + ", ".join(f'{f.host} = "{f.name}"' for f in fns if f.host) + " }\n"
    s += "\nlocal CONSTANTS = {\n"
    s += "".join(CONSTANT.substitute(name=n, value=v) for n, v in consts)
    return s + "}\n" + TAIL


# The files this writes, relative to bindings/lua, and the function
# writing each (of the functions and the constants).
FILES = {
    "rdmaverbs/api.lua": api,
}
