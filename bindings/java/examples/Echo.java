import java.nio.ByteBuffer;
import org.rdmaverbs.*;

public class Echo {
    public static void main(String[] args) throws RdmaVerbsException {
        // echo ADDR PORT: a server of rdma-core's rdma_client (rdmacm-utils), which sends a message and takes it back
        try (Listener listener = Listener.listen(args[0], Integer.parseInt(args[1]), 1)) {
            System.out.println("echo: listening");
            Endpoint ep = listener.getRequest(20_000);   // closed with the listener's own channel
            ProtectionDomain pd = new ProtectionDomain(ep);   // closed with the endpoint
            CompletionQueue sendCq = new CompletionQueue(ep, 4, null), recvCq = new CompletionQueue(ep, 4, null);
            MemoryRegion mr = new MemoryRegion(pd, ByteBuffer.allocateDirect(64), RdmaVerbs.IBV_ACCESS_LOCAL_WRITE);
            ep.createQp(new QpInit(pd, sendCq, recvCq));
            ep.postRecv(new RecvWork(1, mr.sge(0, 64)));   // before rdma_accept
            ep.accept(20_000);
            int n = recvCq.poll(1, 20_000).get(0).orThrow().byteLen();
            ep.postSend(SendWork.send(2, mr.sge(0, n)));   // what arrived, sent back
            sendCq.poll(1, 20_000).get(0).orThrow();
            System.out.println("echo: PASS bytes=" + n);
        }
    }
}
