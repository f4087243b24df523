// rdmaverbs: librdmacm's inline <rdma/rdma_verbs.h> functions (and
// rdma_get_local_addr, rdma_get_peer_addr) from Node.js, through
// librdmaverbs.so.1, with koffi.
//
// Every function has its C name and C types (koffi prototypes, api.js,
// generated from the library's table); a failure (-1, or NULL) throws a
// RdmaVerbsError whose .code is the errno's name ('EINVAL') and .errno its
// number as Node's system errors give it (negative: -22), read with
// koffi.errno() right after the call. The unchecked functions are in .raw.
// Pointers are koffi's: BigInt addresses, null for NULL.
//
// The vectored posts (rdma_post_sendv, ...) take their SGEs as an array of
// objects ({ addr, length, lkey }), which koffi copies into one C array; an
// nsge larger than the array is refused with a RangeError.
// rdma_get_src_port and rdma_get_dst_port return the port in network byte
// order, as C does; src_port and dst_port return it in host order.
// ibv_wc_status_str (libibverbs) returns a string.
//
// The libraries: librdmaverbs.so.1, librdmacm.so.1 and libibverbs.so.1,
// found by the dynamic loader; RDMAVERBS_LIBRARY names another copy of
// librdmaverbs.
'use strict';

const koffi = require('koffi');
const os = require('os');
const util = require('util');
const { constants, structs, functions, hostOrder } = require('./api.js');

// The structs, as koffi types, by name.
const types = {};
for (const [name, fields] of structs) {
  const def = {};
  for (const [field, type] of fields) {
    const bytes = /^uint8_t\[(\d+)\]$/.exec(type);
    def[field] = bytes ? koffi.array('uint8_t', Number(bytes[1]), 'Array') : types[type] || type;
  }
  types[name] = koffi.struct(name, def);
}

const library = process.env.RDMAVERBS_LIBRARY || 'librdmaverbs.so.1';
const libs = {
  rdmaverbs: koffi.load(library),
  rdmacm: koffi.load('librdmacm.so.1'),
  ibverbs: koffi.load('libibverbs.so.1'),
};

/** A failed call: .syscall the function, .errno (negative) and .code. */
class RdmaVerbsError extends Error {
  constructor(fn, errno) {
    const code = util.getSystemErrorName(-errno);
    super(`${fn}: ${code}`);
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

const raw = {};
const api = { ...constants, constants, types, raw, koffi, library, RdmaVerbsError };
for (const [lib, proto, error, arrays] of functions) {
  const fn = libs[lib].func(proto);
  const name = /(\w+)\(/.exec(proto)[1];
  raw[name] = fn;
  api[name] = !error && !arrays.length ? fn : (...args) => {
    for (const [i, count] of arrays) args[i] = array(name, args[i], args[count]);
    const r = fn(...args);
    if (error === 'int' ? r < 0 : error === 'ptr' && r === null) {
      throw new RdmaVerbsError(name, koffi.errno());
    }
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
  for (const [name, fields] of structs) {
    out.push(`${name} sizeof ${koffi.sizeof(types[name])}`);
    for (const [field] of fields) {
      out.push(`${name}.${field} offset ${koffi.offsetof(types[name], field)}`);
    }
  }
  for (const [name, value] of Object.entries(constants)) out.push(`${name} value ${value}`);
  return out;
};

module.exports = api;

if (require.main === module && process.argv[2] === '--layout') {
  console.log(api.layout().join('\n'));
}
