// rdmaverbs: the static inline functions of librdmacm's <rdma/rdma_verbs.h>
// and of <infiniband/verbs.h> (ibv_post_send, ibv_poll_cq, ibv_req_notify_cq,
// ...) from Node.js, through librdmaverbs.so.1, with koffi; and the real
// librdmacm and libibverbs calls a program makes with them (event channels
// and ids, completion channels, PDs, CQs, SRQs, address handles, MRs).
//
// Every function has its C name and C types (koffi prototypes, api.js,
// generated from the library's table); a failure throws a RdmaVerbsError
// whose .code is the errno's name ('EINVAL') and .errno its number as
// Node's system errors give it (negative: -22): the errno the call left,
// read with koffi.errno() right after it, for -1 (rdma_*) or NULL; the
// value itself for the functions that return an errno value
// (ibv_post_send, ibv_dealloc_pd, ...); minus a negative value
// (ibv_query_gid_table). The unchecked functions are in .raw. Pointers
// are koffi's: BigInt addresses, null for NULL. A struct is an object of
// its fields; a union an object of one member ({ atomic: {...} }).
//
// The arrays of structs (the vectored posts' SGEs, ibv_poll_cq's
// completions) are JS arrays of objects, which koffi copies into one C
// array (and, for ibv_poll_cq, back into the objects); a count larger
// than the array is refused with a RangeError. rdma_get_src_port and
// rdma_get_dst_port return the port in network byte order, as C does;
// src_port and dst_port return it in host order. ibv_wc_status_str and
// rdma_event_str return a string.
//
// The libraries: librdmaverbs.so.1, librdmacm.so.1 and libibverbs.so.1,
// found by the dynamic loader; RDMAVERBS_LIBRARY names another copy of
// librdmaverbs, whose functions are each found by its symbol version
// (dlvsym: ibv_post_send@RDMAVERBS_1.3), never a same-named symbol of
// another library.
'use strict';

const koffi = require('koffi');
const os = require('os');
const util = require('util');
const { constants, structs, functions, hostOrder } = require('./api.js');

// The structs and unions, as koffi types, by name.
const types = {};
for (const [name, keyword, fields] of structs) {
  const def = {};
  for (const [field, type] of fields) {
    const bytes = /^uint8_t\[(\d+)\]$/.exec(type);
    def[field] = bytes ? koffi.array('uint8_t', Number(bytes[1]), 'Array') : types[type] || type;
  }
  types[name] = keyword === 'union' ? koffi.union(name, def) : koffi.struct(name, def);
}

const library = process.env.RDMAVERBS_LIBRARY || 'librdmaverbs.so.1';
const libc = koffi.load('libc.so.6');
// glibc before 2.34 (Debian 11) keeps dlopen and dlvsym in libdl.
const libdl = (() => {
  try {
    libc.func('void *dlvsym(void *handle, const char *name, const char *version)');
    return libc;
  } catch {
    return koffi.load('libdl.so.2');
  }
})();
const dl = {
  open: libdl.func('void *dlopen(const char *file, int mode)'),
  vsym: libdl.func('void *dlvsym(void *handle, const char *name, const char *version)'),
  error: libdl.func('const char *dlerror(void)'),
  strerror: libc.func('const char *strerror(int errnum)'),
};

// The library name, loaded; else an Error (.code 'ENOENT', .path) saying
// which library was looked for, where, and what provides it (pkg).
function load(name, pkg) {
  try {
    return koffi.load(name);
  } catch (e) {
    let where, fix;
    if (name.includes('/')) {
      where = name === process.env.RDMAVERBS_LIBRARY ? 'at the path RDMAVERBS_LIBRARY names' : 'at that path';
      fix = 'set RDMAVERBS_LIBRARY to the path of a librdmaverbs.so.1 (a clone\'s build/lib, after make), ' +
        `or unset it to use the installed one (the package ${pkg})`;
    } else {
      where = `by the dynamic loader, in LD_LIBRARY_PATH (${process.env.LD_LIBRARY_PATH || 'unset'}), ` +
        '/etc/ld.so.cache and the system\'s library folders';
      fix = `install the package ${pkg}` + (pkg === 'librdmaverbs1'
        ? ', or set RDMAVERBS_LIBRARY to the path of one (a clone\'s build/lib/librdmaverbs.so.1, after make)' : '');
    }
    const error = new Error(`rdmaverbs: cannot load ${name}, looked for ${where} (${e.message}): ${fix}`);
    Object.assign(error, { code: 'ENOENT', errno: -2, syscall: 'dlopen', path: name });
    throw error;
  }
}
const libs = {
  rdmaverbs: load(library, 'librdmaverbs1'),
  rdmacm: load('librdmacm.so.1', 'librdmacm1'),
  ibverbs: load('libibverbs.so.1', 'libibverbs1'),
};

