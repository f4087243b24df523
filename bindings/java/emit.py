"""Java's generated file (JNA), from the shared description
(bindings/describe.py); bindings/generate.py writes it. Not part of the jar
(pom.xml compiles src/ alone)."""
from string import Template

from describe import NOTE, field_kind, kind, struct, type_of, types, unsigned_count

SCALAR = {"int": "int", "uint8_t": "byte", "uint16_t": "short", "uint32_t": "int",
          "uint64_t": "long", "size_t": "long", "ssize_t": "long"}
# What RdmaVerbs' methods return of an unsigned 8- or 16-bit value: an int
# (never negative), from the JNA interface's byte or short.
UNSIGNED = {"uint8_t": "Byte.toUnsignedInt", "uint16_t": "Short.toUnsignedInt"}

# (library, its interface, the constant holding it)
IFACES = (("rdmaverbs", "Lib", "LIB"), ("rdmacm", "Cm", "CM"), ("ibverbs", "Verbs", "VERBS"))

FAILS = {
    "int": "a failure (a negative value) throws RdmaVerbsException (the errno left, errno()).",
    "ptr": "a failure (NULL) throws RdmaVerbsException (the errno left, errno()).",
    "errno": "a failure (an errno value returned) throws RdmaVerbsException (that errno, errno()).",
    "neg": "a failure (a negative value) throws RdmaVerbsException (minus that value, errno()).",
}

HEAD = """\
package org.rdmaverbs;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import com.sun.jna.ptr.PointerByReference;
import java.nio.ByteOrder;

/** The functions, structs and constants of librdmaverbs, librdmacm and libibverbs (see README.md). */
public final class RdmaVerbs {
    private RdmaVerbs() {}

"""

# A struct's or union's class: $fields, one line each.
CLASS = Template("""
    /** $doc. */
    @Structure.FieldOrder({$order})
    public static class $name extends $base {
$fields        public $name() {}
        /** The $keyword at {@code p}, read. */
        public $name(Pointer p) { super(p); read(); }
    }
""")

# The copy of an array of $st into C's memory: $copies, one line a field.
CONTIGUOUS = Template("""
    /** The first n of a, copied field by field into one contiguous C array
     * (JNA would pass the first element alone); null for a null array only:
     * an array given is passed as one (of one zeroed element at least), even
     * with an n of 0. An n larger than a is refused: C would read or write
     * past the array; so is a negative n for an unsigned count (C would take
     * it for a huge one), and a null element, unless C only writes the array. */
    private static $st[] contiguous(String fn, String array, $st[] a, String count, long n,
                                      boolean unsigned, boolean written) {
        if (a == null) return null;
        if (n > a.length) {
            throw new IllegalArgumentException(fn + ": " + count + " is " + n + " but " + array
                + " has " + a.length + " elements");
        }
        if (unsigned && n < 0) {
            throw new IllegalArgumentException(fn + ": " + count + " is " + n + ", C's count is unsigned");
        }
        $st[] c = ($st[]) new $st().toArray((int) Math.max(n, 1));
        for (int i = 0; i < n; i++) {
            if (a[i] == null && written) continue;
            if (a[i] == null) throw new IllegalArgumentException(fn + ": " + array + "[" + i + "] is null");
$copies            c[i].write();
        }
        return c;
    }
""")

COPY_BACK = Template("""
    /** What C wrote into the first n of c, copied back into a's elements
     * (made where null). */
    private static void copyBack($st[] c, $st[] a, long n) {
        if (c == null) return;
        for (int i = 0; i < n; i++) {
            c[i].read();
            if (a[i] == null) a[i] = new $st();
$copies        }
    }
""")

HOST = Template("""
    /** $name's value in host order (0 to 65535); it throws nothing. */
    public static int $host($params) {
        short r = $iface.$name($args);
        return Short.toUnsignedInt(ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? Short.reverseBytes(r) : r);
    }
""")


def java_type(ctype, wrapper=False):
    """The JNA interface's Java type of a C type; with wrapper, RdmaVerbs'
    (an unsigned 8- or 16-bit value as int: never negative)."""
    k = kind(ctype)
    if k[0] == "struct":
        return k[1]
    if wrapper and k[0] == "scalar" and k[1] in UNSIGNED:
        return "int"
    return {"void": "void", "cstr": "String", "outptr": "PointerByReference",
            "ptr": "Pointer"}.get(k[0]) or SCALAR[k[1]]


def java_doc(f):
    """The Javadoc of a function of RdmaVerbs: what a failure does, if it can fail."""
    note = f": {f.note}" if f.note else ""
    if f.error:
        return f"{f.name}, as in C{note}; {FAILS[f.error]}"
    return f"{f.name}, as in C{note}; it throws nothing."


def java_type_doc(t):
    if "." in t.path:
        root = t.path.split(".")[0]
        return f"{t.path}: a {t.keyword} declared inside {type_of(root).c}"
    return t.c


def field(f, ft):
    k = field_kind(ft)
    if k[0] == "scalar":
        return f"        public {SCALAR[k[1]]} {f};\n"
    if k[0] == "ptr":
        return f"        public Pointer {f};\n"
    if k[0] == "bytes":
        return f"        public byte[] {f} = new byte[{k[1]}];\n"
    return f"        public {k[1]} {f} = new {k[1]}();\n"


