import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.rdmaverbs.*;

public class Hello {
    public static void main(String[] args) throws RdmaVerbsException {
        // A client of rdma-core's rdma_server (rdmacm-utils), listening at 192.0.2.1:7471
        try (Endpoint ep = Endpoint.resolve("192.0.2.1", 7471, 2000);
             ProtectionDomain pd = new ProtectionDomain(ep);
             CompletionQueue cq = new CompletionQueue(ep, 4, null);
             MemoryRegion mr = new MemoryRegion(pd, ByteBuffer.allocateDirect(32), RdmaVerbs.IBV_ACCESS_LOCAL_WRITE)) {
            ep.createQp(new QpInit(pd, cq));   // every send completes (sq_sig_all 1; signalAll(false): only signaled ones)
            ep.postRecv(new RecvWork(1, mr.sge(16, 16)));
            ep.connect(2000);
            mr.buffer().put(0, "hello, server".getBytes(StandardCharsets.US_ASCII));
            ep.postSend(SendWork.send(2, mr.sge(0, 16)));
            for (Completion c : cq.poll(2, 2000)) System.out.println(c.wrId() + ": " + c.statusText());
            byte[] reply = new byte[16];
            mr.buffer().get(16, reply);
            System.out.println("reply: " + Arrays.toString(reply));
        }   // closed in the order C needs, the QP first; an exception leaks nothing
    }
}
