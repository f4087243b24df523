"""Rust's generated file (rdmaverbs-sys/src/api.rs), from the shared
description (bindings/describe.py); bindings/generate.py writes it. Not part
of either crate (Cargo.toml excludes it from rdmaverbs')."""
from string import Template

from describe import NOTE, Fn, field_kind, kind, type_of, types

SCALAR = {"int": "c_int", "uint8_t": "u8", "uint16_t": "u16", "uint32_t": "u32",
          "uint64_t": "u64", "size_t": "usize", "ssize_t": "isize"}

# Rust keywords that are C names here: written r#NAME.
KEYWORDS = {"type", "ref", "in", "fn", "match", "move", "mod", "loop", "use", "impl", "box", "self"}

FAILS = {
    "int": "a failure (a negative value) as the `io::Error` of errno, read right after the call",
    "ptr": "a failure (NULL) as the `io::Error` of errno, read right after the call",
    "errno": "a failure (an errno value returned) as the `io::Error` of that value",
    "neg": "a failure (a negative value) as the `io::Error` of minus that value",
}

HEAD = """
use core::ffi::{c_char, c_int, c_void};
use std::io;

"""

# A struct or union ($keyword): $fields, a line each; its Default (zeroed).
TYPE = Template("""
/// $doc.
#[repr(C)]
#[derive($derive)]
#[allow(non_camel_case_types)]
pub $keyword $name {
$fields}

impl Default for $name {
    fn default() -> Self {
        // SAFETY: all-zero bytes are a valid value of this C $keyword.
        unsafe { core::mem::zeroed() }
    }
}
""")

UNION_DEBUG = Template("""
/// Which member is meant only the program knows: its bytes, not its members.
impl core::fmt::Debug for $name {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("$name { .. }")
    }
}
""")

LAYOUT = """
/// A struct's or union's name, size and fields' offsets.
pub type StructLayout = (&'static str, usize, Vec<(&'static str, usize)>);

/// Every struct's and union's layout (for the layout check).
pub fn layout() -> Vec<StructLayout> {
    vec![
"""

SYS = """
/// The C functions, with their C types (linked by build.rs, found by pkg-config);
/// librdmaverbs' each bound to its symbol version (`ibv_post_send@RDMAVERBS_1.3`).
pub mod sys {
    use super::*;

    unsafe extern "C" {
"""

# A function a build of the library may lack (f.since): found when first called.
OPTIONAL = Template("""
    /// `$name` ($lib, $version), which rdma-core $since brought: a build of the
    /// library against older headers lacks it, so it is found by its version when first
    /// asked for (not linked); an `Err` (`ErrorKind::Unsupported`) saying so where it is missing.
    pub fn $name() -> io::Result<unsafe extern "C" fn($args)$ret> {
        static AT: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
        let p = crate::optional(&AT, c"$name", c"$version", $since)?;
        // SAFETY: the address of the C function of this name and type.
        Ok(unsafe { core::mem::transmute::<*mut c_void, _>(p) })
    }
""")

VERSIONED = """
/// librdmaverbs' functions: name, symbol version node, the address this crate
/// calls (for the tests: dladdr and dlvsym say where it is).
pub fn versioned() -> Vec<(&'static str, &'static str, *const c_void)> {
    vec![
"""

TEXT = Template("""\
    // SAFETY: forwarded; C returns NULL or a string it keeps.
    let r = unsafe { sys::$name($call) };
    if r.is_null() {
        return String::new();
    }
    // SAFETY: r is a NUL-terminated string of C's.
    unsafe { core::ffi::CStr::from_ptr(r) }.to_string_lossy().into_owned()
}
""")

HOST = Template("""
/// `$name`'s value in host order; it returns no `Err`.
///
/// # Safety
/// As the C function: every pointer valid for it.
pub unsafe fn $host($args) -> u16 {
    // SAFETY: forwarded.
    u16::from_be(unsafe { sys::$name($call) })
}
""")

TOO_LONG = Template("""\
    if usize::try_from($count).is_ok_and(|n| n > $array.len()) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("$name: $count is {$count} but $array has {} elements", $array.len()),
        ));
    }
""")

FORWARD = Template("""\
    // SAFETY: forwarded.
    unsafe { sys::$name($call) }
}
""")

# A call returning io::Result: $c_fn, sys's function (or its lookup, `?`).
CALL_UNIT = Template("""\
    // SAFETY: forwarded.
    unsafe { $c_fn($call) };
    Ok(())
}
""")

CALL = Template("""\
    // SAFETY: forwarded.
    let r = unsafe { $c_fn($call) };
""")

# The end of a function returning io::Result, by how its failure shows.
RESULT = {
    "int": Template("""\
    if r < 0 { Err(crate::last_call_error("$name")) } else { Ok(r) }
}
"""),
    "ptr": Template("""\
    if r.is_null() { Err(crate::last_call_error("$name")) } else { Ok(r) }
}
"""),
    "errno": Template("""\
    if r != 0 { Err(crate::call_error("$name", r)) } else { Ok(r) }
}
"""),
    "neg": Template("""\
    if r < 0 {
        Err(crate::call_error("$name", i32::try_from(-r).unwrap_or(i32::MAX)))
    } else {
        Ok(r)
    }
}
"""),
    None: Template("""\
    Ok(r)
}
"""),
}


