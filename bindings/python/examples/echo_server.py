import sys
import rdmaverbs as rv

with rv.Endpoint.create(sys.argv[1], sys.argv[2], passive=True) as listener:
    print("echo: listening", flush=True)
    for ep in listener:                               # each connection request: an endpoint with its QP
        with ep:
            mr = ep.reg_msgs(65536)
            ep.post_recv(mr)                          # before the accept: the message has a place
            ep.accept()
            ep.post_send(mr, 0, ep.get_recv_comp(timeout=5).byte_len)   # the same bytes back, signaled
            ep.get_send_comp(timeout=5)
