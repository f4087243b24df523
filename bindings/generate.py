#!/usr/bin/env python3
"""Writes each binding's declarations from one description: the library's
exports as abi/exports.tsv lists them, every row of the function table
with its node, the rdma-core release that brought it and its C signature
(generated from abi/src/table.rs), and bindings/api.py (librdmacm's and libibverbs'
calls, how each function fails, the structs and unions, the constants).
describe.py reads that description, once for all; each language's folder
has its emit.py, which turns it into that language's files (FILES: each
file it writes, relative to its folder, and the function writing it); this
driver loads the emitters of LANGUAGES and writes or checks their files.

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
import glob
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from describe import absent, check_enums, constants, functions, layout_c  # noqa: E402


# ---- the files ----

# The languages, each a folder of bindings/ whose emit.py says, in FILES,
# which files it writes (paths relative to its folder) and the function
# writing each, of the functions and the constants.
LANGUAGES = ("python", "java", "node", "rust", "csharp", "lua")


def emitter(lang):
    """bindings/LANG/emit.py, loaded (the folders are no Python packages)."""
    spec = importlib.util.spec_from_file_location(f"emit_{lang}", os.path.join(HERE, lang, "emit.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def files():
    """{path under bindings/: its text}, of every language."""
    found = {os.path.basename(os.path.dirname(p)) for p in glob.glob(os.path.join(HERE, "*", "emit.py"))}
    if found != set(LANGUAGES):
        raise SystemExit(f"generate.py: the emitters are bindings/{{{','.join(sorted(found))}}}/emit.py, "
                         f"LANGUAGES is {LANGUAGES}")
    fns = functions()
    check_enums()
    consts = constants()
    out = {}
    for lang in LANGUAGES:
        for path, write in emitter(lang).FILES.items():
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
