package org.rdmaverbs;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/** What the CompletableFuture waits run on, whatever their number: one
 * reader thread ("rdmaverbs-reactor") that polls the descriptor of every
 * channel an async wait is pending on (one entry per channel, however many
 * futures wait on it) and an eventfd that tells it the set changed, and
 * one timer thread ("rdmaverbs-timer") for the time limits and for the
 * polls of a CQ without a channel. Both are daemons, started with the first
 * async wait. No program code runs on either: each future is completed on
 * {@link ForkJoinPool#commonPool()}, so that a stage that waits or closes
 * never stalls the reader. */
final class Reactor {
    private Reactor() {}

    /** A channel's side of the reader: its descriptor, what to do when it
     * is readable, and whether it is still wanted (else it is dropped). */
    interface Watched {
        int fd();

        void readable();

        /** Whether the reader is still wanted; if not, the channel's waits
         * take their reading back (under their lock). */
        boolean keep();
    }

    private static final Object LOCK = new Object();
    private static final List<Watched> WATCHED = new ArrayList<>();
    private static int kickFd = -1;

    static final ScheduledExecutorService TIMER;

    static {
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
            Thread th = new Thread(r, "rdmaverbs-timer");
            th.setDaemon(true);
            return th;
        });
        t.setRemoveOnCancelPolicy(true);   // a time limit whose wait ended is not kept
        TIMER = t;
    }

    /** Where futures are completed (never the reader or the timer). */
    static final Executor COMPLETE = ForkJoinPool.commonPool();

    /** Completes f, on COMPLETE, with value or error. */
    static <T> void complete(CompletableFuture<T> f, T value, Throwable error) {
        COMPLETE.execute(() -> {
            if (error != null) f.completeExceptionally(error); else f.complete(value);
        });
    }

    /** What fn makes of src's value, as a future whose cancel() is src's
     * (so that a wait cancelled through it is no longer listed, and an event
     * it had taken is its result rather than lost); fn may throw
     * RdmaVerbsException. */
    static <T, R> CompletableFuture<R> map(CompletableFuture<T> src, Map<T, R> fn) {
        CompletableFuture<R> out = new CompletableFuture<>() {
            @Override
            public boolean cancel(boolean mayInterruptIfRunning) {
                return src.cancel(mayInterruptIfRunning) && super.cancel(mayInterruptIfRunning);
            }
        };
        src.whenComplete((v, e) -> {
            if (e != null) {
                out.completeExceptionally(e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                                          ? e.getCause() : e);
                return;
            }
            try {
                out.complete(fn.apply(v));
            } catch (RdmaVerbsException | RuntimeException x) {
                out.completeExceptionally(x);
            }
        });
        return out;
    }

    /** A step of {@link #map}. */
    interface Map<T, R> {
        R apply(T t) throws RdmaVerbsException;
    }

    /** Starts watching w's descriptor (the reader started if it was not). */
    static void watch(Watched w) {
        synchronized (LOCK) {
            if (kickFd < 0) {
                kickFd = Calls.eventfd();
                Thread t = new Thread(Reactor::run, "rdmaverbs-reactor");
                t.setDaemon(true);
                t.start();
            }
            WATCHED.add(w);
        }
        kick();
    }

    /** Makes the reader look at its set again (a wait ended, a close). */
    static void kick() {
        int k;
        synchronized (LOCK) {
            k = kickFd;
        }
        if (k >= 0) Calls.signal(k);
    }

    private static final int POLLIN = 1, EINTR = 4;

    private static void run() {
        Memory p = new Memory(8);
        while (true) {
            List<Watched> ws;
            int k;
            synchronized (LOCK) {
                ws = new ArrayList<>(WATCHED);
                k = kickFd;
            }
            if (p.size() < 8L * (ws.size() + 1)) p = new Memory(8L * (ws.size() + 1));
            p.setInt(0, k);
            p.setShort(4, (short) POLLIN);
            p.setShort(6, (short) 0);
            for (int i = 0; i < ws.size(); i++) {
                p.setInt(8L * (i + 1), ws.get(i).fd());
                p.setShort(8L * (i + 1) + 4, (short) POLLIN);
                p.setShort(8L * (i + 1) + 6, (short) 0);
            }
            int r = Calls.LIBC.poll(p, ws.size() + 1, -1);
            if (r < 0 && Native.getLastError() != EINTR) {
                LockSupport.parkMs(1);   // (poll fails only for a bad set: look again)
            }
            if (r > 0 && p.getShort(6) != 0) Calls.drain(k);
            for (int i = 0; i < ws.size(); i++) {
                Watched w = ws.get(i);
                try {
                    if (r > 0 && p.getShort(8L * (i + 1) + 6) != 0) w.readable();
                } catch (RuntimeException e) {
                    // readable() fails its waits itself; nothing is thrown here
                }
                if (!w.keep()) {
                    synchronized (LOCK) {
                        WATCHED.remove(w);
                    }
                }
            }
        }
    }

    /** A pause of the reader (java.util.concurrent.locks.LockSupport). */
    private static final class LockSupport {
        static void parkMs(long ms) {
            java.util.concurrent.locks.LockSupport.parkNanos(ms * 1_000_000L);
        }
    }
}
