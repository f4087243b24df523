package org.rdmaverbs;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The object API on the recording provider (bindings/recorder.c): the work
 * requests it lays out, as the provider received them; completions reaped,
 * every field; failures as RdmaVerbsException with their errno; the order
 * objects close in, whatever is closed first; nothing left open after an
 * exception; a bounded wait; and buffers kept alive: a buffer posted, every
 * reference of the program's dropped, the collector run and its memory
 * churned, reaches the provider intact when it reads it late (as a card
 * does), and is released once its completion is reaped. The provider's
 * objects are adopted (not made, never destroyed). Run by BindingTest. */
final class ObjectsTest {
    private ObjectsTest() {}

    interface Recorder extends Library {
        Pointer recorder_id();
        Pointer recorder_qp();
        Pointer recorder_srq();
        Pointer recorder_cq();
        Pointer recorder_empty_cq();
        void recorder_fail(int err);
        String recorder_last();
        void recorder_read_late();
        int recorder_sent(byte[] out, int max);
        void recorder_loopback();
    }

    interface Libc extends Library {
        int pipe(int[] fds);
        long write(int fd, byte[] buf, long n);
        int close(int fd);
    }

    static final Recorder REC = Native.load(System.getenv("RDMAVERBS_RECORDER"), Recorder.class);
    static final Libc LIBC = Native.load("c", Libc.class);
    static final Pointer FAKE_PD = new Pointer(0xfd000);   // never called: the MRs and SRQ are adopted

    static void check(boolean ok, String what) {
        BindingTest.check(ok, "objects: " + what);
    }

    static String sge(MemoryRegion mr, long offset, int length) {
        return String.format(" sge=0x%x:0x%x:0x%x", mr.address() + offset, length, mr.lkey());
    }

    static ByteBuffer pattern(int n, int seed) {
        ByteBuffer b = ByteBuffer.allocateDirect(n);
        for (int j = 0; j < n; j++) b.put(j, (byte) (seed + j));
        return b;
    }

