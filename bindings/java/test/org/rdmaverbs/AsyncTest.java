package org.rdmaverbs;

import com.sun.jna.Pointer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The CompletableFuture waits, on stand-ins: an event channel whose
 * descriptor is a pipe made readable by each event scripted, a CQ whose
 * polls find nothing, a completion channel of a pipe. A pending wait
 * completes with its event; many pending waits hold no thread of their
 * own; a close from another thread ends every one at once (EBADF,
 * "closed"), with a time limit and without, two on one CQ included; the
 * time limit ends one (ETIMEDOUT); cancel() ends one and loses no event;
 * a blocking wait and a future on one channel each get theirs. */
final class AsyncTest {
    private AsyncTest() {}

    interface Libc extends com.sun.jna.Library {
        long read(int fd, byte[] buf, long n);
    }

    static final Libc LIBC = com.sun.jna.Native.load("c", Libc.class);

    static void check(boolean ok, String what) {
        BindingTest.check(ok, "async: " + what);
    }

    /** Events scripted, each making the pipe readable by one byte. */
    static final class Piped implements EventChannel.Source {
        final ArrayDeque<CmEvent> events = new ArrayDeque<>();
        final int[] pipe = CloseTest.pipe();

        @Override
        public boolean await(int timeoutMs, String function, int wakeFd) throws RdmaVerbsException {
            return Calls.readable(pipe[0], wakeFd, timeoutMs, function);
        }

        @Override
        public synchronized CmEvent get() {
            LIBC.read(pipe[0], new byte[1], 1);
            return events.poll();
        }

        @Override
        public void destroyId(Pointer id) {}

        @Override
        public int fd() {
            return pipe[0];
        }

        synchronized void add(int type, long id) {
            events.add(new CmEvent(type, 0, new Pointer(id), null));
            ObjectsTest.LIBC.write(pipe[1], new byte[] {1}, 1);
        }

        void close() {
            ObjectsTest.LIBC.close(pipe[0]);
            ObjectsTest.LIBC.close(pipe[1]);
        }
    }

