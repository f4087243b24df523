"""C#'s generated file (P/Invoke, Mono), from the shared description
(bindings/describe.py); bindings/generate.py writes it. Not part of the
NuGet package (RdmaVerbs.nuspec lists the .dll and its XML alone)."""
from string import Template

from describe import NOTE, field_kind, kind, type_of, types, unsigned_count

SCALAR = {"int": "int", "uint8_t": "byte", "uint16_t": "ushort", "uint32_t": "uint",
          "uint64_t": "ulong", "size_t": "ulong", "ssize_t": "long"}

# C# keywords that are C names here: written @NAME (the name stays NAME).
KEYWORDS = {"event", "params", "ref", "out", "object", "string", "base", "lock", "fixed"}

# A failure of each kind (api.ERRORS), for a C# result r.
BAD = {"int": "r < 0", "ptr": "r == IntPtr.Zero", "errno": "r != 0", "neg": "r < 0"}

FAILS = {
    "int": "a failure (a negative value) throws RdmaVerbsException (the errno left).",
    "ptr": "a failure (NULL) throws RdmaVerbsException (the errno left).",
    "errno": "a failure (an errno value returned) throws RdmaVerbsException (that errno).",
    "neg": "a failure (a negative value) throws RdmaVerbsException (minus that value).",
}

HEAD = """\
using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace RdmaVerbs
{
"""

NATIVE = """\
    /// <summary>The C functions, with their C types (a failure's errno: Marshal.GetLastWin32Error(),
    /// or LastErrno for those found by their version).</summary>
    public static partial class Native
    {
"""

# A DllImport is looked up by name (dlsym), which finds no non-default
# version: dlvsym, and a delegate; errno, where a failure leaves it, read
# only after a failure (LastErrno). $body: the call.
BOUND = Template("""\
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        delegate $rt ${name}_fn($params);
        static ${name}_fn ${name}_at;
        /// <summary>$name@$version, found by dlvsym; $said.</summary>
        public static $rt $name($params)
        {
            if (${name}_at == null)
                ${name}_at = Bind<${name}_fn>("$name", "$version"$since);
$body        }
""")

SETS_ERRNO = Template("""\
            IntPtr errno = ErrnoAt();
            $rt r = ${name}_at($args);
            if ($bad)
                LastErrno = Marshal.ReadInt32(errno);
            return r;
""")

RDMA = """\
    }

    public static partial class Rdma
    {
"""

VERSIONS = """
        /// <summary>librdmaverbs' functions and their symbol version nodes, and whether
        /// each is found by its version only (non-default: Native binds it with dlvsym) or
        /// by its name too (a DllImport).</summary>
        public static readonly Tuple<string, string, bool>[] Versions = {
"""

TOO_LONG = Template("""\
            if ($array != null && $count > $length)
                throw new ArgumentException("$name: $count is " + $count + " but $array has " + $array.Length + " elements", "$count");
""")

HOST = Template("""
        /// <summary>$name's value in host order; it cannot fail.</summary>
        public static ushort $host($params)
        {
            ushort r = $name($args);
            return BitConverter.IsLittleEndian ? (ushort)((r >> 8) | (r << 8)) : r;
        }
""")

CHECKED = """\
    }

    /// <summary>Each call, its errno read right after it.</summary>
    static class Checked
    {"""


def cs_name(name):
    return "@" + name if name in KEYWORDS else name


def cs_param(ctype, name, array=False):
    name = cs_name(name)
    k = kind(ctype)
    if k[0] == "struct":
        # An array (api.ARRAYS): Mono pins a blittable struct array and
        # passes its address, the elements contiguous as C lays them out
        # (and C's writes there are the array's).
        return f"[{'In, Out' if k[2] else 'In'}] {k[1]}[] {name}" if array else f"ref {k[1]} {name}"
    return {"cstr": f"string {name}", "outptr": f"out IntPtr {name}",
            "ptr": f"IntPtr {name}"}.get(k[0]) or f"{SCALAR[k[1]]} {name}"


def cs_params(f):
    arrays = {i for i, _, _, _ in f.arrays}
    return ", ".join(cs_param(t, n, i in arrays) for i, (t, n) in enumerate(f.params))


def cs_args(f):
    """The arguments of a call with f's parameters: each name, after `ref`
    or `out` where its parameter has one."""
    arrays = {i for i, _, _, _ in f.arrays}
    words = (cs_param(t, n, i in arrays).split() for i, (t, n) in enumerate(f.params))
    return ", ".join((w[0] + " " if w[0] in ("ref", "out") else "") + w[-1] for w in words)


def cs_ret(ctype):
    """The return type of a declaration of Native: a C string is an IntPtr
    (as a string, Mono's marshalling would free C's static string)."""
    k = kind(ctype)
    return {"void": "void", "ptr": "IntPtr", "cstr": "IntPtr"}.get(k[0]) or SCALAR[k[1]]


def cs_doc(f):
    note = f": {f.note}" if f.note else ""
    if f.error:
        return f"{f.name}, as in C{note}; {FAILS[f.error]}"
    return f"{f.name}, as in C{note}; it throws nothing."


