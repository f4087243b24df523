// Memory regions: an MR holds its buffer.
'use strict';

module.exports = function mrObjects(ctx) {
  const { Base, Native, koffi, mrOf, sge, types } = ctx;

  const ownerOf = new WeakMap();   // MemoryRegion of ep.reg -> the endpoint's set of them

  class MemoryRegion extends Base {
    constructor(ptr, buffer, destroy, pd) {
      const native = new Native('MemoryRegion', ptr, destroy, [pd]);
      native.keep.push(buffer);
      super('MemoryRegion', [native], destroy !== null);
      mrOf.set(this, native);
      const mr = koffi.decode(ptr, types.ibv_mr);
      this.ptr = ptr;
      this.buffer = buffer;
      this.addr = BigInt(mr.addr);
      this.length = Number(mr.length);
      this.lkey = mr.lkey;
      this.rkey = mr.rkey;
    }

    close() {
      try {
        super.close();
      } finally {
        const owner = ownerOf.get(this);
        if (owner) owner.delete(this);
        ownerOf.delete(this);
      }
    }

    /** An MR made with the raw functions, over buffer: held as any, not
     * deregistered by close(). */
    static adopt(ptr, buffer) {
      return new MemoryRegion(ptr, buffer, null, null);
    }

    /** An SGE of length bytes at offset (the rest of the MR by default). */
    sge(offset = 0, length = this.length - offset) {
      return { mr: this, offset, length };
    }
  }

  Object.assign(ctx, { ownerOf, MemoryRegion });
};