    /** The work requests as the provider got them, and the completions. */
    static void posts() throws RdmaVerbsException {
        REC.recorder_id();
        try (ProtectionDomain pd = new ProtectionDomain(FAKE_PD, false);
             CompletionQueue cq = new CompletionQueue(REC.recorder_cq());
             SharedReceiveQueue srq = new SharedReceiveQueue(pd, REC.recorder_srq());
             Endpoint ep = new Endpoint(null, false, REC.recorder_id(), false);
             MemoryRegion a = new MemoryRegion(pd, ByteBuffer.allocateDirect(256), 0x11, false);
             MemoryRegion b = new MemoryRegion(pd, ByteBuffer.allocateDirect(64), 0x22, false)) {
            QueuePair qp = new QueuePair(ep, pd, REC.recorder_qp(), 0x1100, cq, cq, srq);
            qp.postSend(SendWork.sendWithImm(0x600, 0x0a0b0c0d, a.sge(0, 16), a.sge(16, 48)),
                        SendWork.compareSwap(0x601, b.sge(0, 8), 0xfedc000000003000L, 0x80000066,
                                             0x1111222233334444L, 0x5555666677778888L).flags(RdmaVerbs.IBV_SEND_FENCE),
                        SendWork.fetchAdd(0x602, b.sge(8, 8), 0xfedc000000003008L, 0x77, 0x8000000000000001L)
                            .unsignaled(),
                        SendWork.write(0x603, 0xfedc000000004000L, 0x88, a.sge(64, 32)).solicited(),
                        SendWork.read(0x604, 0xfedc000000005000L, 0x99, a.sge(128, 128)));
            String want = "send_imm wr_id=0x600 flags=0x2 imm=0xd0c0b0a" + sge(a, 0, 16) + sge(a, 16, 48)
                + " | cas wr_id=0x601 flags=0x1 remote=0xfedc000000003000 rkey=0x80000066 compare=0x1111222233334444"
                + " swap=0x5555666677778888" + sge(b, 0, 8)
                + " | fadd wr_id=0x602 flags=0x0 remote=0xfedc000000003008 rkey=0x77 add=0x8000000000000001" + sge(b, 8, 8)
                + " | write wr_id=0x603 flags=0x6 remote=0xfedc000000004000 rkey=0x88" + sge(a, 64, 32)
                + " | read wr_id=0x604 flags=0x2 remote=0xfedc000000005000 rkey=0x99" + sge(a, 128, 128);
            String got = REC.recorder_last();
            check(got.equals(want), "postSend of 5 (send with imm over 2 SGEs, cas, fetch-and-add, write, read):"
                  + " every field as the provider got it, the immediate data in network order"
                  + (got.equals(want) ? "" : ": recorded '" + got + "'"));
            check(qp.held() == 5, "the 5 posted work requests held (" + qp.held() + ")");
            srq.postRecv(new RecvWork(0x620, a.sge(0, 64)), new RecvWork(0x621, a.sge(64, 64), b.sge()));
            want = "srq_recv wr_id=0x620" + sge(a, 0, 64) + " | srq_recv wr_id=0x621" + sge(a, 64, 64) + sge(b, 0, 64);
            check(REC.recorder_last().equals(want) && srq.held() == 2, "srq.postRecv of 2: every field, both held");
            srq.postRecv(new RecvWork(0x5000, a.sge(0, 8)));
            // A QP of its own receive queue (qp_num 0x1102).
            QueuePair own = new QueuePair(ep, pd, REC.recorder_qp(), 0x1102, cq, cq, null);
            own.postRecv(new RecvWork(0x630, a.sge(0, 32)));
            check(REC.recorder_last().equals("recv wr_id=0x630" + sge(a, 0, 32)), "postRecv: every field");
            own.postRecv(new RecvWork(0x5002, a.sge(32, 32)));
            // Failures: the provider's errno value, nothing held of what was
            // refused; a poll's -1 with errno.
            REC.recorder_fail(RdmaVerbs.ENOMEM);
            check(BindingTest.errnoOf(() -> qp.postSend(SendWork.send(0x605, a.sge()))) == RdmaVerbs.ENOMEM && qp.held() == 5,
                  "postSend refused by the provider (ENOMEM): RdmaVerbsException ENOMEM, the refused one not held");
            REC.recorder_fail(RdmaVerbs.EIO);
            check(BindingTest.errnoOf(() -> cq.poll(4)) == RdmaVerbs.EIO, "poll failing (-1, errno EIO): RdmaVerbsException EIO");
            // Completions: the provider's three (wr_id 0x5000 + i, qp_num
            // 0x1100 + i), every field, the immediate data in host order.
            List<Completion> wc = cq.poll(4);
            List<Completion> want3 = List.of(
                new Completion(0x5000, RdmaVerbs.IBV_WC_SUCCESS, RdmaVerbs.IBV_WC_RECV, 0x40, RdmaVerbs.IBV_WC_WITH_IMM,
                               0xd0c0b0a0, 0x1100, 0x100, 0x2200, 0x30, 0x4400, 1, 0x50),
                new Completion(0x5001, RdmaVerbs.IBV_WC_SUCCESS, RdmaVerbs.IBV_WC_COMP_SWAP, 0x41, 0, 0xd1c0b0a0, 0x1101,
                               0x101, 0x2201, 0x31, 0x4401, 2, 0x51),
                new Completion(0x5002, RdmaVerbs.IBV_WC_REM_ACCESS_ERR, RdmaVerbs.IBV_WC_FETCH_ADD, 0x42, 0, 0xd2c0b0a0,
                               0x1102, 0x102, 0x2202, 0x32, 0x4402, 3, 0x52));
            check(wc.equals(want3) && !wc.get(2).ok() && wc.get(2).statusText().equals("remote access error"),
                  "poll(4): the 3 completions, every field" + (wc.equals(want3) ? "" : ": " + wc));
            check(qp.held() == 5 && srq.held() == 2 && own.held() == 0,
                  "reaped: the SRQ's receive 0x5000 (a receive of QP 0x1100) released, the other 2 held; QP 0x1102's"
                  + " receive 0x5002 (completed in error) released with the one before it; the sends held");
            check(Arrays.asList(qp, cq, srq, a).stream().noneMatch(Resource::isClosed), "all open before the close");
        }
    }

