#!/usr/bin/env python3
"""Writes each binding's declarations from one description: the library's
exports as abi/exports.tsv lists them, every row of the function table
with its node, the rdma-core release that brought it and its C signature
(generated from abi/src/table.rs), and bindings/api.py (librdmacm's and libibverbs'
calls, how each function fails, the structs and unions, the constants).

    generate.py             writes the generated files (committed)
    generate.py --check     fails if a committed file differs from what it
                            would write (make test-bindings runs it)
    generate.py --layout-c  prints a C program that prints, from the system
                            headers, what each binding's --layout prints of
                            itself: 'STRUCT sizeof N', 'STRUCT.FIELD offset
                            N', 'NAME value N' (a union's too; it does not
                            compile unless each of api.ALIASES holds)
    generate.py --absent    prints the names of api.LATER that the system
                            headers lack: each binding declares them, the
                            layout program cannot print them
    generate.py --symbols   prints 'LIBRARY FUNCTION [@@VERSION [SINCE]]' for every
                            function (VERSION: the symbol version node of ours;
                            '@' for a non-default version, found by it only;
                            SINCE: the rdma-core release that brought one a
                            build of ours may lack)

Constant values are read from the system headers (a C program compiled
here) when the files are written; each enum of api.ENUMS is checked to be
the header's, name for name.
"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from describe import (NOTE, Fn, absent, check_enums, constants, field_kind, functions,  # noqa: E402
                      kind, layout_c, type_of, types, unsigned_count)


# ---- Rust ----

RUST_SCALAR = {"int": "c_int", "uint8_t": "u8", "uint16_t": "u16", "uint32_t": "u32",
               "uint64_t": "u64", "size_t": "usize", "ssize_t": "isize"}


def rust_type(ctype):
    k = kind(ctype)
    if k[0] == "struct":
        return f"*{'const' if ctype.startswith('const') else 'mut'} {k[1]}"
    return {"void": "()", "cstr": "*const c_char", "outptr": "*mut *mut c_void",
            "ptr": "*mut c_void"}.get(k[0]) or RUST_SCALAR[k[1]]


def rust_escaped(f):
    """f with its parameters named as Rust may name them."""
    g = Fn(f.lib, f.ret, f.name, [(t, rust_name(n)) for t, n in f.params], f.version)
    g.version_only, g.since = f.version_only, f.since
    return g


RUST_FAILS = {
    "int": "a failure (a negative value) as the `io::Error` of errno, read right after the call",
    "ptr": "a failure (NULL) as the `io::Error` of errno, read right after the call",
    "errno": "a failure (an errno value returned) as the `io::Error` of that value",
    "neg": "a failure (a negative value) as the `io::Error` of minus that value",
}


def rust_safety(f):
    """The `# Safety` text of a function of rdmaverbs-sys: the C function's
    pointers; for one that posts a buffer, how long it stays the card's."""
    s = "///\n/// # Safety\n/// As the C function: every pointer valid for it.\n"
    if f.name.startswith("ibv_wr_set_inline_data"):
        s += "/// Its bytes are copied during the call (as with `IBV_SEND_INLINE`): the\n"
        s += "/// buffer may be reused once it returns.\n"
    elif f.name.startswith(("rdma_post_", "ibv_post_", "ibv_wr_set_sge")):
        one = any(n == "addr" for _, n in f.params)
        s += "/// The buffer at `addr` (`length` bytes)" if one else "/// Every buffer an SGE of the work requests points to"
        s += " must stay valid\n/// (allocated, its MR registered) until the work request's completion has\n"
        s += "/// been reaped (an unsignaled send's: a later completion of its queue)"
        s += ", the\n/// request being posted by `ibv_wr_complete`" if f.name.startswith("ibv_wr_set_sge") else ""
        s += ".\n/// Until then the program must not write a buffer the card reads (a send's,\n"
        s += "/// an RDMA write's) nor read one it writes (a receive's, an RDMA read's, an\n"
        s += "/// atomic's result)"
        if f.name in ("rdma_post_send", "rdma_post_sendv", "rdma_post_write", "rdma_post_writev",
                      "rdma_post_ud_send", "ibv_post_send"):
            s += "; a send or write with `IBV_SEND_INLINE` excepted, whose bytes\n/// the post copies"
        s += ".\n"
    return s


