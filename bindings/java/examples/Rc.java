import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.rdmaverbs.RdmaVerbs;
import org.rdmaverbs.RdmaVerbs.ibv_mr;
import org.rdmaverbs.RdmaVerbs.ibv_sge;
import org.rdmaverbs.RdmaVerbs.ibv_wc;
import org.rdmaverbs.RdmaVerbs.sockaddr_in;
import org.rdmaverbs.RdmaVerbsException;

/** The RC exchange of bindings/rc-protocol.md from Java, with JNA and the
 * org.rdmaverbs binding. Usage: Rc server|client ADDR PORT */
public final class Rc {
    static final int SIZE = 64;
    static String role;

    static void fail(String what) {
        System.err.println("rc " + role + ": " + what);
        System.exit(1);
    }

    static Pointer ctx(long v) {
        return new Pointer(v);
    }

    static void comp(Pointer id, boolean recv, long wrId, int opcode, int len) throws RdmaVerbsException {
        ibv_wc wc = new ibv_wc();
        int r = recv ? RdmaVerbs.rdma_get_recv_comp(id, wc) : RdmaVerbs.rdma_get_send_comp(id, wc);
        if (r != 1 || wc.wr_id != wrId || wc.status != RdmaVerbs.IBV_WC_SUCCESS || wc.opcode != opcode
                || (len >= 0 && wc.byte_len != len)) {
            fail(String.format("completion: wr_id %#x status %d opcode %d byte_len %d; want %#x %d %d",
                               wc.wr_id, wc.status, wc.opcode, wc.byte_len, wrId, opcode, len));
        }
    }

    static void checkAddr(Pointer sa, String addr, int port, String which) {
        sockaddr_in in = new sockaddr_in(sa);
        byte[] a = ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(in.sin_addr).array();
        String got = (a[0] & 255) + "." + (a[1] & 255) + "." + (a[2] & 255) + "." + (a[3] & 255);
        int p = Short.toUnsignedInt(Short.reverseBytes(in.sin_port));
        if (in.sin_family != RdmaVerbs.AF_INET || !got.equals(addr) || (port >= 0 && p != port)) {
            fail(which + " address " + got + ":" + p);
        }
    }

    static byte[] pattern(int base) {
        byte[] b = new byte[SIZE];
        for (int j = 0; j < SIZE; j++) b[j] = (byte) (base + j);
        return b;
    }

    /** A call that may fail as C does. */
    interface Call {
        void run() throws RdmaVerbsException;
    }

    static void expectErrno(Call call, int errno, String what) {
        try {
            call.run();
            fail(what + ": no exception");
        } catch (RdmaVerbsException e) {
            if (e.errno() != errno) fail(what + ": errno " + e.errno() + ", want " + errno);
        }
    }

