package org.rdmaverbs;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/** The waits of a channel (an event channel, a completion channel), which
 * any number of threads may be in at once, and which a close ends: one
 * thread at a time polls the channel's descriptor (with the channel's wake
 * descriptor, an eventfd) and reads one event, which it keeps for whoever
 * wants it; the others wait on a condition for what it read. Closing the
 * channel, or the object a thread waits for (an endpoint, a listener, a
 * CQ), signals the eventfd and the condition: each waiter then finds what
 * it waited on closing and throws {@link Resource#closedError} (EBADF,
 * "closed").
 *
 * <p>The async waits ({@link #awaitAsync}) hold no thread: each is a
 * future listed here; while any is, the channel's descriptor is watched by
 * the one reader of {@link Reactor} (which then does the polling the
 * threads would do: they wait for what it reads), and whoever reads an
 * event (the reader or a thread) gives the futures what they wait for. A
 * close, the time limit, or cancel() ends a future at once; the first to
 * end it claims it under the lock, so that what it took is never lost. */
final class Waits implements Reactor.Watched {
    /** What a waiter takes, under the lock: what it waits for, or null. */
    interface Take<T> {
        T take() throws RdmaVerbsException;
    }

    /** Waits, unlocked, until an event can be read (true) or the wake
     * descriptor is readable (false), timeoutMs at most (negative: no
     * limit), else throws ETIMEDOUT. */
    interface Ready {
        boolean await(int timeoutMs, String function, int wakeFd) throws RdmaVerbsException;
    }

    /** Reads one event and keeps it for its waiter, under the lock. */
    interface Read {
        void read() throws RdmaVerbsException;
    }

    /** Guards what the channel keeps; never held while polling. */
    final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private boolean reading;
    /** Whether the polling is the reader's (Reactor), for the futures. */
    private boolean reactorHolds;
    private final int wakeFd = Calls.eventfd();
    private final Resource channel;

    Waits(Resource channel) {
        this.channel = channel;
    }