def rust_type(ctype):
    k = kind(ctype)
    if k[0] == "struct":
        return f"*{'const' if ctype.startswith('const') else 'mut'} {k[1]}"
    return {"void": "()", "cstr": "*const c_char", "outptr": "*mut *mut c_void",
            "ptr": "*mut c_void"}.get(k[0]) or SCALAR[k[1]]


def rust_name(n):
    return f"r#{n}" if n in KEYWORDS else n


def rust_escaped(f):
    """f with its parameters named as Rust may name them."""
    g = Fn(f.lib, f.ret, f.name, [(t, rust_name(n)) for t, n in f.params], f.version)
    g.version_only, g.since = f.version_only, f.since
    return g


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


def field(f, ft):
    k = field_kind(ft)
    ty = {"scalar": lambda: SCALAR[k[1]], "ptr": lambda: "*mut c_void",
          "bytes": lambda: f"[u8; {k[1]}]", "struct": lambda: k[1], "union": lambda: k[1]}[k[0]]()
    return f"    pub {f}: {ty},\n"


def structs():
    """Each struct and union, and layout() listing their layouts."""
    s = ""
    for t in types():
        doc = f"`{t.c}`" if "." not in t.path else \
            f"`{t.path}`: a {t.keyword} declared inside `{type_of(t.path.split('.')[0]).c}`"
        s += TYPE.substitute(doc=doc, derive="Clone, Copy" if t.union else "Clone, Copy, Debug",
                             keyword=t.keyword, name=t.name,
                             fields="".join(field(f, ft) for f, ft in t.fields))
        if t.union:
            s += UNION_DEBUG.substitute(name=t.name)
    s += LAYOUT
    for t in types():
        offs = ", ".join(f'("{f}", core::mem::offset_of!({t.name}, {f}))' for f, _ in t.fields)
        s += f'        ("{t.name}", core::mem::size_of::<{t.name}>(), vec![{offs}]),\n'
    return s + "    ]\n}\n"


def sys_module(fns):
    """mod sys: the C functions, linked, or (f.since) found when first called;
    and versioned() listing ours."""
    s = SYS
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
        s += OPTIONAL.substitute(name=f.name, lib=f.lib, version=f.version, since=f.since,
                                 args=", ".join(f"{n}: {rust_type(t)}" for t, n in f.params),
                                 ret="" if f.ret == "void" else f" -> {rust_type(f.ret)}")
    s += "}\n" + VERSIONED
    s += "".join((f'        ("{f.name}", "{f.version}", sys::{f.name} as *const c_void),\n' if not f.since else
                  f'        ("{f.name}", "{f.version}", sys::{f.name}().map_or(core::ptr::null(), |f| f as *const c_void)),\n')
                 for f in fns if f.version)
    return s + "    ]\n}\n"


def wrapper(f):
    """f as an unsafe function of the crate: its failure an io::Error, its
    arrays slices (their counts checked), a C string a String."""
    arrays = {i: (f.params[c][1], out) for i, c, _, out in f.arrays}
    args = ", ".join((f"{n}: &{'mut ' if arrays[i][1] else ''}[{kind(t)[1]}]" if i in arrays
                      else f"{n}: {rust_type(t)}") for i, (t, n) in enumerate(f.params))
    call = ", ".join((f"{n}.as_{'mut_' if arrays[i][1] else ''}ptr(){'' if arrays[i][1] else '.cast_mut()'}"
                      if i in arrays else n) for i, (_, n) in enumerate(f.params))
    ret = "String" if f.text else rust_type(f.ret)
    note = f": {f.note}" if f.note else ""
    c_fn = f"sys::{f.name}()?" if f.since else f"sys::{f.name}"
    if f.error:
        s = f"\n/// `{f.name}`{note}; {FAILS[f.error]}.\n"
    elif not f.since:
        s = f"\n/// `{f.name}`{note}; it returns no `Err`.\n"
    else:
        s = f"\n/// `{f.name}`{note}.\n"
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
            s += TEXT.substitute(name=f.name, call=call)
        else:
            s += FORWARD.substitute(name=f.name, call=call)
        if f.host:
            s += HOST.substitute(name=f.name, host=f.host, args=args, call=call)
        return s
    s += f"pub unsafe fn {f.name}({args}) -> io::Result<{ret}> {{\n"
    for i, (count, _) in arrays.items():
        s += TOO_LONG.substitute(name=f.name, count=count, array=f.params[i][1])
    if ret == "()" and not f.error:
        return s + CALL_UNIT.substitute(c_fn=c_fn, call=call)
    s += CALL.substitute(c_fn=c_fn, call=call)
    return s + RESULT[f.error].substitute(name=f.name)


def api(fns, consts):
    """rdmaverbs-sys/src/api.rs: the constants, the structs, mod sys (the C
    functions), and each function checked."""
    fns = [rust_escaped(f) for f in fns]
    s = f"// {NOTE}\n" + HEAD
    s += "".join(f"/// `{n}`.\npub const {n}: i32 = {v};\n" for n, v in consts)
    s += "\n/// The constants, by name (for the layout check).\n"
    s += "pub const CONSTANTS: &[(&str, i32)] = &[" + ", ".join(f'("{n}", {n})' for n, _ in consts) + "];\n"
    return s + structs() + sys_module(fns) + "".join(wrapper(f) for f in fns)


# The files this writes, relative to bindings/rust, and the function
# writing each (of the functions and the constants).
FILES = {
    "rdmaverbs-sys/src/api.rs": api,
}
