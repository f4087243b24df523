package org.rdmaverbs;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The object API on the recording provider (bindings/recorder/): the work
 * requests it lays out, as the provider received them; completions reaped,
 * every field; failures as RdmaVerbsException with their errno; the order
 * objects close in, whatever is closed first; nothing left open after an
 * exception; a bounded wait. Then the events kept for their ids
 * (EventsTest), buffers kept alive (LifetimeTest), closing (CloseTest) and
 * the async waits (AsyncTest). The provider's objects are adopted (not
 * made, never destroyed). Run by BindingTest. */
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

    static void sleep(int ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
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
        EventsTest.run();
        waits();
        LifetimeTest.run();
        CloseTest.run();
        AsyncTest.run();
    }
}