    /** Closing in the order C needs, whatever is closed first. */
    static void order() throws RdmaVerbsException {
        List<String> log = new ArrayList<>();
        Resource.onDestroy = r -> log.add(r.getClass().getSimpleName());
        int before = Resource.openCount();
        try {
            ProtectionDomain pd = new ProtectionDomain(FAKE_PD, false);
            CompletionQueue cq = new CompletionQueue(REC.recorder_cq());
            SharedReceiveQueue srq = new SharedReceiveQueue(pd, REC.recorder_srq());
            MemoryRegion mr = new MemoryRegion(pd, ByteBuffer.allocateDirect(64), 0x11, false);
            Endpoint ep = new Endpoint(null, false, REC.recorder_id(), false);
            QueuePair qp = new QueuePair(ep, pd, REC.recorder_qp(), 0x1100, cq, cq, srq);
            check(Resource.openCount() == before + 6, "6 objects open");
            pd.close();   // first: its QP, MR and SRQ close before it
            check(log.equals(List.of("QueuePair", "MemoryRegion", "SharedReceiveQueue", "ProtectionDomain"))
                  && qp.isClosed() && mr.isClosed() && !cq.isClosed() && !ep.isClosed(),
                  "closing the PD first closes the QP, the MR, the SRQ, then the PD (" + log + ")");
            String refused = "";
            try {
                qp.postSend(SendWork.send(1, mr.sge()));
            } catch (IllegalStateException e) {
                refused = e.getMessage();
            }
            check(refused.equals("QueuePair is closed"), "a closed QP refuses a post: IllegalStateException");
            pd.close();
            ep.close();
            cq.close();
            check(log.size() == 6 && Resource.openCount() == before, "closing twice does nothing; all closed");
            // What is made on an endpoint (its context) is closed before it.
            log.clear();
            ep = new Endpoint(null, false, REC.recorder_id(), false);
            CompletionChannel channel = new CompletionChannel(ep, new Pointer(0xcc000), -1, false);
            pd = new ProtectionDomain(ep, FAKE_PD, false);
            cq = new CompletionQueue(ep, REC.recorder_cq(), channel, false);
            mr = new MemoryRegion(pd, ByteBuffer.allocateDirect(64), 0x11, false);
            qp = new QueuePair(ep, pd, REC.recorder_qp(), 0x1100, cq, cq, null);
            ep.close();
            check(log.equals(List.of("QueuePair", "CompletionQueue", "MemoryRegion", "ProtectionDomain", "CompletionChannel",
                                     "Endpoint")) && Resource.openCount() == before,
                  "closing an endpoint first closes what was made on it, the last first: its QP, its CQ, its PD (its MR"
                  + " first), its completion channel, then the endpoint (" + log + ")");
        } finally {
            Resource.onDestroy = null;
        }
        // An exception mid-way: try-with-resources closes what was made.
        try (ProtectionDomain pd = new ProtectionDomain(FAKE_PD, false);
             MemoryRegion mr = new MemoryRegion(pd, ByteBuffer.allocateDirect(64), 0x11, false)) {
            if (mr.length() == 64) throw new IllegalStateException("mid-way");
        } catch (IllegalStateException e) {
            check(e.getMessage().equals("mid-way") && Resource.openCount() == before,
                  "an exception mid-way leaves nothing open");
        }
        // A constructor failing mid-way (no RDMA device here: no event
        // channel, or no address to resolve) closes what it made.
        int errno = BindingTest.errnoOf(() -> Endpoint.resolve("192.0.2.1", 7471, 100).close());
        check(errno != 0 && Resource.openCount() == before,
              "Endpoint.resolve without RDMA: RdmaVerbsException (errno " + errno + "), nothing left open");
    }

    /** An event channel's C calls, scripted: the events it reads, the ids
     * it destroys. */
    static final class Script implements EventChannel.Source {
        final java.util.ArrayDeque<CmEvent> events = new java.util.ArrayDeque<>();
        final List<Pointer> destroyed = new ArrayList<>();

        /** A pipe's read end, or -1: with no event scripted, a wait polls it
         * (and the wake descriptor) rather than time out at once. */
        int block = -1;

        @Override
        public boolean await(int timeoutMs, String function, int wakeFd) throws RdmaVerbsException {
            if (!events.isEmpty()) return true;
            if (block < 0) throw new RdmaVerbsException(function, RdmaVerbs.ETIMEDOUT, "scripted");
            return Calls.readable(block, wakeFd, timeoutMs, function);
        }

        @Override
        public CmEvent get() {
            return events.poll();
        }

        @Override
        public void destroyId(Pointer id) {
            destroyed.add(id);
        }

        void add(int type, long id, long listenId) {
            events.add(new CmEvent(type, 0, new Pointer(id), listenId == 0 ? null : new Pointer(listenId)));
        }
    }

    /** Reads every event scripted (waiting for one nothing matches). */
    static void readAll(EventChannel ch) {
        check(BindingTest.errnoOf(() -> ch.next(ev -> false, null, 0, "rdma_get_cm_event")) == RdmaVerbs.ETIMEDOUT, "all read");
    }

