// Buffers kept alive: a buffer posted, every reference of the program's
// dropped, the collector run and the heap churned, reaches the recording
// provider intact when it reads it late (as a card does), and is unpinned
// once its completion is reaped; an open MR holds its buffer until it is
// disposed. Run by ObjectsTest.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.CompilerServices;
using RdmaVerbs;

static class LifetimeTest
{
    static void Check(bool ok, string what)
    {
        Test.Check(ok, "objects: " + what);
    }


    static byte[] Pattern(int n, int seed)
    {
        return Enumerable.Range(0, n).Select(j => (byte)(seed + j)).ToArray();
    }

    const int SIZE = 256;

    /// <summary>Collects (every generation, finalizers run, again), then
    /// allocates arrays of the same size filled with 0xee over the freed
    /// heap: returned, to stay while the provider reads.</summary>
    static List<byte[]> CollectAndChurn()
    {
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        // Twice the nursery's 4 MB (Mono's sgen copies the objects it does
        // not pin out of it): whatever moved, its old place is 0xee now.
        var churn = new List<byte[]>();
        for (int i = 0; i < 8 * 1024 * 1024 / SIZE; i++) {
            var b = new byte[SIZE];
            for (int j = 0; j < SIZE; j++)
                b[j] = 0xee;
            churn.Add(b);
        }
        return churn;
    }

    /// <summary>Posts a buffer through an MR disposed at once, as a program
    /// might, keeping nothing but a weak reference.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    static WeakReference PostAndForget(QueuePair qp, ProtectionDomain pd, List<MemoryRegion> seen)
    {
        var buf = Pattern(SIZE, 0x3c);
        using (var mr = new MemoryRegion(pd, buf, 0x77, false)) {
            seen.Add(mr);
            ObjectsTest.recReadLate();
            qp.PostSend(SendWork.Send(0x5001, mr.Sge()));
        }
        return new WeakReference(buf);
    }

    /// <summary>Registers and posts a buffer, keeping nothing (the MR left open).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    static WeakReference RegisterPostAndForget(QueuePair qp, ProtectionDomain pd)
    {
        var buf = Pattern(SIZE, 0x5a);
        var mr = new MemoryRegion(pd, buf, 0x78, false);
        ObjectsTest.recReadLate();
        qp.PostSend(SendWork.Send(0x5001, mr.Sge()));
        return new WeakReference(buf);
    }

    static bool SentIs(int seed)
    {
        var got = new byte[SIZE];
        int n = ObjectsTest.recSent(got, SIZE);
        if (n != SIZE || !got.SequenceEqual(Pattern(SIZE, seed))) {
            Console.WriteLine("csharp: objects: the provider read " + n + " bytes: "
                              + BitConverter.ToString(got, 0, 24) + "...");
            return false;
        }
        return true;
    }

    /// <summary>Buffers kept alive (pinned) while posted, released once reaped.</summary>
    internal static void Run()
    {
        ObjectsTest.recId();
        var destroyed = new List<Resource>();
        using (var pd = new ProtectionDomain(ObjectsTest.FakePd, false))
        using (var cq = new CompletionQueue(ObjectsTest.recCq()))
        using (var ep = new Endpoint(null, false, ObjectsTest.recId(), false)) {
            // The provider's second completion is wr_id 0x5001, a send's
            // (COMP_SWAP), on qp_num 0x1101: this QP's.
            var qp = new QueuePair(ep, pd, ObjectsTest.recQp(), 0x1101, cq, cq, null);
            var seen = new List<MemoryRegion>();
            var weak = PostAndForget(qp, pd, seen);
            var mr = seen[0];
            seen.Clear();
            var churn = CollectAndChurn();
            Check(weak.IsAlive && qp.Held == 1 && mr.IsDisposed && mr.Pinned,
                  "a posted buffer whose MR was disposed and every reference dropped: still held, pinned, after a collection");
            var wc = cq.Poll(4);
            Check(SentIs(0x3c) && wc.Length == 3 && wc[1].WrId == 0x5001,
                  "its bytes, read by the provider at the poll after the collection, are intact");
            Check(qp.Held == 0 && !mr.Pinned, "its completion reaped: released, unpinned");
            mr = null;
            churn.Clear();
            // An MR left open, the program's references dropped: the MR holds
            // (pins) its buffer until it is disposed, with its PD.
            weak = RegisterPostAndForget(qp, pd);
            churn = CollectAndChurn();
            wc = cq.Poll(4);
            Check(SentIs(0x5a) && qp.Held == 0 && weak.IsAlive,
                  "a buffer of an open MR, the program's references dropped: intact after a collection, held by its MR");
            Resource.OnDestroy = r => destroyed.Add(r);
            try {
                pd.Dispose();
            } finally {
                Resource.OnDestroy = null;
            }
            var open = destroyed.OfType<MemoryRegion>().ToList();
            Check(open.Count == 1 && open[0].IsDisposed && !open[0].Pinned,
                  "the MR disposed with its PD: its buffer unpinned");
            churn.Clear();
        }
    }
}