def structs():
    """The classes of the structs and unions, and structs() listing them."""
    s = ""
    for t in types():
        s += CLASS.substitute(doc=java_type_doc(t), order=", ".join(f'"{f}"' for f, _ in t.fields),
                              name=t.name, base="CUnion" if t.union else "Struct", keyword=t.keyword,
                              fields="".join(field(f, ft) for f, ft in t.fields))
    s += "\n    /** Every struct and union, for the layout check. */\n"
    s += "    public static Shape[] structs() {\n        return new Shape[] {"
    return s + ", ".join(f"new {t.name}()" for t in types()) + "};\n    }\n"


def interfaces(fns):
    """Each library's JNA interface, and the constant holding it."""
    s = ""
    for lib, iface, _ in IFACES:
        s += f"\n    /** The functions of lib{lib}, with their C types (unchecked; an array as C takes it)"
        s += ", each found by its symbol version (Loader). */\n" if lib == "rdmaverbs" else ". */\n"
        s += f"    public interface {iface} extends Library {{\n"
        for f in (f for f in fns if f.lib == lib):
            args = ", ".join(f"{java_type(t)} {n}" for t, n in f.params)
            version = f'@Version("{f.version}") ' if f.version else ""
            if f.since:
                version = f'@Version(value = "{f.version}", since = {f.since}) '
            s += f"        {version}{java_type(f.ret)} {f.name}({args});\n"
        s += "    }\n"
    s += "\n    /** The libraries, loaded as Loader says. */\n"
    return s + "".join(f'    public static final {iface} {const} = Loader.load("{lib}", {iface}.class);\n'
                       for lib, iface, const in IFACES)


def arrays(fns):
    """contiguous() for each struct a function takes an array of, and
    copyBack() for each of those C writes."""
    s = ""
    for st in sorted({st for f in fns for _, _, st, _ in f.arrays}):
        fields = struct(st)
        s += CONTIGUOUS.substitute(st=st, copies="".join(f"            c[i].{f} = a[i].{f};\n"
                                                         for f, _ in fields))
        if any(out for f in fns for _, _, t, out in f.arrays if t == st):
            s += COPY_BACK.substitute(st=st, copies="".join(f"            a[i].{f} = c[i].{f};\n"
                                                            for f, _ in fields))
    return s


def method(f):
    """f as a method of RdmaVerbs: its failure thrown, its arrays copied
    (and back), its value in host order (f.host) too."""
    iface = {lib: const for lib, _, const in IFACES}[f.lib]
    arrays = {i: (f.params[c][1], st, out, c) for i, c, st, out in f.arrays}
    params = ", ".join((f"{arrays[i][1]}[] {n}" if i in arrays else f"{java_type(t)} {n}")
                       for i, (t, n) in enumerate(f.params))
    args = ", ".join((f"c_{n} == null ? null : c_{n}[0]" if i in arrays else n)
                     for i, (t, n) in enumerate(f.params))
    rt, wrt = java_type(f.ret), java_type(f.ret, True)
    s = f"\n    /** {java_doc(f)} */\n"
    throws = " throws RdmaVerbsException" if f.error else ""
    s += f"    public static {wrt} {f.name}({params}){throws} {{\n"
    for i, (count, st, out, c) in arrays.items():
        n = f.params[i][1]
        unsigned = unsigned_count(f.params[c][0])
        s += f'        {st}[] c_{n} = contiguous("{f.name}", "{n}", {n}, "{count}", {count}, ' \
             f'{str(unsigned).lower()}, {str(out).lower()});\n'
    call = f"{iface}.{f.name}({args});\n"
    # C wrote what the call returns, if it returns a count (ibv_poll_cq),
    # else the whole count asked for.
    wrote = (lambda n: f"Math.min(r, {n})") if f.error == "int" and rt != "void" else (lambda n: n)
    back = "".join(f"        copyBack(c_{f.params[i][1]}, {f.params[i][1]}, {wrote(arrays[i][0])});\n"
                   for i, (_, _, out, _) in arrays.items() if out)
    if rt == "void":
        return s + f"        {call}{back}    }}\n"
    s += f"        {rt} r = {call}"
    bad = {"int": "r < 0", "ptr": "r == null", "errno": "r != 0", "neg": "r < 0"}.get(f.error)
    cast = "(int) " if rt == "long" else ""
    errno = {"int": "Native.getLastError()", "ptr": "Native.getLastError()", "errno": f"{cast}r",
             "neg": f"{cast}-r"}.get(f.error)
    if bad:
        s += f'        if ({bad}) throw new RdmaVerbsException("{f.name}", {errno});\n'
    s += back
    s += f"        return {UNSIGNED[kind(f.ret)[1]] + '(r)' if rt != wrt else 'r'};\n    }}\n"
    if f.host:
        s += HOST.substitute(name=f.name, host=f.host, params=params, iface=iface, args=args)
    return s


def rdmaverbs(fns, consts):
    """src/org/rdmaverbs/RdmaVerbs.java: the constants, the structs, the
    libraries' interfaces, and each function as a method throwing its failure."""
    s = f"// {NOTE}\n" + HEAD
    s += "".join(f"    public static final int {n} = {v};\n" for n, v in consts)
    s += "\n    /** The constants' names, for the layout check. */\n"
    s += "    public static final String[] CONSTANTS = {" + ", ".join(f'"{n}"' for n, _ in consts) + "};\n"
    s += structs() + interfaces(fns) + arrays(fns)
    s += "\n    // Each function, errno read right after the call.\n"
    return s + "".join(method(f) for f in fns) + "}\n"


# The files this writes, relative to bindings/java, and the function
# writing each (of the functions and the constants).
FILES = {
    "src/org/rdmaverbs/RdmaVerbs.java": rdmaverbs,
}