    /** Events kept for their ids, dropped with them: an endpoint's events
     * read while another waited are dropped when it closes (an endpoint
     * made later at the same address gets none of them); a connect request
     * of a listener is kept until taken, its id destroyed if the listener
     * or the channel closes first; an event of an id not the channel's is
     * dropped, a connect request's refused (its id destroyed). */
    static void events() throws RdmaVerbsException {
        int before = Resource.openCount();
        Script c = new Script();
        EventChannel ch = new EventChannel(c);
        long l = 0x1000, a = 0x2000, n1 = 0x3000, n2 = 0x3100, n3 = 0x3200, n4 = 0x3300;
        Listener listener = new Listener(ch, new Pointer(l), false);
        Endpoint ep = new Endpoint(ch, false, new Pointer(a), false);
        Endpoint waiter = new Endpoint(ch, false, new Pointer(0x2800), false);
        c.add(RdmaVerbs.RDMA_CM_EVENT_DISCONNECTED, a, 0);
        c.add(RdmaVerbs.RDMA_CM_EVENT_CONNECT_REQUEST, n1, l);
        c.add(RdmaVerbs.RDMA_CM_EVENT_CONNECT_REQUEST, n2, l);
        c.add(RdmaVerbs.RDMA_CM_EVENT_ESTABLISHED, 0x4000, 0);              // an id not the channel's
        c.add(RdmaVerbs.RDMA_CM_EVENT_CONNECT_REQUEST, n3, 0x5000);         // a listener not the channel's
        c.add(RdmaVerbs.RDMA_CM_EVENT_ESTABLISHED, n1, 0);                  // the new id's, before it is taken
        c.add(RdmaVerbs.RDMA_CM_EVENT_ROUTE_RESOLVED, 0x2800, 0);
        CmEvent e = ch.expect(new Pointer(0x2800), null, RdmaVerbs.RDMA_CM_EVENT_ROUTE_RESOLVED, 0, "rdma_resolve_route");
        check(e.id().equals(new Pointer(0x2800)) && c.destroyed.equals(List.of(new Pointer(n3))) && ch.heldCount() == 4,
              "waiting for an endpoint's event: 4 others kept (another's DISCONNECTED, 2 connect requests, the new id's"
              + " ESTABLISHED); an unknown id's dropped; a connect request for no listener of the channel refused, its id"
              + " destroyed (" + c.destroyed + ", " + ch.heldCount() + " kept)");
        Endpoint taken = listener.getRequest(0);
        check(taken.handle().equals(new Pointer(n1)), "getRequest: the first connect request's id");
        check(BindingTest.errnoOf(() -> ch.expect(new Pointer(n1), null, RdmaVerbs.RDMA_CM_EVENT_ESTABLISHED, 0, "rdma_accept")) == 0,
              "the new id's event read before it was taken is its endpoint's");
        ep.close();
        check(ch.heldCount() == 1, "an endpoint closed: its DISCONNECTED, read and not taken, dropped ("
              + ch.heldCount() + " kept)");
        Endpoint again = new Endpoint(ch, false, new Pointer(a), false);   // malloc gave the same address
        int errno = BindingTest.errnoOf(() -> again.awaitDisconnect(0));
        check(errno == RdmaVerbs.ETIMEDOUT, "an endpoint at the closed one's address: not given its DISCONNECTED (errno "
              + errno + ")");
        again.close();
        waiter.close();
        Listener third = new Listener(ch, new Pointer(0x8000), false);
        c.events.add(new CmEvent(RdmaVerbs.RDMA_CM_EVENT_CONNECT_REQUEST, -RdmaVerbs.ETIMEDOUT, new Pointer(0x3400),
                                 new Pointer(0x8000)));
        errno = BindingTest.errnoOf(() -> third.getRequest(0));
        third.close();
        check(errno == RdmaVerbs.ETIMEDOUT && c.destroyed.equals(List.of(new Pointer(n3), new Pointer(0x3400))),
              "a connect request in error: RdmaVerbsException (errno " + errno + ", its status), its id destroyed");
        c.add(RdmaVerbs.RDMA_CM_EVENT_CONNECT_REQUEST, n4, l);
        c.add(RdmaVerbs.RDMA_CM_EVENT_DISCONNECTED, n2, 0);
        readAll(ch);
        check(ch.heldCount() == 3, "the events of the requests not taken kept (" + ch.heldCount() + ")");
        listener.close();
        check(new java.util.HashSet<>(c.destroyed).equals(java.util.Set.of(new Pointer(n3), new Pointer(0x3400),
                                                                           new Pointer(n2), new Pointer(n4)))
              && c.destroyed.size() == 4 && ch.heldCount() == 0,
              "a listener closed: the ids of its 2 connect requests not taken destroyed, their events dropped ("
              + c.destroyed + ")");
        // A connect request not taken when the channel closes (its listener
        // with it): its id destroyed.
        Listener second = new Listener(ch, new Pointer(0x7000), false);
        c.add(RdmaVerbs.RDMA_CM_EVENT_CONNECT_REQUEST, 0x7100, 0x7000);
        readAll(ch);
        ch.close();
        check(c.destroyed.size() == 5 && c.destroyed.get(4).equals(new Pointer(0x7100)) && second.isClosed()
              && taken.isClosed() && Resource.openCount() == before,
              "the channel closed: its listener and endpoints with it, the connect request not taken destroyed");
    }