# Rust keywords that are C names here: written r#NAME.
RUST_KEYWORDS = {"type", "ref", "in", "fn", "match", "move", "mod", "loop", "use", "impl", "box", "self"}


def rust_name(n):
    return f"r#{n}" if n in RUST_KEYWORDS else n


def rust(fns, consts):
    fns = [rust_escaped(f) for f in fns]
    s = f"// {NOTE}\n\nuse core::ffi::{{c_char, c_int, c_void}};\nuse std::io;\n\n"
    s += "".join(f"/// `{n}`.\npub const {n}: i32 = {v};\n" for n, v in consts)
    s += "\n/// The constants, by name (for the layout check).\n"
    s += "pub const CONSTANTS: &[(&str, i32)] = &[" + ", ".join(f'("{n}", {n})' for n, _ in consts) + "];\n"
    for t in types():
        doc = f"`{t.c}`" if "." not in t.path else \
            f"`{t.path}`: a {t.keyword} declared inside `{type_of(t.path.split('.')[0]).c}`"
        derive = "Clone, Copy" if t.union else "Clone, Copy, Debug"
        s += f"\n/// {doc}.\n#[repr(C)]\n#[derive({derive})]\n"
        s += f"#[allow(non_camel_case_types)]\npub {t.keyword} {t.name} {{\n"
        for f, ft in t.fields:
            k = field_kind(ft)
            ty = {"scalar": lambda: RUST_SCALAR[k[1]], "ptr": lambda: "*mut c_void",
                  "bytes": lambda: f"[u8; {k[1]}]", "struct": lambda: k[1], "union": lambda: k[1]}[k[0]]()
            s += f"    pub {f}: {ty},\n"
        s += "}\n"
        s += f"\nimpl Default for {t.name} {{\n    fn default() -> Self {{\n"
        s += f"        // SAFETY: all-zero bytes are a valid value of this C {t.keyword}.\n"
        s += "        unsafe { core::mem::zeroed() }\n    }\n}\n"
        if t.union:
            s += f"\n/// Which member is meant only the program knows: its bytes, not its members.\n"
            s += f"impl core::fmt::Debug for {t.name} {{\n"
            s += "    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {\n"
            s += f"        f.write_str(\"{t.name} {{ .. }}\")\n    }}\n}}\n"
    s += "\n/// A struct's or union's name, size and fields' offsets.\n"
    s += "pub type StructLayout = (&'static str, usize, Vec<(&'static str, usize)>);\n"
    s += "\n/// Every struct's and union's layout (for the layout check).\n"
    s += "pub fn layout() -> Vec<StructLayout> {\n    vec![\n"
    for t in types():
        offs = ", ".join(f'("{f}", core::mem::offset_of!({t.name}, {f}))' for f, _ in t.fields)
        s += f'        ("{t.name}", core::mem::size_of::<{t.name}>(), vec![{offs}]),\n'
    s += "    ]\n}\n"
    s += "\n/// The C functions, with their C types (linked by build.rs, found by pkg-config);\n"
    s += "/// librdmaverbs' each bound to its symbol version (`ibv_post_send@RDMAVERBS_1.3`).\n"
    s += "pub mod sys {\n    use super::*;\n\n    unsafe extern \"C\" {\n"
    for f in (f for f in fns if not f.since):
        args = ", ".join(f"{n}: {rust_type(t)}" for t, n in f.params)
        ret = "" if f.ret == "void" else f" -> {rust_type(f.ret)}"
        note = f": {f.note}" if f.note else ""
        s += f"        /// `{f.name}` ({f.lib}{', ' + f.version if f.version else ''}){note}.\n"
        if f.version:
            s += f'        #[link_name = "{f.name}@{f.version}"]\n'
        s += f"        pub fn {f.name}({args}){ret};\n"
    s += "    }\n"
    for f in (f for f in fns if f.since):
        args = ", ".join(f"{n}: {rust_type(t)}" for t, n in f.params)
        ret = "" if f.ret == "void" else f" -> {rust_type(f.ret)}"
        s += f"\n    /// `{f.name}` ({f.lib}, {f.version}), which rdma-core {f.since} brought: a build of the\n"
        s += "    /// library against older headers lacks it, so it is found by its version when first\n"
        s += "    /// asked for (not linked); an `Err` (`ErrorKind::Unsupported`) saying so where it is missing.\n"
        s += f"    pub fn {f.name}() -> io::Result<unsafe extern \"C\" fn({args}){ret}> {{\n"
        s += "        static AT: std::sync::OnceLock<usize> = std::sync::OnceLock::new();\n"
        s += f'        let p = crate::optional(&AT, c"{f.name}", c"{f.version}", {f.since})?;\n'
        s += "        // SAFETY: the address of the C function of this name and type.\n"
        s += "        Ok(unsafe { core::mem::transmute::<*mut c_void, _>(p) })\n    }\n"
    s += "}\n"
    s += "\n/// librdmaverbs' functions: name, symbol version node, the address this crate\n"
    s += "/// calls (for the tests: dladdr and dlvsym say where it is).\n"
    s += "pub fn versioned() -> Vec<(&'static str, &'static str, *const c_void)> {\n    vec![\n"
    s += "".join((f'        ("{f.name}", "{f.version}", sys::{f.name} as *const c_void),\n' if not f.since else
                  f'        ("{f.name}", "{f.version}", sys::{f.name}().map_or(core::ptr::null(), |f| f as *const c_void)),\n')
                 for f in fns if f.version)
    s += "    ]\n}\n"
    for f in fns:
        arrays = {i: (f.params[c][1], out) for i, c, _, out in f.arrays}
        args = ", ".join((f"{n}: &{'mut ' if arrays[i][1] else ''}[{kind(t)[1]}]" if i in arrays
                          else f"{n}: {rust_type(t)}") for i, (t, n) in enumerate(f.params))
        call = ", ".join((f"{n}.as_{'mut_' if arrays[i][1] else ''}ptr(){'' if arrays[i][1] else '.cast_mut()'}"
                          if i in arrays else n) for i, (_, n) in enumerate(f.params))
        ret = "String" if f.text else rust_type(f.ret)
        note = f": {f.note}" if f.note else ""
        c_fn = f"sys::{f.name}()?" if f.since else f"sys::{f.name}"
        if f.error:
            s += f"\n/// `{f.name}`{note}; {RUST_FAILS[f.error]}.\n"
        elif not f.since:
            s += f"\n/// `{f.name}`{note}; it returns no `Err`.\n"
        else:
            s += f"\n/// `{f.name}`{note}.\n"
        if f.since:
            s += f"///\n/// An `Err` (`ErrorKind::Unsupported`) where the library lacks it: rdma-core {f.since}\n"
            s += "/// brought it, and a build against older headers does not have it.\n"
        for i, (count, out) in arrays.items():
            array = f.params[i][1]
            s += f"///\n/// `{array}` is a {'mutable ' if out else ''}slice: a `{count}` larger than its length is refused\n"
            s += "/// (`ErrorKind::InvalidInput`) before C is called.\n"
        if f.text:
            s += "///\n/// The C string, as a `String` (an empty one for NULL).\n"
        s += rust_safety(f)
        if f.error is None and not arrays and not f.since:
            s += f"pub unsafe fn {f.name}({args}){'' if ret == '()' else ' -> ' + ret} {{\n"
            if f.text:
                s += "    // SAFETY: forwarded; C returns NULL or a string it keeps.\n"
                s += f"    let r = unsafe {{ sys::{f.name}({call}) }};\n"
                s += "    if r.is_null() {\n        return String::new();\n    }\n"
                s += "    // SAFETY: r is a NUL-terminated string of C's.\n"
                s += "    unsafe { core::ffi::CStr::from_ptr(r) }.to_string_lossy().into_owned()\n}\n"
            else:
                s += f"    // SAFETY: forwarded.\n    unsafe {{ sys::{f.name}({call}) }}\n}}\n"
            if f.host:
                s += f"\n/// `{f.name}`'s value in host order; it returns no `Err`.\n"
                s += "///\n/// # Safety\n/// As the C function: every pointer valid for it.\n"
                s += f"pub unsafe fn {f.host}({args}) -> u16 {{\n"
                s += f"    // SAFETY: forwarded.\n    u16::from_be(unsafe {{ sys::{f.name}({call}) }})\n}}\n"
            continue
        s += f"pub unsafe fn {f.name}({args}) -> io::Result<{ret}> {{\n"
        for i, (count, _) in arrays.items():
            array = f.params[i][1]
            s += f"    if usize::try_from({count}).is_ok_and(|n| n > {array}.len()) {{\n"
            s += "        return Err(io::Error::new(\n            io::ErrorKind::InvalidInput,\n"
            s += f"            format!(\"{f.name}: {count} is {{{count}}} but {array} has {{}} elements\", {array}.len()),\n"
            s += "        ));\n    }\n"
        if ret == "()" and not f.error:
            s += f"    // SAFETY: forwarded.\n    unsafe {{ {c_fn}({call}) }};\n    Ok(())\n}}\n"
            continue
        s += f"    // SAFETY: forwarded.\n    let r = unsafe {{ {c_fn}({call}) }};\n"
        if f.error == "int":
            s += f"    if r < 0 {{ Err(crate::last_call_error(\"{f.name}\")) }} else {{ Ok(r) }}\n}}\n"
        elif f.error == "ptr":
            s += f"    if r.is_null() {{ Err(crate::last_call_error(\"{f.name}\")) }} else {{ Ok(r) }}\n}}\n"
        elif f.error == "errno":
            s += f"    if r != 0 {{ Err(crate::call_error(\"{f.name}\", r)) }} else {{ Ok(r) }}\n}}\n"
        elif f.error == "neg":
            s += f"    if r < 0 {{\n        Err(crate::call_error(\"{f.name}\", i32::try_from(-r).unwrap_or(i32::MAX)))\n"
            s += "    } else {\n        Ok(r)\n    }\n}\n"
        else:
            s += "    Ok(r)\n}\n"
    return s


