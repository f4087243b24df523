package org.rdmaverbs;

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
 * "closed"). */
final class Waits {
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
                }
                if (readable) read.read(); else Calls.drain(wakeFd);
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