    /** A bounded wait on a file descriptor: ETIMEDOUT, then ready. */
    static void waits() throws RdmaVerbsException {
        int[] fds = new int[2];
        check(LIBC.pipe(fds) == 0, "pipe");
        long t0 = System.nanoTime();
        int errno = BindingTest.errnoOf(() -> Calls.readable(fds[0], 100, "ibv_get_cq_event"));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        check(errno == RdmaVerbs.ETIMEDOUT && ms >= 95 && ms < 10_000,
              "a wait of 100 ms on a silent descriptor: ETIMEDOUT after " + ms + " ms");
        LIBC.write(fds[1], new byte[] {1}, 1);
        check(BindingTest.errnoOf(() -> Calls.readable(fds[0], 10_000, "ibv_get_cq_event")) == 0, "a readable one: no wait");
        LIBC.close(fds[0]);
        LIBC.close(fds[1]);
        // A negative limit: none. The loopback provider completes a send
        // only once posted, which another thread does after 200 ms (between
        // two polls: it holds the CQ's lock, as poll does).
        try (ProtectionDomain pd = new ProtectionDomain(FAKE_PD, false);
             CompletionQueue cq = new CompletionQueue(REC.recorder_cq());
             Endpoint ep = new Endpoint(null, false, REC.recorder_id(), false);
             MemoryRegion mr = new MemoryRegion(pd, ByteBuffer.allocateDirect(64), 0x11, false)) {
            REC.recorder_loopback();   // after recorder_id, which ends it
            QueuePair qp = new QueuePair(ep, pd, REC.recorder_qp(), 0, cq, cq, null);
            Thread poster = new Thread(() -> {
                sleep(200);
                synchronized (cq) {
                    try {
                        qp.postSend(SendWork.send(0x77, mr.sge(0, 8)));
                    } catch (RdmaVerbsException e) {
                        check(false, "the other thread's post: " + e);
                        Runtime.getRuntime().halt(1);   // else the poll with no limit waits for ever
                    }
                }
            });
            poster.start();
            long start = System.nanoTime();
            List<Completion> got = new ArrayList<>();
            errno = BindingTest.errnoOf(() -> got.addAll(cq.poll(1, -1)));
            long waited = (System.nanoTime() - start) / 1_000_000;
            join(poster);
            check(errno == 0 && got.size() == 1 && got.get(0).wrId() == 0x77 && waited >= 150,
                  "poll(1, -1): no limit, the completion of a send posted 200 ms later (errno " + errno + ", "
                  + got.size() + " completions after " + waited + " ms)");
        }
    }

