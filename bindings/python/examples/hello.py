import sys
import rdmaverbs as rv

with rv.Endpoint.create(sys.argv[1], sys.argv[2]) as ep:  # rdma_create_ep: the id, its QP, a send and a receive CQ
    reply = ep.reg_msgs(64)                           # 64 bytes, registered; the MR holds them
    ep.post_recv(reply)                               # before the connection: the answer has its place
    ep.connect(timeout=5)
    ep.post_send(ep.reg_msgs(bytearray(b"hello, server!")))  # signaled: every send is, by default
    ep.get_send_comp(timeout=5)                       # TimeoutError after 5 s; CompletionError if it failed
    n = ep.get_recv_comp(timeout=5).byte_len
    print(n, bytes(reply.buf[:n]).decode())           # 14 hello, server!