# ---- C# (P/Invoke, Mono) ----

CS_SCALAR = {"int": "int", "uint8_t": "byte", "uint16_t": "ushort", "uint32_t": "uint",
             "uint64_t": "ulong", "size_t": "ulong", "ssize_t": "long"}


# C# keywords that are C names here: written @NAME (the name stays NAME).
CS_KEYWORDS = {"event", "params", "ref", "out", "object", "string", "base", "lock", "fixed"}


def cs_name(name):
    return "@" + name if name in CS_KEYWORDS else name


def cs_param(ctype, name, array=False):
    name = cs_name(name)
    k = kind(ctype)
    if k[0] == "struct":
        # An array (api.ARRAYS): Mono pins a blittable struct array and
        # passes its address, the elements contiguous as C lays them out
        # (and C's writes there are the array's).
        return f"[{'In, Out' if k[2] else 'In'}] {k[1]}[] {name}" if array else f"ref {k[1]} {name}"
    return {"cstr": f"string {name}", "outptr": f"out IntPtr {name}",
            "ptr": f"IntPtr {name}"}.get(k[0]) or f"{CS_SCALAR[k[1]]} {name}"


def cs_params(f):
    arrays = {i for i, _, _, _ in f.arrays}
    return ", ".join(cs_param(t, n, i in arrays) for i, (t, n) in enumerate(f.params))


