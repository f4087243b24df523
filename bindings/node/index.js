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
// The libraries: librdmaverbs.so.1 and librdmacm.so.1, found by the
// dynamic loader; RDMAVERBS_LIBRARY names another copy of librdmaverbs.
'use strict';

const koffi = require('koffi');
const util = require('util');
const { constants, structs, functions } = require('./api.js');

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
const libs = { rdmaverbs: koffi.load(library), rdmacm: koffi.load('librdmacm.so.1') };

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

const raw = {};
const api = { ...constants, constants, types, raw, koffi, library, RdmaVerbsError };
for (const [lib, proto, error] of functions) {
  const fn = libs[lib].func(proto);
  const name = /(\w+)\(/.exec(proto)[1];
  raw[name] = fn;
  api[name] = !error ? fn : (...args) => {
    const r = fn(...args);
    if (error === 'int' ? r < 0 : r === null) {
      throw new RdmaVerbsError(name, koffi.errno());
    }
    return r;
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
