// rdmaverbs' object API for C#, beside the raw one (Rdma, Api.cs): an
// endpoint (an rdma_cm id and its QP), a PD, MRs over pinned byte arrays,
// CQs, a completion channel, an SRQ, event channels; each IDisposable
// (using), closed in the order C needs whatever the program does, errors
// thrown as RdmaVerbsException with their errno, every wait boundable, and
// every buffer the card may use kept alive and pinned (see README.md).
using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;

[assembly: InternalsVisibleTo("RdmaVerbsTest")]

namespace RdmaVerbs
{
    /// <summary>An object of the object API: a C object this binding made,
    /// disposed the .NET way (using). Disposing it first disposes the
    /// objects that depend on it (a PD's MRs, SRQs and QPs; a CQ's QPs; a
    /// channel's CQs or ids), the last made first, then destroys it; twice
    /// does nothing; a disposed object throws ObjectDisposedException. An
    /// object not disposed is never collected (each open one is held here,
    /// with its buffers): it lives until disposed, or until the process
    /// exits, so that no memory the card may use is ever freed under
    /// it.</summary>
    public abstract class Resource : IDisposable
    {
        static readonly HashSet<Resource> Open = new HashSet<Resource>();
        static readonly object Graph = new object();

        /// <summary>Called with each object as it is destroyed (for the tests).</summary>
        internal static Action<Resource> OnDestroy;

        readonly List<Resource> needs = new List<Resource>();
        readonly List<Resource> dependents = new List<Resource>();
        /// <summary>Whether this binding made the C object (and destroys it),
        /// or was handed it (the tests' fakes).</summary>
        internal readonly bool Owned;
        volatile bool disposed;
        /// <summary>Set as Dispose begins, before the objects that depend on
        /// this one are disposed: the waits on this one end (EBADF,
        /// "closed").</summary>
        volatile bool ending;

        /// <summary>Linux's EBADF: the errno of a wait a Dispose ended.</summary>
        internal const int EBADF = 9;

        /// <summary>Whether Dispose has begun: the object's waits end.</summary>
        internal bool Ending {
            get { return ending; }
        }

        /// <summary>The error of a wait (in function) that a Dispose of this
        /// object ended: EBADF, "... closed while waiting".</summary>
        internal RdmaVerbsException ClosedError(string function)
        {
            return new RdmaVerbsException(function, EBADF, GetType().Name + " closed while waiting");
        }

        /// <summary>The error of a Task wait (in function) that a Dispose of
        /// this object ended: ObjectDisposedException, "... closed while
        /// waiting".</summary>
        internal ObjectDisposedException DisposedError(string function)
        {
            return new ObjectDisposedException(GetType().Name, GetType().Name + " closed while waiting (" + function + ")");
        }

        /// <summary>Ends the waits on this object, as its Dispose begins (a
        /// channel signals its waiters).</summary>
        internal virtual void Wake()
        {
        }

        internal Resource(bool owned)
        {
            Owned = owned;
        }

        /// <summary>Records that this object is open and depends on needs
        /// (non-null ones), which are disposed only after it.</summary>
        internal void Opened(params Resource[] needs)
        {
            lock (Graph) {
                foreach (var r in needs) {
                    if (r == null)
                        continue;
                    r.Check();
                    this.needs.Add(r);
                    r.dependents.Add(this);
                }
                Open.Add(this);
            }
        }

        internal abstract void Destroy();

        /// <summary>What an object drops as it is disposed, owned or not,
        /// before its C object is destroyed: an rdma_cm id's or a channel's
        /// kept events.</summary>
        internal virtual void Closing()
        {
        }

        /// <summary>What an object drops once its C object is gone (or, not
        /// owned, at Dispose): the buffers it held.</summary>
        internal virtual void Released()
        {
        }

        internal void Check()
        {
            if (disposed)
                throw new ObjectDisposedException(GetType().Name);
        }

        public bool IsDisposed {
            get { return disposed; }
        }

        /// <summary>The C object's address (for the raw API, Rdma).</summary>
        public abstract IntPtr Handle { get; }

        /// <summary>Disposes the objects that depend on this one, the last made
        /// first, then this one. The first failure is thrown after every other
        /// object was disposed; an object whose C destroy failed stays
        /// open.</summary>
        public void Dispose()
        {
            var failures = new List<Exception>();
            lock (Graph) {
                if (disposed)
                    return;
                ending = true;
                Wake();
                foreach (var d in Enumerable.Reverse(dependents.ToList())) {
                    try {
                        d.Dispose();
                    } catch (Exception e) {
                        failures.Add(e);
                    }
                }
                try {
                    var hook = OnDestroy;
                    if (hook != null)
                        hook(this);
                    Closing();
                    if (Owned)
                        Destroy();
                    Released();
                    disposed = true;
                    foreach (var r in needs)
                        r.dependents.Remove(this);
                    needs.Clear();
                    Open.Remove(this);
                } catch (Exception e) {
                    failures.Add(e);
                }
            }
            if (failures.Count == 1)
                throw failures[0];
            if (failures.Count > 1)
                throw new AggregateException(failures);
        }

        /// <summary>How many objects are open (for the tests).</summary>
        internal static int OpenCount {
            get { lock (Graph) return Open.Count; }
        }

        /// <summary>Disposes r after a failure, adding nothing it throws.</summary>
        internal static void DisposeAfterFailure(Resource r)
        {
            try {
                r.Dispose();
            } catch (Exception) {
                // the first failure is the one thrown
            }
        }
    }
}