def cs_args(f):
    """The arguments of a call with f's parameters: each name, after `ref`
    or `out` where its parameter has one."""
    arrays = {i for i, _, _, _ in f.arrays}
    words = (cs_param(t, n, i in arrays).split() for i, (t, n) in enumerate(f.params))
    return ", ".join((w[0] + " " if w[0] in ("ref", "out") else "") + w[-1] for w in words)


# A failure of each kind (api.ERRORS), for a C# result r.
CS_BAD = {"int": "r < 0", "ptr": "r == IntPtr.Zero", "errno": "r != 0", "neg": "r < 0"}


def cs_ret(ctype):
    """The return type of a declaration of Native: a C string is an IntPtr
    (as a string, Mono's marshalling would free C's static string)."""
    k = kind(ctype)
    return {"void": "void", "ptr": "IntPtr", "cstr": "IntPtr"}.get(k[0]) or CS_SCALAR[k[1]]


CS_FAILS = {
    "int": "a failure (a negative value) throws RdmaVerbsException (the errno left).",
    "ptr": "a failure (NULL) throws RdmaVerbsException (the errno left).",
    "errno": "a failure (an errno value returned) throws RdmaVerbsException (that errno).",
    "neg": "a failure (a negative value) throws RdmaVerbsException (minus that value).",
}


