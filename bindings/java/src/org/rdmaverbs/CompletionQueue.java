package org.rdmaverbs;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** A completion queue (ibv_create_cq), on a completion channel or not.
 * {@link #poll} reaps completions, several in one ibv_poll_cq, and releases
 * what the work requests they complete held (their buffers). With a
 * channel: {@link #arm} (ibv_req_notify_cq), then {@link #await} for its
 * event (acknowledged at once), then poll. Closing it first closes the QPs
 * using it, then destroys it (ibv_destroy_cq); a thread polling it until it
 * has completions, or awaiting its event, then throws RdmaVerbsException
 * EBADF ("closed") at once. One made on an endpoint is
 * closed with it, before its id. */
public final class CompletionQueue extends Resource {
    private final Pointer cq;
    private final CompletionChannel channel;
    /** The QPs whose completions come here, by number. */
    private final Map<Integer, QueuePair> qps = new ConcurrentHashMap<>();
    private Memory wcs = new Memory(16L * Calls.WC);

    /** A CQ of cqe entries at least on the endpoint's device context, its
     * events on channel (or null: none); closed with the endpoint (before
     * its id). */
    public CompletionQueue(Endpoint ep, int cqe, CompletionChannel channel) throws RdmaVerbsException {
        this(ep, RdmaVerbs.ibv_create_cq(ep.context(), cqe, null, channel == null ? null : channel.handle(), 0), channel,
             true);
    }

    /** A CQ on a device context (an ibv_context *), closed on its own (or
     * with its channel). */
    public CompletionQueue(Pointer context, int cqe, CompletionChannel channel) throws RdmaVerbsException {
        this(null, RdmaVerbs.ibv_create_cq(context, cqe, null, channel == null ? null : channel.handle(), 0), channel,
             true);
    }

    /** A CQ this binding did not make (the tests' fake). */
    CompletionQueue(Pointer cq) {
        this(null, cq, null, false);
    }

    /** cq, made on ep's context (a dependent of ep, and of channel), or on
     * none. */
    CompletionQueue(Endpoint ep, Pointer cq, CompletionChannel channel, boolean owned) {
        super(owned);
        this.cq = cq;
        this.channel = channel;
        opened(ep, channel);
        if (channel != null) channel.attach(this);
    }

    @Override
    public Pointer handle() {
        check();
        return cq;
    }

    void attach(QueuePair qp) {
        qps.put(qp.qpNum(), qp);
    }

    void detach(QueuePair qp) {
        qps.remove(qp.qpNum(), qp);
    }

    /** One ibv_poll_cq of up to max completions: those found (none, if
     * none). A failure throws RdmaVerbsException (the errno left). */
    public synchronized List<Completion> poll(int max) throws RdmaVerbsException {
        check();
        if (max <= 0) throw new IllegalArgumentException("poll of " + max + " completions");
        if (wcs.size() < (long) max * Calls.WC) wcs = new Memory((long) max * Calls.WC);
        int r = Calls.POLL_CQ.invokeInt(new Object[] {cq, max, wcs});
        if (r < 0) throw new RdmaVerbsException("ibv_poll_cq", Native.getLastError());
        List<Completion> out = new ArrayList<>(r);
        for (int i = 0; i < r; i++) {
            long o = (long) i * Calls.WC;
            Completion c = new Completion(wcs.getLong(o + Calls.WC_WR_ID), wcs.getInt(o + Calls.WC_STATUS),
                wcs.getInt(o + Calls.WC_OPCODE), wcs.getInt(o + Calls.WC_BYTE_LEN), wcs.getInt(o + Calls.WC_FLAGS),
                Calls.net(wcs.getInt(o + Calls.WC_IMM_DATA)), wcs.getInt(o + Calls.WC_QP_NUM),
                wcs.getInt(o + Calls.WC_VENDOR_ERR), wcs.getInt(o + Calls.WC_SRC_QP),
                Short.toUnsignedInt(wcs.getShort(o + Calls.WC_PKEY_INDEX)),
                Short.toUnsignedInt(wcs.getShort(o + Calls.WC_SLID)), Byte.toUnsignedInt(wcs.getByte(o + Calls.WC_SL)),
                Byte.toUnsignedInt(wcs.getByte(o + Calls.WC_DLID_PATH_BITS)));
            out.add(c);
            QueuePair qp = qps.get(c.qpNum());
            if (qp != null) qp.completed(c);
        }
        return out;
    }

    /** Polls until n completions, timeoutMs at most (negative: no limit;
     * ETIMEDOUT: those reaped meanwhile are then lost to the caller, their
     * buffers released); up to 16 in each ibv_poll_cq, a pause of a
     * millisecond between empty polls. */
    public List<Completion> poll(int n, int timeoutMs) throws RdmaVerbsException {
        List<Completion> out = new ArrayList<>(n);
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (out.size() < n) {
            if (isEnding()) throw closedError("ibv_poll_cq");
            List<Completion> got;
            try {
                got = poll(Math.min(16, n - out.size()));
            } catch (IllegalStateException e) {
                if (isEnding()) throw closedError("ibv_poll_cq");   // closed between the check and the poll
                throw e;
            }
            out.addAll(got);
            if (!got.isEmpty()) continue;
            if (timeoutMs >= 0 && System.nanoTime() - deadline > 0) {
                throw new RdmaVerbsException("ibv_poll_cq", RdmaVerbs.ETIMEDOUT, out.size() + " of " + n
                                             + " completions within " + timeoutMs + " ms");
            }
            LockSupport.parkNanos(1_000_000);
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new RdmaVerbsException("ibv_poll_cq", 4 /* EINTR */, "interrupted");
            }
        }
        return out;
    }

    /** ibv_req_notify_cq: the next completion (solicitedOnly: the next
     * solicited one, or one in error) makes an event on the channel. */
    public void arm(boolean solicitedOnly) throws RdmaVerbsException {
        check();
        RdmaVerbs.ibv_req_notify_cq(cq, solicitedOnly ? 1 : 0);
    }

    /** Waits for this CQ's next event on its channel, timeoutMs at most
     * (ETIMEDOUT); the event is acknowledged. Arm the CQ again, then
     * poll it (a completion arriving between the poll and the arming would
     * make no event). */
    public void await(int timeoutMs) throws RdmaVerbsException {
        check();
        if (channel == null) throw new IllegalStateException("the CQ has no completion channel");
        channel.awaitFor(this, timeoutMs);
    }

    /** {@link #await(int)} as a future, which holds no thread while it
     * waits (the channel's descriptor is watched by the one reader of every
     * async wait): ETIMEDOUT after timeoutMs (negative: no limit), EBADF
     * ("closed") at once when the CQ or its channel closes; cancel() ends
     * it, and an event it had not taken stays for the next wait. */
    public CompletableFuture<Void> awaitAsync(int timeoutMs) {
        check();
        if (channel == null) throw new IllegalStateException("the CQ has no completion channel");
        return Reactor.map(channel.awaitForAsync(this, timeoutMs), cq -> null);
    }

    /** The polls until completions in flight ({@link #pollAsync}). */
    private final List<CompletableFuture<List<Completion>>> polls = new ArrayList<>();

    /** {@link #poll(int, int)} as a future: polled by the async waits' one
     * timer thread, every millisecond until n completions, none held
     * meanwhile; ETIMEDOUT after timeoutMs (negative: no limit; those
     * reaped are then lost to the caller, their buffers released), EBADF
     * ("closed") at once when the CQ closes; cancel() stops the polling
     * (completions reaped before are lost to the caller). */
    public CompletableFuture<List<Completion>> pollAsync(int n, int timeoutMs) {
        check();
        CompletableFuture<List<Completion>> f = new CompletableFuture<>();
        List<Completion> out = new ArrayList<>(n);
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        synchronized (polls) {
            polls.add(f);
        }
        f.whenComplete((v, e) -> {
            synchronized (polls) {
                polls.remove(f);
            }
        });
        pollStep(f, out, n, timeoutMs, deadline);
        return f;
    }

    private void pollStep(CompletableFuture<List<Completion>> f, List<Completion> out, int n, int timeoutMs,
                          long deadline) {
        if (f.isDone()) return;
        try {
            if (isEnding()) throw closedError("ibv_poll_cq");
            while (out.size() < n) {
                List<Completion> got = poll(Math.min(16, n - out.size()));
                if (got.isEmpty()) break;
                out.addAll(got);
            }
            if (out.size() == n) {
                Reactor.complete(f, out, null);
                return;
            }
            if (timeoutMs >= 0 && System.nanoTime() - deadline > 0) {
                throw new RdmaVerbsException("ibv_poll_cq", RdmaVerbs.ETIMEDOUT, out.size() + " of " + n
                                             + " completions within " + timeoutMs + " ms");
            }
            Reactor.TIMER.schedule(() -> pollStep(f, out, n, timeoutMs, deadline), 1, TimeUnit.MILLISECONDS);
        } catch (IllegalStateException e) {
            Reactor.complete(f, null, isEnding() ? closedError("ibv_poll_cq") : e);
        } catch (RdmaVerbsException | RuntimeException e) {
            Reactor.complete(f, null, e);
        }
    }

    /** Its completion channel, or null. */
    public CompletionChannel channel() {
        return channel;
    }

    /** Ends a wait for its event on its channel (EBADF, "closed"); a poll
     * until completions ends at its next pause. */
    @Override
    void wake() {
        if (channel != null) channel.wakeWaiters();
        List<CompletableFuture<List<Completion>>> ps;
        synchronized (polls) {
            ps = new ArrayList<>(polls);
        }
        for (CompletableFuture<List<Completion>> f : ps) Reactor.complete(f, null, closedError("ibv_poll_cq"));
    }

    @Override
    void destroy() throws RdmaVerbsException {
        synchronized (this) {   // not under a poll of another thread's
            RdmaVerbs.ibv_destroy_cq(cq);
        }
    }

    @Override
    void released() {
        if (channel != null) channel.detach(this);
    }
}
