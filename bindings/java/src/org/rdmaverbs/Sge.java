package org.rdmaverbs;

/** length bytes at offset of a registered buffer (an ibv_sge of it):
 * {@link MemoryRegion#sge}. A work request posted with it holds the MR, and
 * so its buffer, until its completion is reaped. */
public record Sge(MemoryRegion mr, long offset, int length) {
    public Sge {
        if (mr == null) throw new NullPointerException("mr");
        if (offset < 0 || length < 0 || offset + Integer.toUnsignedLong(length) > mr.length()) {
            throw new IndexOutOfBoundsException("bytes " + offset + " to " + (offset + length) + " of an MR of "
                                                + mr.length());
        }
    }

    /** The address of its first byte. */
    public long address() {
        return mr.address() + offset;
    }
}
