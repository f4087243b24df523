package org.rdmaverbs;

import com.sun.jna.Pointer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/** Closing ends every wait on the object and on its dependents at once,
 * from another thread, with a time limit and without: RdmaVerbsException
 * EBADF, its message saying closed. On the event channel's stand-in (a
 * pipe that never becomes readable), the recorder's CQ whose polls find
 * nothing, and a completion channel of a pipe. */
final class CloseTest {
    private CloseTest() {}

    static void check(boolean ok, String what) {
        BindingTest.check(ok, "close: " + what);
    }

    /** A wait running in a thread of its own, and what ended it. */
    static final class Waiter {
        final AtomicReference<Exception> ended = new AtomicReference<>();
        final Thread thread;
        volatile long endedAt;

        Waiter(BindingTest.Call wait) {
            thread = new Thread(() -> {
                try {
                    wait.run();
                } catch (Exception e) {
                    ended.set(e);
                }
                endedAt = System.nanoTime();
            });
            thread.setDaemon(true);   // a wait a close did not end must not keep the JVM
            thread.start();
        }

        /** Whether it ended within 5 s of closedAt with EBADF and "closed". */
        boolean endedClosed(long closedAt) {
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Exception e = ended.get();
            return !thread.isAlive() && e instanceof RdmaVerbsException r && r.errno() == Resource.EBADF
                && r.getMessage().contains("closed") && r.getMessage().contains("(EBADF, errno 9)") && (endedAt - closedAt) / 1_000_000 < 2_000;
        }

        String what() {
            return thread.isAlive() ? "still waiting" : String.valueOf(ended.get());
        }
    }

    /** Starts the waits, lets them block, closes r; each must end closed. */
    static void closeEnds(String what, Resource r, BindingTest.Call... waits) throws RdmaVerbsException {
        List<Waiter> ws = new ArrayList<>();
        for (BindingTest.Call c : waits) ws.add(new Waiter(c));
        ObjectsTest.sleep(200);
        boolean blocked = ws.stream().allMatch(w -> w.thread.isAlive());
        long closedAt = System.nanoTime();
        r.close();
        for (Waiter w : ws) {
            check(blocked && w.endedClosed(closedAt), what + ": " + (blocked ? w.what() : "did not wait"));
        }
    }

    static int[] pipe() {
        int[] fds = new int[2];
        check(ObjectsTest.LIBC.pipe(fds) == 0, "pipe");
        return fds;
    }

    static void run() throws RdmaVerbsException {
        int[] p = pipe();
        EventsTest.Script c = new EventsTest.Script();
        c.block = p[0];
        EventChannel ch = new EventChannel(c);
        Endpoint a = new Endpoint(ch, false, new Pointer(0xa000), false);
        Endpoint b = new Endpoint(ch, false, new Pointer(0xb000), false);
        closeEnds("an endpoint closed while two threads wait for its event (no limit, 10 s)", a,
                  () -> a.awaitDisconnect(-1), () -> a.awaitDisconnect(10_000));
        // b's wait goes on while another endpoint of the channel closes
        Waiter other = new Waiter(() -> b.awaitDisconnect(-1));
        Endpoint c2 = new Endpoint(ch, false, new Pointer(0xc000), false);
        closeEnds("an endpoint closed while another thread waits for another's event", c2,
                  () -> c2.awaitDisconnect(-1));
        check(other.thread.isAlive(), "the wait for another endpoint's event goes on");
        Listener l = new Listener(ch, new Pointer(0xd000), false);
        closeEnds("a listener closed while a thread waits for a connect request (no limit, 10 s)", l,
                  () -> l.getRequest(-1), () -> l.getRequest(10_000));
        long closedAt = System.nanoTime();
        closeEnds("the channel closed while a thread waits for any event", ch, () -> ch.next(-1));
        check(other.endedClosed(closedAt), "the channel closed: the wait for its endpoint's event too: " + other.what());
        check(b.isClosed(), "the channel closed: its endpoint with it");
        ObjectsTest.LIBC.close(p[0]);
        ObjectsTest.LIBC.close(p[1]);

        // A CQ whose polls find nothing, polled by two threads.
        CompletionQueue cq = new CompletionQueue(ObjectsTest.REC.recorder_empty_cq());
        closeEnds("a CQ closed while two threads poll it for completions (no limit, 10 s)", cq,
                  () -> cq.poll(1, -1), () -> cq.poll(1, 10_000));
        // A CQ made on an endpoint: its dependent, closed with it.
        Endpoint e = new Endpoint(null, false, new Pointer(0xe000), false);
        CompletionQueue dep = new CompletionQueue(e, ObjectsTest.REC.recorder_empty_cq(), null, false);
        closeEnds("an endpoint closed while a thread polls the CQ made on it", e, () -> dep.poll(1, -1));
        check(dep.isClosed(), "the endpoint closed: its CQ with it");

        // A completion channel (a pipe), a CQ on it awaited by two threads.
        int[] q = pipe();
        CompletionChannel cc = new CompletionChannel(null, new Pointer(0xcc00), q[0], false);
        CompletionQueue on = new CompletionQueue(null, ObjectsTest.REC.recorder_empty_cq(), cc, false);
        closeEnds("a CQ closed while two threads await its event (no limit, 10 s)", on,
                  () -> on.await(-1), () -> on.await(10_000));
        closeEnds("a completion channel closed while a thread awaits its next event", cc, () -> cc.await(-1));
        ObjectsTest.LIBC.close(q[0]);
        ObjectsTest.LIBC.close(q[1]);

        // Calls on a closed object say so.
        Endpoint gone = new Endpoint(null, false, new Pointer(0xf000), false);
        gone.close();
        String msg = "";
        try {
            gone.postSend(SendWork.send(1, new Sge[0]));
        } catch (IllegalStateException | RdmaVerbsException x) {
            msg = x.getMessage();
        }
        check(msg.equals("Endpoint is closed"), "a post on a closed endpoint: " + msg);
        // A library that does not load says which, where, and what provides it.
        String missing = "";
        try {
            Loader.symbol("/nonexistent/librdmaverbs.so.1", "ibv_post_send", "RDMAVERBS_1.3");
        } catch (UnsatisfiedLinkError x) {
            missing = x.getMessage();
        }
        check(missing.startsWith("/nonexistent/librdmaverbs.so.1 could not be loaded, looked for by the dynamic loader")
              && missing.contains("No such file") && missing.contains("librdmaverbs1")
              && missing.contains("RDMAVERBS_LIBRARY"), "a library that does not load: " + missing);
        // One set of defaults: every QP made signals every send.
        check(new QpInit(null, null).signalAll && !new QpInit(null, null).signalAll(false).signalAll,
              "QpInit: sq_sig_all on by default, signalAll(false) turns it off");
    }
}