    public static void main(String[] args) throws RdmaVerbsException {
        if (args.length != 3 || !(args[0].equals("server") || args[0].equals("client"))) {
            System.err.println("usage: Rc server|client ADDR PORT");
            System.exit(2);
        }
        role = args[0];
        boolean server = role.equals("server");
        String addr = args[1];
        int port = Integer.parseInt(args[2]);
        int seed = server ? 0x51 : 0xc1, peerSeed = server ? 0xc1 : 0x51;

        // 1. Set up.
        RdmaVerbs.rdma_addrinfo hints = new RdmaVerbs.rdma_addrinfo();
        hints.ai_port_space = RdmaVerbs.RDMA_PS_TCP;
        hints.ai_flags = server ? RdmaVerbs.RAI_PASSIVE : 0;
        PointerByReference res = new PointerByReference();
        RdmaVerbs.rdma_getaddrinfo(addr, args[2], hints, res);
        RdmaVerbs.ibv_qp_init_attr attr = new RdmaVerbs.ibv_qp_init_attr();
        attr.cap.max_send_wr = 8;
        attr.cap.max_recv_wr = 8;
        attr.cap.max_send_sge = 2;
        attr.cap.max_recv_sge = 1;
        attr.qp_type = RdmaVerbs.IBV_QPT_RC;
        attr.sq_sig_all = 1;
        PointerByReference listen = new PointerByReference(), idRef = new PointerByReference();
        if (server) {
            RdmaVerbs.rdma_create_ep(listen, res.getValue(), null, attr);
            RdmaVerbs.rdma_listen(listen.getValue(), 1);
            System.out.println("rc: listening");
            System.out.flush();
            RdmaVerbs.rdma_get_request(listen.getValue(), idRef);
        } else {
            RdmaVerbs.rdma_create_ep(idRef, res.getValue(), null, attr);
        }
        Pointer id = idRef.getValue();
        // 2. Memory; 3. receives.
        Memory recv = new Memory(4 * SIZE), send = new Memory(SIZE), win = new Memory(SIZE),
               back = new Memory(SIZE);
        win.clear();
        Pointer recvMr = RdmaVerbs.rdma_reg_msgs(id, recv, 4 * SIZE);
        Pointer sendMr = RdmaVerbs.rdma_reg_msgs(id, send, SIZE);
        Pointer wmr = RdmaVerbs.rdma_reg_write(id, win, SIZE), rmr = RdmaVerbs.rdma_reg_read(id, win, SIZE);
        Pointer backMr = RdmaVerbs.rdma_reg_msgs(id, back, SIZE);
        for (int i = 0; i < 4; i++) {
            RdmaVerbs.rdma_post_recv(id, ctx(0x100 + i), recv.share(SIZE * i), SIZE, recvMr);
        }
        // 4. Connect.
        RdmaVerbs.rdma_conn_param param = new RdmaVerbs.rdma_conn_param();
        param.responder_resources = 1;
        param.initiator_depth = 1;
        param.retry_count = 7;
        param.rnr_retry_count = 7;
        if (server) RdmaVerbs.rdma_accept(id, param); else RdmaVerbs.rdma_connect(id, param);
        // 5. Keys.
        ByteBuffer keys = ByteBuffer.allocate(SIZE).order(ByteOrder.LITTLE_ENDIAN);
        keys.putLong(Pointer.nativeValue(win)).putInt(new ibv_mr(wmr).rkey).putInt(new ibv_mr(rmr).rkey);
        send.write(0, keys.array(), 0, SIZE);
        RdmaVerbs.rdma_post_send(id, ctx(0x200), send, SIZE, sendMr, 0);
        comp(id, false, 0x200, RdmaVerbs.IBV_WC_SEND, -1);
        comp(id, true, 0x100, RdmaVerbs.IBV_WC_RECV, SIZE);
        ByteBuffer peer = ByteBuffer.wrap(recv.getByteArray(0, 16)).order(ByteOrder.LITTLE_ENDIAN);
        long peerAddr = peer.getLong();
        int peerWkey = peer.getInt(), peerRkey = peer.getInt();
        // 6. Messages, over two SGEs.
        int lkey = new ibv_mr(sendMr).lkey;
        ibv_sge[] sgl = (ibv_sge[]) new ibv_sge().toArray(2);
        sgl[0].addr = Pointer.nativeValue(send);
        sgl[0].length = 16;
        sgl[0].lkey = lkey;
        sgl[1].addr = Pointer.nativeValue(send) + 16;
        sgl[1].length = 48;
        sgl[1].lkey = lkey;
        for (int k = 0; k < 2; k++) {
            send.write(0, pattern(seed + 7 * k), 0, SIZE);
            RdmaVerbs.rdma_post_sendv(id, ctx(0x300 + k), sgl, 2, 0);
            comp(id, false, 0x300 + k, RdmaVerbs.IBV_WC_SEND, -1);
        }
        for (int k = 0; k < 2; k++) {
            comp(id, true, 0x101 + k, RdmaVerbs.IBV_WC_RECV, SIZE);
            if (!Arrays.equals(recv.getByteArray(SIZE * (1 + k), SIZE), pattern(peerSeed + 7 * k))) {
                fail("message " + k + " differs");
            }
        }
        // 7. RDMA write, and read back.
        byte[] written = pattern(seed ^ 0xa5);
        send.write(0, written, 0, SIZE);
        RdmaVerbs.rdma_post_write(id, ctx(0x400), send, SIZE, sendMr, 0, peerAddr, peerWkey);
        comp(id, false, 0x400, RdmaVerbs.IBV_WC_RDMA_WRITE, -1);
        back.clear();
        RdmaVerbs.rdma_post_read(id, ctx(0x401), back, SIZE, backMr, 0, peerAddr, peerRkey);
        comp(id, false, 0x401, RdmaVerbs.IBV_WC_RDMA_READ, SIZE);
        if (!Arrays.equals(back.getByteArray(0, SIZE), written)) fail("the bytes read back differ");
        // 8. A bounded wait that times out; 9. refused input.
        expectErrno(() -> RdmaVerbs.rdma_get_send_comp_timeout(id, new ibv_wc(), 100), RdmaVerbs.ETIMEDOUT,
                    "rdma_get_send_comp_timeout");
        expectErrno(() -> RdmaVerbs.rdma_post_send(null, null, send, SIZE, sendMr, 0), RdmaVerbs.EINVAL,
                    "rdma_post_send(NULL)");
        expectErrno(() -> RdmaVerbs.rdma_get_local_addr(null), RdmaVerbs.EINVAL, "rdma_get_local_addr(NULL)");
        // 10. Addresses.
        checkAddr(RdmaVerbs.rdma_get_local_addr(id), addr, server ? port : -1, "local");
        checkAddr(RdmaVerbs.rdma_get_peer_addr(id), addr, server ? -1 : port, "peer");
        // 11. Done.
        send.clear();
        send.write(0, "DONE".getBytes(), 0, 4);
        RdmaVerbs.rdma_post_send(id, ctx(0x500), send, SIZE, sendMr, 0);
        comp(id, false, 0x500, RdmaVerbs.IBV_WC_SEND, -1);
        comp(id, true, 0x103, RdmaVerbs.IBV_WC_RECV, SIZE);
        if (!new String(recv.getByteArray(3 * SIZE, 4)).equals("DONE")) fail("no DONE");
        // 12. Teardown.
        RdmaVerbs.rdma_disconnect(id);
        for (Pointer m : new Pointer[] {recvMr, sendMr, wmr, rmr, backMr}) RdmaVerbs.rdma_dereg_mr(m);
        RdmaVerbs.rdma_destroy_ep(id);
        if (server) RdmaVerbs.rdma_destroy_ep(listen.getValue());
        RdmaVerbs.rdma_freeaddrinfo(res.getValue());
        System.out.println("rc: PASS role=" + role + " sends=4 bytes=384");
    }
}
