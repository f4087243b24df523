// Protection domains.
'use strict';

module.exports = function pdObjects(ctx) {
  const { Base, MemoryRegion, Native, contextOf, koffi, rv } = ctx;

  class ProtectionDomain extends Base {
    /** ibv_alloc_pd on a context (an Endpoint's: the Endpoint, its id then
     * destroyed after the PD; or a context pointer, ep.context). */
    constructor(context) {
      const [ctx, id] = contextOf(context);
      const ptr = rv.ibv_alloc_pd(ctx);
      super('ProtectionDomain', [new Native('ProtectionDomain', ptr, (p) => rv.ibv_dealloc_pd(p), [id])]);
      this.ptr = ptr;
    }

    /** Registers buffer (a Buffer, typed array or ArrayBuffer) with
     * ibv_reg_mr_iova2 (iova its address): an MR that holds it. */
    reg(buffer, access = rv.IBV_ACCESS_LOCAL_WRITE) {
      const pd = this._natives[0].check('ibv_reg_mr_iova2');
      if (!(buffer instanceof ArrayBuffer || ArrayBuffer.isView(buffer))) {
        throw new TypeError('ibv_reg_mr_iova2: a Buffer, typed array or ArrayBuffer');
      }
      const address = koffi.address(buffer);
      const ptr = rv.ibv_reg_mr_iova2(pd, buffer, buffer.byteLength, address, access);
      return new MemoryRegion(ptr, buffer, (p) => rv.ibv_dereg_mr(p), this._natives[0]);
    }
  }

  Object.assign(ctx, { ProtectionDomain });
};