    static void join(Thread t) {
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Runs the collector until a dropped direct buffer was collected (and
     * its memory freed: the JDK's cleaner runs right after), then allocates
     * buffers of the same size over the freed memory, filled with 0xee:
     * they are returned, to stay allocated while the provider reads. */
    static List<ByteBuffer> collectAndChurn(int size) {
        for (int round = 0; round < 3; round++) {
            WeakReference<ByteBuffer> sentinel = new WeakReference<>(ByteBuffer.allocateDirect(size));
            for (int i = 0; i < 200 && sentinel.get() != null; i++) {
                System.gc();
                sleep(10);
            }
        }
        sleep(50);
        List<ByteBuffer> churn = new ArrayList<>();
        for (int i = 0; i < 256; i++) {
            ByteBuffer b = ByteBuffer.allocateDirect(size);
            for (int j = 0; j < size; j++) b.put(j, (byte) 0xee);
            churn.add(b);
        }
        return churn;
    }

    static void sleep(int ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static final int SIZE = 256;

    /** Posts a buffer through an MR closed at once, as a program might,
     * keeping nothing but a weak reference. */
    static WeakReference<ByteBuffer> postAndForget(QueuePair qp, ProtectionDomain pd) throws RdmaVerbsException {
        ByteBuffer buf = pattern(SIZE, 0x3c);
        try (MemoryRegion mr = new MemoryRegion(pd, buf, 0x77, false)) {
            REC.recorder_read_late();
            qp.postSend(SendWork.send(0x5001, mr.sge()));
        }
        return new WeakReference<>(buf);
    }

    /** Registers and posts a buffer, keeping nothing (the MR left open). */
    static WeakReference<ByteBuffer> registerPostAndForget(QueuePair qp, ProtectionDomain pd) throws RdmaVerbsException {
        ByteBuffer buf = pattern(SIZE, 0x5a);
        MemoryRegion mr = new MemoryRegion(pd, buf, 0x78, false);
        REC.recorder_read_late();
        qp.postSend(SendWork.send(0x5001, mr.sge()));
        return new WeakReference<>(buf);
    }

    static boolean sentIs(int seed) {
        byte[] got = new byte[SIZE];
        int n = REC.recorder_sent(got, SIZE);
        byte[] want = new byte[SIZE];
        pattern(SIZE, seed).get(0, want);
        if (n != SIZE || !Arrays.equals(got, want)) {
            System.out.println("java: objects: the provider read " + n + " bytes: " + Arrays.toString(Arrays.copyOf(got, 24))
                               + "...");
            return false;
        }
        return true;
    }

    /** Buffers kept alive while posted, released once reaped. (The PD is
     * closed inside its try on purpose: the MR goes with it.) */
    @SuppressWarnings("try")
    static void lifetime() throws RdmaVerbsException {
        REC.recorder_id();
        try (ProtectionDomain pd = new ProtectionDomain(FAKE_PD, false);
             CompletionQueue cq = new CompletionQueue(REC.recorder_cq());
             Endpoint ep = new Endpoint(null, false, REC.recorder_id(), false)) {
            // The provider's second completion is wr_id 0x5001, a send's
            // (COMP_SWAP) on qp_num 0x1101: this QP's.
            QueuePair qp = new QueuePair(ep, pd, REC.recorder_qp(), 0x1101, cq, cq, null);
            WeakReference<ByteBuffer> ref = postAndForget(qp, pd);
            List<ByteBuffer> churn = collectAndChurn(SIZE);
            check(ref.get() != null && qp.held() == 1,
                  "a posted buffer whose MR was closed and every reference dropped: still held after a collection");
            List<Completion> wc = cq.poll(4);
            check(sentIs(0x3c) && wc.size() == 3 && wc.get(1).wrId() == 0x5001,
                  "its bytes, read by the provider at the poll after the collection, are intact");
            check(qp.held() == 0, "its completion reaped: released");
            churn.clear();
            collectAndChurn(SIZE);
            check(ref.get() == null, "once released, the collector takes it");
            // An MR left open, the program's references dropped: the MR
            // (held while open) holds its buffer.
            ref = registerPostAndForget(qp, pd);
            churn = collectAndChurn(SIZE);
            wc = cq.poll(4);
            check(sentIs(0x5a) && qp.held() == 0 && ref.get() != null,
                  "a buffer of an open MR, the program's references dropped: intact after a collection, held by its MR");
            pd.close();   // the MR with it
            churn.clear();
            collectAndChurn(SIZE);
            check(ref.get() == null, "the MR closed (with its PD): the collector takes the buffer");
        }
    }

    /** The README's first block is examples/Hello.java, word for word. */
    static void readme() {
        try {
            String readme = java.nio.file.Files.readString(java.nio.file.Paths.get("bindings/java/README.md"));
            String hello = java.nio.file.Files.readString(java.nio.file.Paths.get("bindings/java/examples/Hello.java"));
            int at = readme.indexOf("```java\n");
            check(at >= 0 && readme.startsWith(hello + "```\n", at + 8) && readme.indexOf("```", 0) == at,
                  "README.md opens with examples/Hello.java, word for word");
        } catch (java.io.IOException e) {
            check(false, "README.md and examples/Hello.java read: " + e);
        }
    }

    static void run() throws RdmaVerbsException {
        readme();
        posts();
        order();
        events();
        waits();
        lifetime();
        CloseTest.run();
        AsyncTest.run();
    }
}