// librdmaverbs' functions by their symbol version: dlvsym on its handle.
const RTLD_NOW = 2;
const handle = dl.open(library, RTLD_NOW);
if (handle === null) throw new Error(`rdmaverbs: ${dl.error()}`);
// The address each of ours is called at, by name.
const addresses = {};
// One that a later rdma-core release brought (since) is missing from a
// library built against an older one's headers: its call then throws an
// Error whose .code is 'ENOSYS' saying so (loading does not fail for it).
function versioned(proto, version, since) {
  const name = /(\w+)\(/.exec(proto)[1];
  const address = dl.vsym(handle, name, version);
  if (address === null && since) {
    return () => {
      const e = new Error(`${name} is not in ${library}: it came with rdma-core ${since}, and this build ` +
        `of rdmaverbs was made against an older rdma-core's headers (rebuild it against rdma-core ${since} or later)`);
      Object.assign(e, { code: 'ENOSYS', errno: -os.constants.errno.ENOSYS, syscall: name });
      throw e;
    };
  }
  if (address === null) {
    throw new Error(`rdmaverbs: ${library} has no ${name}@${version}: it is older than this package; install the ` +
      'package librdmaverbs1 of this version, or set RDMAVERBS_LIBRARY to a newer build');
  }
  addresses[name] = address;
  return koffi.decode(address, koffi.proto(proto));
}

/** A failed call: .syscall the function, .errno (negative) and .code; its
 * message says them all ('ibv_post_send: ENOMEM (errno 12, Cannot allocate
 * memory)'), and what else is known (detail: 'the CompletionQueue is
 * closed'). */
class RdmaVerbsError extends Error {
  constructor(fn, errno, detail) {
    const code = util.getSystemErrorName(-errno);
    super(`${fn}: ${code} (errno ${errno}, ${dl.strerror(errno)})${detail ? `: ${detail}` : ''}`);
    this.name = 'RdmaVerbsError';
    this.syscall = fn;
    this.errno = -errno;
    this.code = code;
  }
}

// An array argument as koffi takes it: a JS array, which koffi copies into
// one C array of its length, so that a count larger than it is refused here
// (C would read past the copy); null stays NULL.
function array(name, value, n) {
  if (value === null || value === undefined) return value;
  if (!Array.isArray(value)) {
    throw new TypeError(`${name}: an array of objects, not ${typeof value} (rv.raw.${name} takes a pointer)`);
  }
  if (n > value.length) {
    throw new RangeError(`${name}: the count (${n}) is more than the array's ${value.length} elements`);
  }
  return value;
}

// The errno of a failed call, or 0: a negative value or NULL (the errno
// left), an errno value returned, a negative value (minus the errno).
function failed(error, r) {
  switch (error) {
    case 'int': return r < 0 ? koffi.errno() : 0;
    case 'ptr': return r === null ? koffi.errno() : 0;
    case 'errno': return r;
    case 'neg': return r < 0 ? -Number(r) : 0;
    default: return 0;
  }
}

const raw = {};
const api = { ...constants, constants, types, raw, koffi, library, addresses, RdmaVerbsError };
for (const [lib, proto, error, arrays, version, since] of functions) {
  const fn = version ? versioned(proto, version, since) : libs[lib].func(proto);
  const name = /(\w+)\(/.exec(proto)[1];
  raw[name] = fn;
  api[name] = !error && !arrays.length ? fn : (...args) => {
    for (const [i, count] of arrays) args[i] = array(name, args[i], args[count]);
    const r = fn(...args);
    const errno = failed(error, r);
    if (errno) throw new RdmaVerbsError(name, errno);
    return r;
  };
}

// The host-order forms of the functions that return a network-order value.
for (const [name, cName] of Object.entries(hostOrder)) {
  api[name] = (...args) => {
    const r = raw[cName](...args);
    return os.endianness() === 'LE' ? ((r & 0xff) << 8) | (r >> 8) : r;
  };
}

/** This binding's layout lines, as the C layout program prints the system
 * headers': 'STRUCT sizeof N', 'STRUCT.FIELD offset N', 'NAME value N'. */
api.layout = function layout() {
  const out = [];
  for (const [name, , fields] of structs) {
    const members = koffi.type(types[name]).members;   // a union's too (offsetof takes structs only)
    out.push(`${name} sizeof ${koffi.sizeof(types[name])}`);
    for (const [field] of fields) out.push(`${name}.${field} offset ${members[field].offset}`);
  }
  for (const [name, value] of Object.entries(constants)) out.push(`${name} value ${value}`);
  return out;
};

// The objects (objects/): Endpoint, ProtectionDomain, MemoryRegion,
// CompletionQueue, ... over these functions.
Object.assign(api, require('./objects/index.js')(api));

module.exports = api;

if (require.main === module && process.argv[2] === '--layout') {
  console.log(api.layout().join('\n'));
}