def cs_doc(f):
    note = f": {f.note}" if f.note else ""
    if f.error:
        return f"{f.name}, as in C{note}; {CS_FAILS[f.error]}"
    return f"{f.name}, as in C{note}; it throws nothing."


def csharp(fns, consts):
    s = f"// {NOTE}\nusing System;\nusing System.Runtime.CompilerServices;\n" \
        "using System.Runtime.InteropServices;\n\nnamespace RdmaVerbs\n{\n"
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
                ty = {"scalar": lambda: CS_SCALAR[k[1]], "ptr": lambda: "IntPtr",
                      "struct": lambda: k[1], "union": lambda: k[1]}[k[0]]()
                s += f"        {at}public {ty} {cs_name(f)};\n"
        s += "    }\n\n"
    s += "    /// <summary>The C functions, with their C types (a failure's errno: Marshal.GetLastWin32Error(),\n"
    s += "    /// or LastErrno for those found by their version).</summary>\n"
    s += "    public static partial class Native\n    {\n"
    for f in fns:
        so = f"lib{f.lib}.so.1"
        args = cs_params(f)
        rt = cs_ret(f.ret)
        if not f.version_only:
            s += f"        [DllImport(\"{so}\", SetLastError = true)]\n"
            s += f"        public static extern {rt} {f.name}({args});\n"
            continue
        # A DllImport is looked up by name (dlsym), which finds no
        # non-default version: dlvsym, and a delegate; errno, where a
        # failure leaves it, read only after a failure (LastErrno).
        sets_errno = f.error in ("int", "ptr")
        s += f"        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]\n"
        s += f"        delegate {rt} {f.name}_fn({args});\n"
        s += f"        static {f.name}_fn {f.name}_at;\n"
        said = "its errno in LastErrno after a failure" if sets_errno else "no errno of its own"
        s += f"        /// <summary>{f.name}@{f.version}, found by dlvsym; {said}.</summary>\n"
        s += f"        public static {rt} {f.name}({args})\n        {{\n"
        s += f"            if ({f.name}_at == null)\n"
        since = f", {f.since}" if f.since else ""
        s += f"                {f.name}_at = Bind<{f.name}_fn>(\"{f.name}\", \"{f.version}\"{since});\n"
        if not sets_errno:
            s += f"            {'' if rt == 'void' else 'return '}{f.name}_at({cs_args(f)});\n        }}\n"
            continue
        s += f"            IntPtr errno = ErrnoAt();\n"
        s += f"            {rt} r = {f.name}_at({cs_args(f)});\n"
        s += f"            if ({CS_BAD[f.error]})\n                LastErrno = Marshal.ReadInt32(errno);\n"
        s += "            return r;\n        }\n"
    s += "    }\n\n    public static partial class Rdma\n    {\n"
    s += "".join(f"        public const int {n} = {v};\n" for n, v in consts)
    s += "\n        /// <summary>The constants, for the layout check.</summary>\n"
    s += "        public static readonly string[] Constants = {" + \
         ", ".join(f'"{n}"' for n, _ in consts) + "};\n"
    s += "\n        /// <summary>Every struct and its fields, for the layout check.</summary>\n"
    s += "        public static readonly Tuple<Type, string[]>[] Structs = {\n"
    for t in types():
        s += f"            Tuple.Create(typeof({t.name}), new[] {{" + ", ".join(f'"{f}"' for f, _ in t.fields) + "}),\n"
    s += "        };\n"
    s += "\n        /// <summary>librdmaverbs' functions and their symbol version nodes, and whether\n"
    s += "        /// each is found by its version only (non-default: Native binds it with dlvsym) or\n"
    s += "        /// by its name too (a DllImport).</summary>\n"
    s += "        public static readonly Tuple<string, string, bool>[] Versions = {\n"
    s += "".join(f'            Tuple.Create("{f.name}", "{f.version}", {str(f.version_only).lower()}),\n'
                 for f in fns if f.version)
    s += "        };\n"
    # Rdma's functions load the library first (Init), then call Checked's:
    # Mono resolves a DllImport when it compiles the method that calls it,
    # so the call is in a method of its own, compiled after Init has run.
    checked = ""
    for f in fns:
        params = cs_params(f)
        call = cs_args(f)
        rt = "string" if f.text else cs_ret(f.ret)
        ret = "" if rt == "void" else "return "
        s += f"\n        /// <summary>{cs_doc(f)}</summary>\n"
        s += f"        public static {rt} {f.name}({params})\n        {{\n"
        for i, c, _, _ in f.arrays:
            array, count = cs_name(f.params[i][1]), cs_name(f.params[c][1])
            length = f"(ulong) {array}.Length" if unsigned_count(f.params[c][0]) else f"{array}.Length"
            s += f"            if ({array} != null && {count} > {length})\n"
            s += f"                throw new ArgumentException(\"{f.name}: {count} is \" + {count} + \" but {array} has \" + " \
                 f"{array}.Length + \" elements\", \"{count}\");\n"
        s += f"            Init();\n            {ret}Checked.{f.name}({call});\n        }}\n"
        if f.host:
            s += f"\n        /// <summary>{f.name}'s value in host order; it cannot fail.</summary>\n"
            s += f"        public static ushort {f.host}({params})\n        {{\n"
            s += f"            ushort r = {f.name}({call});\n"
            s += "            return BitConverter.IsLittleEndian ? (ushort)((r >> 8) | (r << 8)) : r;\n        }\n"
        checked += "\n        [MethodImpl(MethodImplOptions.NoInlining)]\n"
        checked += f"        internal static {rt} {f.name}({params})\n        {{\n"
        if rt == "void":
            checked += f"            Native.{f.name}({call});\n        }}\n"
            continue
        if f.text:
            checked += f"            return Marshal.PtrToStringAnsi(Native.{f.name}({call}));\n        }}\n"
            continue
        checked += f"            {rt} r = Native.{f.name}({call});\n"
        bad = CS_BAD.get(f.error)
        cast = "(int) " if rt == "long" else ""
        last = "Native.LastErrno" if f.version_only else "Marshal.GetLastWin32Error()"
        errno = {"int": last, "ptr": last, "errno": f"{cast}r", "neg": f"{cast}-r"}.get(f.error)
        if bad:
            checked += f"            if ({bad})\n                throw new RdmaVerbsException(\"{f.name}\", {errno});\n"
        checked += "            return r;\n        }\n"
    s += "    }\n\n    /// <summary>Each call, its errno read right after it.</summary>\n"
    s += "    static class Checked\n    {" + checked + "    }\n"
    return s + "}\n"


