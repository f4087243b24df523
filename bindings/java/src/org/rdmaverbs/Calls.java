package org.rdmaverbs;

import com.sun.jna.Function;
import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.nio.ByteOrder;

/** What the object API calls without JNA's marshalling of structs: the data
 * path's functions of librdmaverbs (the same ibv_post_send@RDMAVERBS_1.3
 * RdmaVerbs.LIB calls, found by dlvsym) called with the address of work
 * requests laid out here, at the offsets of the binding's structs (checked
 * against the system headers by the layout test); libc's poll for the
 * channels' file descriptors. */
final class Calls {
    private Calls() {}

    static final Function POST_SEND = versioned("ibv_post_send");
    static final Function POST_RECV = versioned("ibv_post_recv");
    static final Function POST_SRQ_RECV = versioned("ibv_post_srq_recv");
    static final Function POLL_CQ = versioned("ibv_poll_cq");

    private static Function versioned(String name) {
        if (RdmaVerbs.LIB == null) throw new IllegalStateException("librdmaverbs not loaded");
        return Function.getFunction(Loader.ADDRESSES.get(name), Function.C_CONVENTION);
    }

    interface Libc extends Library {
        int poll(Pointer fds, long nfds, int timeout);
        int eventfd(int initval, int flags);
        long read(int fd, Pointer buf, long count);
        long write(int fd, Pointer buf, long count);
        int close(int fd);
    }

    static final Libc LIBC = Native.load("c", Libc.class);
    private static final int POLLIN = 1, EINTR = 4;

    /** Waits until fd is readable, timeoutMs at most (negative: no limit);
     * else throws RdmaVerbsException(function, ETIMEDOUT). */
    static void readable(int fd, int timeoutMs, String function) throws RdmaVerbsException {
        readable(fd, -1, timeoutMs, function);
    }

