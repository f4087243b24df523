package org.rdmaverbs;

import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Buffers kept alive: a buffer posted, every reference of the program's
 * dropped, the collector run and its memory churned, reaches the recording
 * provider intact when it reads it late (as a card does), and is released
 * once its completion is reaped; an open MR holds its buffer until it
 * closes. Run by ObjectsTest. */
final class LifetimeTest {
    private LifetimeTest() {}

    static void check(boolean ok, String what) {
        BindingTest.check(ok, "objects: " + what);
    }

    static ByteBuffer pattern(int n, int seed) {
        ByteBuffer b = ByteBuffer.allocateDirect(n);
        for (int j = 0; j < n; j++) b.put(j, (byte) (seed + j));
        return b;
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
                ObjectsTest.sleep(10);
            }
        }
        ObjectsTest.sleep(50);
        List<ByteBuffer> churn = new ArrayList<>();
        for (int i = 0; i < 256; i++) {
            ByteBuffer b = ByteBuffer.allocateDirect(size);
            for (int j = 0; j < size; j++) b.put(j, (byte) 0xee);
            churn.add(b);
        }
        return churn;
    }

    static final int SIZE = 256;

    /** Posts a buffer through an MR closed at once, as a program might,
     * keeping nothing but a weak reference. */
    static WeakReference<ByteBuffer> postAndForget(QueuePair qp, ProtectionDomain pd) throws RdmaVerbsException {
        ByteBuffer buf = pattern(SIZE, 0x3c);
        try (MemoryRegion mr = new MemoryRegion(pd, buf, 0x77, false)) {
            ObjectsTest.REC.recorder_read_late();
            qp.postSend(SendWork.send(0x5001, mr.sge()));
        }
        return new WeakReference<>(buf);
    }

    /** Registers and posts a buffer, keeping nothing (the MR left open). */
    static WeakReference<ByteBuffer> registerPostAndForget(QueuePair qp, ProtectionDomain pd) throws RdmaVerbsException {
        ByteBuffer buf = pattern(SIZE, 0x5a);
        MemoryRegion mr = new MemoryRegion(pd, buf, 0x78, false);
        ObjectsTest.REC.recorder_read_late();
        qp.postSend(SendWork.send(0x5001, mr.sge()));
        return new WeakReference<>(buf);
    }

    static boolean sentIs(int seed) {
        byte[] got = new byte[SIZE];
        int n = ObjectsTest.REC.recorder_sent(got, SIZE);
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
    static void run() throws RdmaVerbsException {
        ObjectsTest.REC.recorder_id();
        try (ProtectionDomain pd = new ProtectionDomain(ObjectsTest.FAKE_PD, false);
             CompletionQueue cq = new CompletionQueue(ObjectsTest.REC.recorder_cq());
             Endpoint ep = new Endpoint(null, false, ObjectsTest.REC.recorder_id(), false)) {
            // The provider's second completion is wr_id 0x5001, a send's
            // (COMP_SWAP) on qp_num 0x1101: this QP's.
            QueuePair qp = new QueuePair(ep, pd, ObjectsTest.REC.recorder_qp(), 0x1101, cq, cq, null);
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
}
