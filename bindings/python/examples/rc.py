#!/usr/bin/env python3
"""The RC exchange of bindings/rc-protocol.md from Python, with the rdmaverbs
package (ctypes, librdmaverbs.so.1, librdmacm.so.1) and nothing else.

Usage: rc.py server|client ADDR PORT
"""
import ctypes as C
import errno
import socket
import struct
import sys

import rdmaverbs as rv

SIZE = 64


def fail(what):
    sys.exit(f"rc {ROLE}: {what}")


def comp(id_, recv, wr_id, opcode, length=None):
    """The next completion of the receive or send CQ, checked."""
    wc = rv.ibv_wc()
    get = rv.rdma_get_recv_comp if recv else rv.rdma_get_send_comp
    if get(id_, C.byref(wc)) != 1:
        fail("rdma_get_*_comp did not return 1")
    if (wc.wr_id, wc.status, wc.opcode) != (wr_id, rv.IBV_WC_SUCCESS, opcode) or \
            (length is not None and wc.byte_len != length):
        fail(f"completion: wr_id {wc.wr_id:#x} status {wc.status} opcode {wc.opcode} "
             f"byte_len {wc.byte_len}; want {wr_id:#x} {opcode} {length}")


def check_addr(sa, addr, port, which):
    sin = rv.sockaddr_in.from_address(sa)
    got = socket.inet_ntoa(struct.pack("=I", sin.sin_addr))
    if sin.sin_family != rv.AF_INET or got != addr or \
            (port is not None and socket.ntohs(sin.sin_port) != port):
        fail(f"{which} address {got}:{socket.ntohs(sin.sin_port)}")


