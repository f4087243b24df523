from pyverbs.cmid import CMID, AddrInfo
from pyverbs.qp import QPInitAttr, QPCap
import pyverbs.cm_enums as ce

ai = AddrInfo(dst="192.0.2.1", dst_service="7471", port_space=ce.RDMA_PS_TCP)
with CMID(creator=ai, qp_init_attr=QPInitAttr(cap=QPCap(max_recv_wr=1))) as cmid:
    reply, msg = cmid.reg_msgs(64), cmid.reg_msgs(64)
    cmid.post_recv(reply)
    cmid.connect()
    msg.write(b"ping".ljust(64, b"\0"), 64)
    cmid.post_send(msg)
    cmid.get_send_comp()
    cmid.get_recv_comp()
    print(reply.read(4, 0))