    /** Waits until fd is readable (true) or wakeFd is (false; -1: none),
     * timeoutMs at most (negative: no limit); else throws
     * RdmaVerbsException(function, ETIMEDOUT). */
    static boolean readable(int fd, int wakeFd, int timeoutMs, String function) throws RdmaVerbsException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        Memory p = new Memory(16);   // two struct pollfd
        while (true) {
            p.setInt(0, fd);
            p.setShort(4, (short) POLLIN);
            p.setShort(6, (short) 0);
            p.setInt(8, wakeFd);
            p.setShort(12, (short) POLLIN);
            p.setShort(14, (short) 0);
            int left = timeoutMs < 0 ? -1 : (int) Math.max(0, (deadline - System.nanoTime() + 999_999) / 1_000_000);
            int r = LIBC.poll(p, wakeFd < 0 ? 1 : 2, left);
            if (r > 0) return p.getShort(6) != 0 || p.getShort(14) == 0;
            if (r == 0) throw new RdmaVerbsException(function, RdmaVerbs.ETIMEDOUT, "nothing within " + timeoutMs + " ms");
            int errno = Native.getLastError();
            if (errno != EINTR) throw new RdmaVerbsException("poll", errno);
        }
    }

    private static final int EFD_NONBLOCK = 04000, EFD_CLOEXEC = 02000000;

    /** A new eventfd (non-blocking): a channel's wake descriptor. */
    static int eventfd() {
        int fd = LIBC.eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (fd < 0) throw new IllegalStateException("eventfd: errno " + Native.getLastError());
        return fd;
    }

    /** Makes an eventfd readable (adds 1). */
    static void signal(int efd) {
        Memory one = new Memory(8);
        one.setLong(0, 1);
        LIBC.write(efd, one, 8);
    }

    /** Makes an eventfd not readable again (reads its count). */
    static void drain(int efd) {
        LIBC.read(efd, new Memory(8), 8);
    }

    static void closeFd(int fd) {
        LIBC.close(fd);
    }

    /** A 32-bit value in network order, as C holds it in memory, from the
     * value in host order (and back: the same swap). */
    static int net(int v) {
        return ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN ? v : Integer.reverseBytes(v);
    }

    // The layouts the object API writes and reads, from the binding's structs.
    static final int SGE = new RdmaVerbs.ibv_sge().size();
    static final int SGE_ADDR = off(new RdmaVerbs.ibv_sge(), "addr");
    static final int SGE_LENGTH = off(new RdmaVerbs.ibv_sge(), "length");
    static final int SGE_LKEY = off(new RdmaVerbs.ibv_sge(), "lkey");

    static final int SEND_WR = new RdmaVerbs.ibv_send_wr().size();
    static final int SW_WR_ID = off(new RdmaVerbs.ibv_send_wr(), "wr_id");
    static final int SW_NEXT = off(new RdmaVerbs.ibv_send_wr(), "next");
    static final int SW_SG_LIST = off(new RdmaVerbs.ibv_send_wr(), "sg_list");
    static final int SW_NUM_SGE = off(new RdmaVerbs.ibv_send_wr(), "num_sge");
    static final int SW_OPCODE = off(new RdmaVerbs.ibv_send_wr(), "opcode");
    static final int SW_SEND_FLAGS = off(new RdmaVerbs.ibv_send_wr(), "send_flags");
    static final int SW_IMM_DATA = off(new RdmaVerbs.ibv_send_wr(), "imm_data");
    private static final int SW_WR = off(new RdmaVerbs.ibv_send_wr(), "wr");
    static final int SW_RDMA_REMOTE_ADDR = SW_WR + off(new RdmaVerbs.ibv_send_wr_wr_rdma(), "remote_addr");
    static final int SW_RDMA_RKEY = SW_WR + off(new RdmaVerbs.ibv_send_wr_wr_rdma(), "rkey");
    static final int SW_ATOMIC_REMOTE_ADDR = SW_WR + off(new RdmaVerbs.ibv_send_wr_wr_atomic(), "remote_addr");
    static final int SW_ATOMIC_COMPARE_ADD = SW_WR + off(new RdmaVerbs.ibv_send_wr_wr_atomic(), "compare_add");
    static final int SW_ATOMIC_SWAP = SW_WR + off(new RdmaVerbs.ibv_send_wr_wr_atomic(), "swap");
    static final int SW_ATOMIC_RKEY = SW_WR + off(new RdmaVerbs.ibv_send_wr_wr_atomic(), "rkey");

    static final int RECV_WR = new RdmaVerbs.ibv_recv_wr().size();
    static final int RW_WR_ID = off(new RdmaVerbs.ibv_recv_wr(), "wr_id");
    static final int RW_NEXT = off(new RdmaVerbs.ibv_recv_wr(), "next");
    static final int RW_SG_LIST = off(new RdmaVerbs.ibv_recv_wr(), "sg_list");
    static final int RW_NUM_SGE = off(new RdmaVerbs.ibv_recv_wr(), "num_sge");

    static final int WC = new RdmaVerbs.ibv_wc().size();
    static final int WC_WR_ID = off(new RdmaVerbs.ibv_wc(), "wr_id");
    static final int WC_STATUS = off(new RdmaVerbs.ibv_wc(), "status");
    static final int WC_OPCODE = off(new RdmaVerbs.ibv_wc(), "opcode");
    static final int WC_VENDOR_ERR = off(new RdmaVerbs.ibv_wc(), "vendor_err");
    static final int WC_BYTE_LEN = off(new RdmaVerbs.ibv_wc(), "byte_len");
    static final int WC_IMM_DATA = off(new RdmaVerbs.ibv_wc(), "imm_data");
    static final int WC_QP_NUM = off(new RdmaVerbs.ibv_wc(), "qp_num");
    static final int WC_SRC_QP = off(new RdmaVerbs.ibv_wc(), "src_qp");
    static final int WC_FLAGS = off(new RdmaVerbs.ibv_wc(), "wc_flags");
    static final int WC_PKEY_INDEX = off(new RdmaVerbs.ibv_wc(), "pkey_index");
    static final int WC_SLID = off(new RdmaVerbs.ibv_wc(), "slid");
    static final int WC_SL = off(new RdmaVerbs.ibv_wc(), "sl");
    static final int WC_DLID_PATH_BITS = off(new RdmaVerbs.ibv_wc(), "dlid_path_bits");

    /** Writes g as an ibv_sge at offset o of m. */
    static void sge(Memory m, long o, Sge g) {
        m.setLong(o + SGE_ADDR, g.address());
        m.setInt(o + SGE_LENGTH, g.length());
        m.setInt(o + SGE_LKEY, g.mr().lkey());
    }

    private static int off(Shape s, String field) {
        return s.offsetOf(field);
    }
}