def main():
    global ROLE
    if len(sys.argv) != 4 or sys.argv[1] not in ("server", "client"):
        sys.exit("usage: rc.py server|client ADDR PORT")
    ROLE, addr, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    server = ROLE == "server"
    seed, peer_seed = (0x51, 0xc1) if server else (0xc1, 0x51)

    # 1. Set up.
    hints = rv.rdma_addrinfo(ai_port_space=rv.RDMA_PS_TCP, ai_flags=rv.RAI_PASSIVE if server else 0)
    res = C.c_void_p()
    rv.rdma_getaddrinfo(addr.encode(), str(port).encode(), C.byref(hints), C.byref(res))
    attr = rv.ibv_qp_init_attr(cap=rv.ibv_qp_cap(8, 8, 2, 1, 0), qp_type=rv.IBV_QPT_RC, sq_sig_all=1)
    listen, id_ = C.c_void_p(), C.c_void_p()
    if server:
        rv.rdma_create_ep(C.byref(listen), res, None, C.byref(attr))
        rv.rdma_listen(listen, 1)
        print("rc: listening", flush=True)
        rv.rdma_get_request(listen, C.byref(id_))
    else:
        rv.rdma_create_ep(C.byref(id_), res, None, C.byref(attr))
    # 2. Memory; 3. receives.
    recv, send = C.create_string_buffer(4 * SIZE), C.create_string_buffer(SIZE)
    win, back = C.create_string_buffer(SIZE), C.create_string_buffer(SIZE)
    recv_mr = rv.rdma_reg_msgs(id_, recv, 4 * SIZE)
    send_mr = rv.rdma_reg_msgs(id_, send, SIZE)
    wmr, rmr = rv.rdma_reg_write(id_, win, SIZE), rv.rdma_reg_read(id_, win, SIZE)
    back_mr = rv.rdma_reg_msgs(id_, back, SIZE)
    mr = lambda m: rv.ibv_mr.from_address(m)  # noqa: E731
    for i in range(4):
        rv.rdma_post_recv(id_, 0x100 + i, C.addressof(recv) + SIZE * i, SIZE, recv_mr)
    # 4. Connect.
    param = rv.rdma_conn_param(responder_resources=1, initiator_depth=1, retry_count=7,
                               rnr_retry_count=7)
    (rv.rdma_accept if server else rv.rdma_connect)(id_, C.byref(param))
    # 5. Keys.
    send.raw = struct.pack("<QII", C.addressof(win), mr(wmr).rkey, mr(rmr).rkey).ljust(SIZE, b"\0")
    rv.rdma_post_send(id_, 0x200, send, SIZE, send_mr, 0)
    comp(id_, False, 0x200, rv.IBV_WC_SEND)
    comp(id_, True, 0x100, rv.IBV_WC_RECV, SIZE)
    peer_addr, peer_wkey, peer_rkey = struct.unpack_from("<QII", recv.raw)
    # 6. Messages, over two SGEs.
    lkey = mr(send_mr).lkey
    sgl = (rv.ibv_sge * 2)((C.addressof(send), 16, lkey), (C.addressof(send) + 16, 48, lkey))
    for k in range(2):
        send.raw = bytes((seed + 7 * k + j) % 256 for j in range(SIZE))
        rv.rdma_post_sendv(id_, 0x300 + k, sgl, 2, 0)
        comp(id_, False, 0x300 + k, rv.IBV_WC_SEND)
    for k in range(2):
        comp(id_, True, 0x101 + k, rv.IBV_WC_RECV, SIZE)
        want = bytes((peer_seed + 7 * k + j) % 256 for j in range(SIZE))
        got = recv.raw[SIZE * (1 + k):SIZE * (2 + k)]
        if got != want:
            fail(f"message {k}: byte {next(j for j in range(SIZE) if got[j] != want[j])} differs")
    # 7. RDMA write, and read back.
    written = bytes(((seed ^ 0xa5) + j) % 256 for j in range(SIZE))
    send.raw = written
    rv.rdma_post_write(id_, 0x400, send, SIZE, send_mr, 0, peer_addr, peer_wkey)
    comp(id_, False, 0x400, rv.IBV_WC_RDMA_WRITE)
    C.memset(back, 0, SIZE)
    rv.rdma_post_read(id_, 0x401, back, SIZE, back_mr, 0, peer_addr, peer_rkey)
    comp(id_, False, 0x401, rv.IBV_WC_RDMA_READ, SIZE)
    if back.raw != written:
        fail("the bytes read back differ from those written")
    # 8. A bounded wait that times out; 9. refused input.
    wc = rv.ibv_wc()
    for call, err in ((lambda: rv.rdma_get_send_comp_timeout(id_, C.byref(wc), 100), errno.ETIMEDOUT),
                      (lambda: rv.rdma_post_send(None, None, send, SIZE, send_mr, 0), errno.EINVAL),
                      (lambda: rv.rdma_get_local_addr(None), errno.EINVAL)):
        try:
            call()
            fail(f"no OSError {errno.errorcode[err]}")
        except OSError as e:
            if e.errno != err:
                fail(f"OSError {e.errno}, want {errno.errorcode[err]}")
    # 10. Addresses.
    check_addr(rv.rdma_get_local_addr(id_), addr, port if server else None, "local")
    check_addr(rv.rdma_get_peer_addr(id_), addr, None if server else port, "peer")
    # 11. Done.
    send.raw = b"DONE".ljust(SIZE, b"\0")
    rv.rdma_post_send(id_, 0x500, send, SIZE, send_mr, 0)
    comp(id_, False, 0x500, rv.IBV_WC_SEND)
    comp(id_, True, 0x103, rv.IBV_WC_RECV, SIZE)
    if recv.raw[3 * SIZE:3 * SIZE + 4] != b"DONE":
        fail("no DONE")
    # 12. Teardown.
    rv.rdma_disconnect(id_)
    for m in (recv_mr, send_mr, wmr, rmr, back_mr):
        rv.rdma_dereg_mr(m)
    rv.rdma_destroy_ep(id_)
    if server:
        rv.rdma_destroy_ep(listen)
    rv.rdma_freeaddrinfo(res)
    print(f"rc: PASS role={ROLE} sends=4 bytes=384")


if __name__ == "__main__":
    ROLE = "?"
    main()