    /** What ended f within ms (null: its value), or a TimeoutException. */
    static Throwable outcome(CompletableFuture<?> f, int ms) {
        try {
            f.get(ms, TimeUnit.MILLISECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (TimeoutException | InterruptedException | java.util.concurrent.CancellationException e) {
            return e;
        }
    }

    static int errno(Throwable t) {
        return t instanceof RdmaVerbsException r ? r.errno() : -1;
    }

    static boolean closed(Throwable t) {
        return errno(t) == Resource.EBADF && t.getMessage().contains("closed");
    }

    static int threads() {
        return Thread.activeCount();
    }

    /** Closes r from another thread while the futures are pending; each
     * must end at once with the closed error. */
    static void closeEnds(String what, Resource r, List<CompletableFuture<?>> fs) throws RdmaVerbsException {
        ObjectsTest.sleep(100);
        check(fs.stream().noneMatch(CompletableFuture::isDone), what + ": pending before the close");
        long at = System.nanoTime();
        Thread closer = new Thread(() -> {
            try {
                r.close();
            } catch (RdmaVerbsException e) {
                throw new IllegalStateException(e);
            }
        });
        closer.start();
        for (CompletableFuture<?> f : fs) {
            Throwable t = outcome(f, 2_000);
            long ms = (System.nanoTime() - at) / 1_000_000;
            check(closed(t) && ms < 1_000, what + ": " + t + " after " + ms + " ms");
        }
        try {
            closer.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        check(!closer.isAlive(), what + ": the close returned");
    }

    static void run() throws RdmaVerbsException {
        Piped src = new Piped();
        EventChannel ch = new EventChannel(src);
        Endpoint a = new Endpoint(ch, false, new Pointer(0xa100), false);
        // A pending wait completes with its event (another's kept for it).
        CompletableFuture<Void> est = a.awaitDisconnectAsync(5_000);
        ObjectsTest.sleep(50);
        check(!est.isDone(), "pending until its event");
        src.add(RdmaVerbs.RDMA_CM_EVENT_ESTABLISHED, 0xb100);   // nobody's: dropped
        src.add(RdmaVerbs.RDMA_CM_EVENT_DISCONNECTED, 0xa100);
        check(outcome(est, 2_000) == null, "the wait got its event: " + outcome(est, 0));
        // Many pending waits hold no thread of their own.
        int before = threads();
        List<CompletableFuture<?>> many = new ArrayList<>();
        for (int i = 0; i < 50; i++) many.add(a.awaitDisconnectAsync(-1));
        ObjectsTest.sleep(100);
        check(threads() - before <= 2, "50 pending waits: " + (threads() - before) + " more threads");
        // The time limit ends one: ETIMEDOUT, near its limit.
        long t0 = System.nanoTime();
        Throwable late = outcome(ch.nextAsync(100), 2_000);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        check(errno(late) == RdmaVerbs.ETIMEDOUT && ms >= 90 && ms < 1_000, "a 100 ms limit: " + late + " at " + ms);
        // cancel() ends one; the event it waited for goes to the next wait.
        Endpoint d = new Endpoint(ch, false, new Pointer(0xe100), false);
        CompletableFuture<Void> gone = d.awaitDisconnectAsync(-1);
        check(gone.cancel(false) && gone.isCancelled(), "cancel() ends a pending wait");
        src.add(RdmaVerbs.RDMA_CM_EVENT_DISCONNECTED, 0xe100);
        ObjectsTest.sleep(50);
        Throwable t = outcome(d.awaitDisconnectAsync(2_000), 2_000);
        check(t == null, "the next wait gets the event the cancelled one waited for: " + t);
        CompletableFuture<CmEvent> next = ch.nextAsync(2_000);
        src.add(RdmaVerbs.RDMA_CM_EVENT_ESTABLISHED, 0xc100);
        t = outcome(next, 2_000);
        check(t == null && next.join().id().equals(new Pointer(0xc100)), "a wait for any event gets one: " + t);
        // A blocking wait and a future on one channel: each gets its own.
        Endpoint b = new Endpoint(ch, false, new Pointer(0xb200), false);
        Endpoint c = new Endpoint(ch, false, new Pointer(0xc200), false);
        CompletableFuture<Void> fb = b.awaitDisconnectAsync(5_000);
        CompletableFuture<Throwable> sync = CompletableFuture.supplyAsync(() -> {
            try {
                c.awaitDisconnect(5_000);
                return null;
            } catch (RdmaVerbsException e) {
                return e;
            }
        });
        ObjectsTest.sleep(50);
        src.add(RdmaVerbs.RDMA_CM_EVENT_DISCONNECTED, 0xc200);
        src.add(RdmaVerbs.RDMA_CM_EVENT_DISCONNECTED, 0xb200);
        check(outcome(fb, 2_000) == null && outcome(sync, 2_000) == null && sync.join() == null,
              "a thread's wait and a future's, on one channel: " + outcome(fb, 0) + ", " + sync.getNow(null));
        // A close from another thread ends every wait at once: an endpoint's
        // (the 50 without a limit, one of 10 s), a listener's, the channel's.
        many.add(a.awaitDisconnectAsync(10_000));
        closeEnds("an endpoint closed while 51 futures wait for its events", a, many);
        Listener l = new Listener(ch, new Pointer(0xd100), false);
        closeEnds("a listener closed while two futures wait for a request (no limit, 10 s)", l,
                  List.of(l.getRequestAsync(-1), l.getRequestAsync(10_000)));
        closeEnds("the channel closed while futures wait for any event and an endpoint's", ch,
                  List.of(ch.nextAsync(-1), b.awaitDisconnectAsync(-1)));
        check(b.isClosed(), "the channel closed: its endpoint with it");
        src.close();

        // A completion channel (a pipe): a CQ on it awaited by two futures.
        int[] q = CloseTest.pipe();
        CompletionChannel cc = new CompletionChannel(null, new Pointer(0xcc10), q[0], false);
        CompletionQueue on = new CompletionQueue(null, ObjectsTest.REC.recorder_empty_cq(), cc, false);
        closeEnds("a CQ closed while two futures await its event (no limit, 10 s)", on,
                  List.of(on.awaitAsync(-1), on.awaitAsync(10_000)));
        Throwable cct = outcome(cc.awaitAsync(100), 2_000);
        check(errno(cct) == RdmaVerbs.ETIMEDOUT, "a completion channel's 100 ms limit: " + cct);
        closeEnds("a completion channel closed while a future awaits its next event", cc, List.of(cc.awaitAsync(-1)));
        ObjectsTest.LIBC.close(q[0]);
        ObjectsTest.LIBC.close(q[1]);

        // A CQ without a channel, polled by the timer thread: its limit, its close.
        CompletionQueue cq = new CompletionQueue(ObjectsTest.REC.recorder_empty_cq());
        Throwable pt = outcome(cq.pollAsync(1, 100), 2_000);
        check(errno(pt) == RdmaVerbs.ETIMEDOUT, "a poll's 100 ms limit: " + pt);
        closeEnds("a CQ closed while two futures poll it (no limit, 10 s)", cq,
                  List.of(cq.pollAsync(1, -1), cq.pollAsync(1, 10_000)));
        // A CQ made on an endpoint: its dependent, closed with it.
        Endpoint owner = new Endpoint(null, false, new Pointer(0xe200), false);
        CompletionQueue dep = new CompletionQueue(owner, ObjectsTest.REC.recorder_empty_cq(), null, false);
        closeEnds("an endpoint closed while a future polls the CQ made on it", owner, List.of(dep.pollAsync(1, -1)));
        check(dep.isClosed(), "the endpoint closed: its CQ with it");
    }
}