    /** What take gives, once an event read gives it, timeoutMs at most
     * (negative: no limit: ETIMEDOUT after it); EBADF ("closed") as soon as
     * the channel or who (if not null) is closing. */
    <T> T await(Resource who, Take<T> take, Ready ready, Read read, int timeoutMs, String function)
        throws RdmaVerbsException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        lock.lock();
        try {
            while (true) {
                if (channel.isEnding()) throw channel.closedError(function);
                if (who != null && who.isEnding()) throw who.closedError(function);
                T got = take.take();
                if (got != null) return got;
                int left = timeoutMs < 0 ? -1 : (int) Math.max(0, (deadline - System.nanoTime() + 999_999) / 1_000_000);
                if (reading) {   // another thread polls: wait for what it reads
                    if (left == 0) throw new RdmaVerbsException(function, RdmaVerbs.ETIMEDOUT, "nothing within "
                                                                + timeoutMs + " ms");
                    try {
                        if (left < 0) changed.await(); else changed.await(left, TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new RdmaVerbsException(function, 4 /* EINTR */, "interrupted");
                    }
                    continue;
                }
                reading = true;
                boolean readable;
                lock.unlock();
                try {
                    readable = ready.await(left, function, wakeFd);
                } finally {
                    lock.lock();
                    reading = false;
                    changed.signalAll();
                    handOff();
                }
                if (readable) read.read(); else Calls.drain(wakeFd);
                serve();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Ends the waits: each checks again whether what it waits on is closing. */
    void wake() {
        Calls.signal(wakeFd);
        lock.lock();
        try {
            changed.signalAll();
            serve();
        } finally {
            lock.unlock();
        }
        Reactor.kick();
    }

    /** An async wait: its future, claimed (under the lock) by whoever ends
     * it first. */
    final class Pending<T> extends CompletableFuture<T> {
        final Resource who;
        final Take<T> take;
        final Ready ready;
        final Read read;
        final String function;
        boolean claimed;
        ScheduledFuture<?> timer;

        Pending(Resource who, Take<T> take, Ready ready, Read read, String function) {
            this.who = who;
            this.take = take;
            this.ready = ready;
            this.read = read;
            this.function = function;
        }

        /** Ends the wait (CancellationException), unless it already ended:
         * then false, and whatever it took is its result. */
        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            lock.lock();
            try {
                if (claimed) return false;
                claim(this);
            } finally {
                lock.unlock();
            }
            return super.cancel(mayInterruptIfRunning);
        }
    }

    private final List<Pending<?>> pending = new ArrayList<>();
    /** The descriptor the reader watches (the channel's). */
    private int watchFd = -1;

    /** What take gives, as a future: at once if it gives it now, else once
     * an event read gives it (the channel's descriptor fd watched by the
     * reader meanwhile), timeoutMs at most (negative: no limit; else
     * ETIMEDOUT); EBADF ("closed") as soon as the channel or who is
     * closing. */
    <T> CompletableFuture<T> awaitAsync(Resource who, Take<T> take, Ready ready, Read read, int fd, int timeoutMs,
                                        String function) {
        Pending<T> p = new Pending<>(who, take, ready, read, function);
        lock.lock();
        try {
            watchFd = fd;
            pending.add(p);
            serve();
            if (p.claimed) return p;
            if (timeoutMs >= 0) {
                p.timer = Reactor.TIMER.schedule(() -> expire(p, timeoutMs), timeoutMs, TimeUnit.MILLISECONDS);
            }
            handOff();
        } finally {
            lock.unlock();
        }
        return p;
    }

    private void expire(Pending<?> p, int timeoutMs) {
        lock.lock();
        try {
            if (p.claimed) return;
            claim(p);
        } finally {
            lock.unlock();
        }
        Reactor.complete(p, null, new RdmaVerbsException(p.function, RdmaVerbs.ETIMEDOUT, "nothing within "
                                                         + timeoutMs + " ms"));
    }

    /** p ends (under the lock): no longer listed, its time limit dropped. */
    private void claim(Pending<?> p) {
        p.claimed = true;
        pending.remove(p);
        if (p.timer != null) p.timer.cancel(false);
        if (pending.isEmpty()) Reactor.kick();   // the reader lets the descriptor go
    }

    /** Gives each listed future what it waits for, if it is there, or its
     * closed error (under the lock). */
    private void serve() {
        for (Pending<?> p : new ArrayList<>(pending)) serve(p);
    }

    private <T> void serve(Pending<T> p) {
        RdmaVerbsException closed = channel.isEnding() ? channel.closedError(p.function)
            : p.who != null && p.who.isEnding() ? p.who.closedError(p.function) : null;
        if (closed != null) {
            claim(p);
            Reactor.complete(p, null, closed);
            return;
        }
        try {
            T got = p.take.take();
            if (got == null) return;
            claim(p);
            Reactor.complete(p, got, null);
        } catch (RdmaVerbsException | RuntimeException e) {
            claim(p);
            Reactor.complete(p, null, e);
        }
    }

    /** If futures wait and no thread polls, the reader takes the polling
     * (under the lock). */
    private void handOff() {
        if (reading || pending.isEmpty() || channel.isEnding()) return;
        reading = true;
        reactorHolds = true;
        Reactor.watch(this);
    }

    @Override
    public int fd() {
        return watchFd;
    }

    /** The reader saw the descriptor readable: an event read (if one is
     * still there: a thread may have read it first), given to whom it is
     * for. */
    @Override
    public void readable() {
        lock.lock();
        try {
            if (!reactorHolds || pending.isEmpty() || channel.isEnding()) return;
            // Read as a wait for any event reads (kept whoever it is for),
            // if one waits; else as the first wait's (EventChannel routes it).
            Pending<?> first = pending.stream().filter(p -> p.who == null).findFirst().orElse(pending.get(0));
            boolean ready;
            try {
                ready = first.ready.await(0, first.function, -1);
            } catch (RdmaVerbsException e) {
                ready = false;   // ETIMEDOUT: nothing to read any more
            }
            if (!ready) return;
            try {
                first.read.read();
            } catch (RdmaVerbsException | RuntimeException e) {
                for (Pending<?> p : new ArrayList<>(pending)) {
                    claim(p);
                    Reactor.complete(p, null, e);
                }
            }
            changed.signalAll();
            serve();
        } finally {
            lock.unlock();
        }
    }

    /** Whether the reader keeps watching; if not, the polling is the
     * threads' again. */
    @Override
    public boolean keep() {
        lock.lock();
        try {
            if (!reactorHolds) return false;
            if (!pending.isEmpty() && !channel.isEnding()) return true;
            reactorHolds = false;
            reading = false;
            changed.signalAll();
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** Once no thread polls (they were woken: the channel is closing), the
     * wake descriptor is closed; the channel is then destroyed. */
    void close() {
        lock.lock();
        try {
            while (reading) changed.awaitUninterruptibly();
        } finally {
            lock.unlock();
        }
        Calls.closeFd(wakeFd);
    }
}
