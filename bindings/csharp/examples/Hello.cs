using System;
using System.Text;
using RdmaVerbs;

static class Hello
{
    static void Main()
    {
        // A client of rdma-core's rdma_server (rdmacm-utils), listening at 192.0.2.1:7471
        using (var ep = Endpoint.Resolve("192.0.2.1", 7471, 2000))
        using (var pd = new ProtectionDomain(ep))
        using (var cq = new CompletionQueue(ep, 4, null))
        using (var mr = new MemoryRegion(pd, new byte[32], Rdma.IBV_ACCESS_LOCAL_WRITE)) {
            ep.CreateQp(new QpInit(pd, cq));   // every send completes (sq_sig_all 1; SignalAll = false: only signaled ones)
            ep.PostRecv(new RecvWork(1, mr.Sge(16, 16)));
            ep.Connect(2000);
            Encoding.ASCII.GetBytes("hello, server").CopyTo(mr.Buffer, 0);
            ep.PostSend(SendWork.Send(2, mr.Sge(0, 16)));
            foreach (var c in cq.Poll(2, 2000))
                Console.WriteLine(c.WrId + ": " + c.StatusText);
            Console.WriteLine("reply: " + BitConverter.ToString(mr.Buffer, 16, 16));
        }   // disposed in the order C needs, the QP first; an exception leaks nothing
    }
}
