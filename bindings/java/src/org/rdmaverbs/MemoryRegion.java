package org.rdmaverbs;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;

/** A registered buffer (ibv_reg_mr_iova2): a direct ByteBuffer, held by the
 * MR for as long as it is open (and by each work request posted with it
 * until that one's completion is reaped), so that the collector never frees
 * memory the card may read or write. Its bytes are the buffer's, from index
 * 0 to its capacity (read and write them with absolute get and put).
 * Closing it deregisters it (ibv_dereg_mr). */
public final class MemoryRegion extends Resource {
    private final ByteBuffer buffer;
    private final long address;
    private final int length;
    private final Pointer mr;
    private final int lkey, rkey;

    /** Registers buffer (direct: ByteBuffer.allocateDirect) on pd with
     * access (IBV_ACCESS_* flags; 0 for a buffer only sent from), its
     * address as the iova (what a peer's RDMA names). */
    public MemoryRegion(ProtectionDomain pd, ByteBuffer buffer, int access) throws RdmaVerbsException {
        super(true);
        if (!buffer.isDirect()) throw new IllegalArgumentException("the buffer is not direct (ByteBuffer.allocateDirect)");
        Pointer at = Native.getDirectBufferPointer(buffer);
        this.buffer = buffer;
        address = Pointer.nativeValue(at);
        length = buffer.capacity();
        mr = RdmaVerbs.ibv_reg_mr_iova2(pd.handle(), at, length, address, access);
        RdmaVerbs.ibv_mr m = new RdmaVerbs.ibv_mr(mr);
        lkey = m.lkey;
        rkey = m.rkey;
        opened(pd);
    }

    /** A buffer as if registered with lkey (the tests' fake MR: nothing is
     * registered, nothing deregistered). */
    MemoryRegion(ProtectionDomain pd, ByteBuffer buffer, int lkey, boolean owned) {
        super(owned);
        this.buffer = buffer;
        address = Pointer.nativeValue(Native.getDirectBufferPointer(buffer));
        length = buffer.capacity();
        mr = null;
        this.lkey = lkey;
        rkey = lkey;
        opened(pd);
    }

    @Override
    public Pointer handle() {
        check();
        return mr;
    }

    /** The buffer registered. */
    public ByteBuffer buffer() {
        return buffer;
    }

    /** The address of its first byte (and the iova a peer names it by). */
    public long address() {
        return address;
    }

    /** Its length in bytes (the buffer's capacity). */
    public int length() {
        return length;
    }

    public int lkey() {
        check();
        return lkey;
    }

    /** The key a peer's RDMA read, write or atomic names it by. */
    public int rkey() {
        check();
        return rkey;
    }

    /** length bytes at offset, to post. */
    public Sge sge(long offset, int length) {
        return new Sge(this, offset, length);
    }

    /** The whole buffer, to post. */
    public Sge sge() {
        return new Sge(this, 0, length);
    }

    @Override
    void destroy() throws RdmaVerbsException {
        RdmaVerbs.ibv_dereg_mr(mr);
    }
}
