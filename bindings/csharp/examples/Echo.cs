using System;
using RdmaVerbs;

static class Echo
{
    static void Main(string[] args)
    {
        // echo ADDR PORT: a server of rdma-core's rdma_client (rdmacm-utils), which sends a message and takes it back
        using (var listener = Listener.Listen(args[0], int.Parse(args[1]), 1)) {
            Console.WriteLine("echo: listening");
            var ep = listener.GetRequest(20000);   // disposed with the listener's own channel
            var pd = new ProtectionDomain(ep);     // disposed with the endpoint
            CompletionQueue sendCq = new CompletionQueue(ep, 4, null), recvCq = new CompletionQueue(ep, 4, null);
            var mr = new MemoryRegion(pd, new byte[64], Rdma.IBV_ACCESS_LOCAL_WRITE);
            ep.CreateQp(new QpInit(pd, sendCq, recvCq));
            ep.PostRecv(new RecvWork(1, mr.Sge(0, 64)));   // before rdma_accept
            ep.Accept(20000);
            int n = recvCq.Poll(1, 20000)[0].OrThrow().ByteLen;
            ep.PostSend(SendWork.Send(2, mr.Sge(0, n)));   // what arrived, sent back
            sendCq.Poll(1, 20000)[0].OrThrow();
            Console.WriteLine("echo: PASS bytes=" + n);
        }
    }
}