# ---- the files ----

# The languages, each a folder of bindings/ whose emit.py says, in FILES,
# which files it writes (paths relative to its folder) and the function
# writing each, of the functions and the constants.
LANGUAGES = ("python", "java", "node", "rust", "csharp", "lua")
INLINE = {"rust": {"rdmaverbs-sys/src/api.rs": lambda fns, consts: rust(fns, consts)},
          "csharp": {"Api.cs": lambda fns, consts: csharp(fns, consts)}}


def emitter(lang):
    """bindings/LANG/emit.py, loaded (the folders are no Python packages)."""
    spec = importlib.util.spec_from_file_location(f"emit_{lang}", os.path.join(HERE, lang, "emit.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def files():
    """{path under bindings/: its text}, of every language."""
    fns = functions()
    check_enums()
    consts = constants()
    out = {}
    for lang in LANGUAGES:
        writers = INLINE[lang] if lang in INLINE else emitter(lang).FILES
        for path, write in writers.items():
            out[f"{lang}/{path}"] = write(fns, consts)
    return out


def main():
    arg = sys.argv[1:]
    if arg == ["--layout-c"]:
        sys.stdout.write(layout_c())
        return 0
    if arg == ["--absent"]:
        for name in absent():
            print(name)
        return 0
    if arg == ["--symbols"]:
        for f in functions():
            print(f.lib, f.name, (("@" if f.version_only else "@@") + f.version) if f.version else "",
                  f.since or "")
        return 0
    stale = []
    for path, text in files().items():
        full = os.path.join(HERE, path)
        current = open(full).read() if os.path.exists(full) else None
        if arg == ["--check"]:
            if current != text:
                stale.append(path)
        elif current != text:
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(text)
            print(f"generate.py: wrote bindings/{path}")
    if stale:
        print("generate.py: differ from what is generated (run bindings/generate.py and commit): "
              + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