def structs():
    s = ""
    for t in types():
        doc = t.c if "." not in t.path else \
            f"{t.path}: a {t.keyword} declared inside {type_of(t.path.split('.')[0]).c}"
        # A union: every member at offset 0; its bytes a fixed buffer (an
        # array, a reference, may not overlap the other members).
        fixed = t.union and any(field_kind(ft)[0] == "bytes" for _, ft in t.fields)
        s += f"    /// <summary>{doc}.</summary>\n"
        s += f"    [StructLayout(LayoutKind.{'Explicit' if t.union else 'Sequential'})]\n"
        s += f"    public {'unsafe ' if fixed else ''}struct {t.name}\n    {{\n"
        at = "[FieldOffset(0)] " if t.union else ""
        for f, ft in t.fields:
            k = field_kind(ft)
            if k[0] == "bytes" and t.union:
                s += f"        {at}public fixed byte {f}[{k[1]}];\n"
            elif k[0] == "bytes":
                s += f"        [MarshalAs(UnmanagedType.ByValArray, SizeConst = {k[1]})]\n"
                s += f"        public byte[] {f};\n"
            else:
                ty = {"scalar": lambda: SCALAR[k[1]], "ptr": lambda: "IntPtr",
                      "struct": lambda: k[1], "union": lambda: k[1]}[k[0]]()
                s += f"        {at}public {ty} {cs_name(f)};\n"
        s += "    }\n\n"
    return s


def native(f):
    """f's declaration in Native: a DllImport, or (found by its version
    only) a delegate bound by dlvsym."""
    args, rt = cs_params(f), cs_ret(f.ret)
    if not f.version_only:
        return f'        [DllImport("lib{f.lib}.so.1", SetLastError = true)]\n' \
               f"        public static extern {rt} {f.name}({args});\n"
    sets_errno = f.error in ("int", "ptr")
    if sets_errno:
        body = SETS_ERRNO.substitute(rt=rt, name=f.name, args=cs_args(f), bad=BAD[f.error])
    else:
        body = f"            {'' if rt == 'void' else 'return '}{f.name}_at({cs_args(f)});\n"
    return BOUND.substitute(rt=rt, name=f.name, params=args, version=f.version,
                            said="its errno in LastErrno after a failure" if sets_errno else "no errno of its own",
                            since=f", {f.since}" if f.since else "", body=body)


def rdma(f):
    """f in Rdma (the library loaded first, its arrays' counts checked), and
    in Checked (the call, its failure thrown)."""
    params, call = cs_params(f), cs_args(f)
    rt = "string" if f.text else cs_ret(f.ret)
    ret = "" if rt == "void" else "return "
    s = f"\n        /// <summary>{cs_doc(f)}</summary>\n"
    s += f"        public static {rt} {f.name}({params})\n        {{\n"
    for i, c, _, _ in f.arrays:
        array, count = cs_name(f.params[i][1]), cs_name(f.params[c][1])
        length = f"(ulong) {array}.Length" if unsigned_count(f.params[c][0]) else f"{array}.Length"
        s += TOO_LONG.substitute(array=array, count=count, length=length, name=f.name)
    s += f"            Init();\n            {ret}Checked.{f.name}({call});\n        }}\n"
    if f.host:
        s += HOST.substitute(name=f.name, host=f.host, params=params, args=call)
    checked = "\n        [MethodImpl(MethodImplOptions.NoInlining)]\n"
    checked += f"        internal static {rt} {f.name}({params})\n        {{\n"
    if rt == "void":
        return s, checked + f"            Native.{f.name}({call});\n        }}\n"
    if f.text:
        return s, checked + f"            return Marshal.PtrToStringAnsi(Native.{f.name}({call}));\n        }}\n"
    checked += f"            {rt} r = Native.{f.name}({call});\n"
    bad = BAD.get(f.error)
    cast = "(int) " if rt == "long" else ""
    last = "Native.LastErrno" if f.version_only else "Marshal.GetLastWin32Error()"
    errno = {"int": last, "ptr": last, "errno": f"{cast}r", "neg": f"{cast}-r"}.get(f.error)
    if bad:
        checked += f'            if ({bad})\n                throw new RdmaVerbsException("{f.name}", {errno});\n'
    return s, checked + "            return r;\n        }\n"


def api(fns, consts):
    """Api.cs: the structs, Native (the C functions), Rdma (the constants,
    the tables of the tests, each function checked) and Checked."""
    s = f"// {NOTE}\n" + HEAD + structs() + NATIVE
    s += "".join(native(f) for f in fns)
    s += RDMA + "".join(f"        public const int {n} = {v};\n" for n, v in consts)
    s += "\n        /// <summary>The constants, for the layout check.</summary>\n"
    s += "        public static readonly string[] Constants = {" + \
         ", ".join(f'"{n}"' for n, _ in consts) + "};\n"
    s += "\n        /// <summary>Every struct and its fields, for the layout check.</summary>\n"
    s += "        public static readonly Tuple<Type, string[]>[] Structs = {\n"
    for t in types():
        s += f"            Tuple.Create(typeof({t.name}), new[] {{" + ", ".join(f'"{f}"' for f, _ in t.fields) + "}),\n"
    s += "        };\n" + VERSIONS
    s += "".join(f'            Tuple.Create("{f.name}", "{f.version}", {str(f.version_only).lower()}),\n'
                 for f in fns if f.version)
    s += "        };\n"
    # Rdma's functions load the library first (Init), then call Checked's:
    # Mono resolves a DllImport when it compiles the method that calls it,
    # so the call is in a method of its own, compiled after Init has run.
    pairs = [rdma(f) for f in fns]
    s += "".join(r for r, _ in pairs)
    return s + CHECKED + "".join(c for _, c in pairs) + "    }\n}\n"


# The files this writes, relative to bindings/csharp, and the function
# writing each (of the functions and the constants).
FILES = {
    "Api.cs": api,
}
