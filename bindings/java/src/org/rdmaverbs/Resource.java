package org.rdmaverbs;

import com.sun.jna.Pointer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** An object of the object API (an endpoint, a PD, an MR, a CQ, ...): a C
 * object this binding made, closed the Java way (AutoCloseable: in
 * try-with-resources).
 *
 * <p>Closing happens in the order C needs whatever the program does: an
 * object that others depend on (a PD under MRs, an SRQ and a QP; a CQ under
 * a QP; a completion channel under its CQs; an event channel under its ids)
 * first closes them, the last made first. Closing twice does nothing; a
 * call on a closed object throws IllegalStateException ("... is closed").
 * A failure of C (close or not) throws {@link RdmaVerbsException} (an
 * IOException), with its errno.
 *
 * <p>Closing ends every wait on the object and on the objects that depend
 * on it at once, from any thread: a thread blocked in one (an event
 * awaited on an endpoint, a listener, a channel; a CQ polled until it has
 * completions, or its event awaited) throws RdmaVerbsException with errno
 * EBADF and a message that says the object was closed, with a time limit
 * or without.
 *
 * <p>An object not closed is never collected: each open one is held by this
 * class (with its buffers, for an MR), so that memory the card may still
 * write is never freed under it; it lives until it is closed, or until the
 * process exits. */
public abstract class Resource implements AutoCloseable {
    /** Every open object, so that the collector never takes one (nor the
     * buffers it holds) before it is closed. */
    private static final Set<Resource> OPEN = ConcurrentHashMap.newKeySet();
    /** The graph of who depends on whom changes under this lock. */
    private static final Object GRAPH = new Object();

    /** Called with each object as it is destroyed (for the tests), or null. */
    static volatile java.util.function.Consumer<Resource> onDestroy;

    private final List<Resource> needs = new ArrayList<>();
    private final Set<Resource> dependents = new LinkedHashSet<>();
    /** Whether this binding made the C object (and destroys it), or was
     * handed it (the tests' fakes). */
    final boolean owned;
    private volatile boolean closed;
    /** Set as close begins, before the objects that depend on this one
     * close: the waits on this one end (EBADF, "closed"). */
    private volatile boolean ending;

    /** Linux's EBADF: the errno of a wait a close ended. */
    static final int EBADF = 9;

    Resource(boolean owned) {
        this.owned = owned;
    }

    /** Records that this object is open and depends on needs (non-null
     * ones): they close only after it. Called once the C object exists. */
    final void opened(Resource... needs) {
        synchronized (GRAPH) {
            for (Resource r : needs) {
                if (r == null) continue;
                r.check();
                this.needs.add(r);
                r.dependents.add(this);
            }
            OPEN.add(this);
        }
    }

    /** Adds a dependency after the object was opened (a QP made on an
     * endpoint's id, later than the id). */
    final void needs(Resource r) {
        synchronized (GRAPH) {
            r.check();
            needs.add(r);
            r.dependents.add(this);
        }
    }

    /** Destroys the C object (called once, by close, after the objects that
     * depend on this one were closed). */
    abstract void destroy() throws RdmaVerbsException;

    /** Throws IllegalStateException if closed. */
    final void check() {
        if (closed) throw new IllegalStateException(getClass().getSimpleName() + " is closed");
    }

    /** Whether close has begun: the object's waits end (EBADF). */
    final boolean isEnding() {
        return ending;
    }

    /** The error of a wait (in function) that a close of this object
     * ended: EBADF, "... closed". */
    final RdmaVerbsException closedError(String function) {
        return new RdmaVerbsException(function, EBADF, getClass().getSimpleName() + " closed while waiting");
    }

    /** Ends the waits on this object, at the start of its close (a
     * channel signals its waiters: {@link Waits#wake}). */
    void wake() {}

    /** Whether close has been called (and succeeded). */
    public final boolean isClosed() {
        return closed;
    }

    /** The C object's address (for the raw API: RdmaVerbs), or throws
     * IllegalStateException if closed. */
    public abstract Pointer handle();

    /** Closes the objects that depend on this one (the last made first),
     * then this one. Nothing when already closed. The first failure is
     * thrown after every other object was closed (the later ones added to
     * it as suppressed); an object whose C destroy failed stays open. */
    @Override
    public final void close() throws RdmaVerbsException {
        Exception first = null;
        synchronized (GRAPH) {
            if (closed) return;
            ending = true;
            wake();
            List<Resource> deps = new ArrayList<>(dependents);
            Collections.reverse(deps);
            for (Resource d : deps) {
                try {
                    d.close();
                } catch (RdmaVerbsException | RuntimeException e) {
                    if (first == null) first = e; else first.addSuppressed(e);
                }
            }
            try {
                java.util.function.Consumer<Resource> hook = onDestroy;
                if (hook != null) hook.accept(this);
                closing();
                if (owned) destroy();
                released();
                closed = true;
                for (Resource r : needs) r.dependents.remove(this);
                needs.clear();
                OPEN.remove(this);
            } catch (RdmaVerbsException | RuntimeException e) {
                if (first == null) first = e; else first.addSuppressed(e);
            }
        }
        if (first instanceof RdmaVerbsException e) throw e;
        if (first != null) throw (RuntimeException) first;
    }

    /** What an object drops as it closes, owned or not, before its C
     * object is destroyed: an rdma_cm id's or a channel's kept events. */
    void closing() throws RdmaVerbsException {}

    /** What an object drops at close, once its C object is gone (or, not
     * owned, at close): the buffers it held. */
    void released() {}

    /** How many objects are open (for the tests). */
    static int openCount() {
        return OPEN.size();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + (closed ? "(closed)" : "(" + handle() + ")");
    }
}
