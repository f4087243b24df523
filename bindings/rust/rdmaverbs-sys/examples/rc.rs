//! The RC exchange of bindings/rc-protocol.md from Rust, with the raw layer
//! (the rdmaverbs-sys crate). Usage: rc server|client ADDR PORT

use std::ffi::{c_void, CString};
use std::io;
use std::net::Ipv4Addr;
use std::process::exit;
use std::ptr::null_mut;
use std::sync::OnceLock;

use rdmaverbs_sys as rv;

const SIZE: usize = 64;
static ROLE: OnceLock<String> = OnceLock::new();

fn fail(what: impl std::fmt::Display) -> ! {
    eprintln!("rc {}: {what}", ROLE.get().map_or("", |r| r.as_str()));
    exit(1)
}

fn ok<T>(what: &str, r: io::Result<T>) -> T {
    r.unwrap_or_else(|e| fail(format!("{what}: {e}")))
}

/// The errno of a failure, which must be `want`.
fn refused<T>(what: &str, r: io::Result<T>, want: i32) {
    let got = r.err().as_ref().and_then(rv::errno_of);
    if got != Some(want) {
        fail(format!("{what}: errno {got:?}, want {want}"));
    }
}

/// Memory the provider reads and writes: reached only through its pointer
/// (never a Rust reference held across a call).
struct Buf(*mut u8, usize);

impl Buf {
    fn new(n: usize) -> Buf {
        Buf(Box::into_raw(vec![0u8; n].into_boxed_slice()).cast(), n)
    }
    fn ptr(&self) -> *mut c_void {
        self.0.cast()
    }
    fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: the Box's memory, alive until drop; no other reference to it.
        unsafe { std::slice::from_raw_parts_mut(self.0, self.1) }
    }
}

impl Drop for Buf {
    fn drop(&mut self) {
        // SAFETY: the Box of new().
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.0, self.1)) });
    }
}

fn pattern(base: usize) -> Vec<u8> {
    (0..SIZE).map(|j| ((base + j) % 256) as u8).collect()
}

/// The next completion of the send or receive CQ, checked.
unsafe fn comp(id: *mut c_void, recv: bool, wr_id: u64, opcode: i32, len: Option<u32>) {
    let mut wc = rv::ibv_wc::default();
    let r = unsafe {
        if recv {
            rv::rdma_get_recv_comp(id, &mut wc)
        } else {
            rv::rdma_get_send_comp(id, &mut wc)
        }
    };
    if ok("rdma_get_*_comp", r) != 1
        || wc.wr_id != wr_id
        || wc.status != rv::IBV_WC_SUCCESS as u32
        || wc.opcode != opcode as u32
        || len.is_some_and(|l| wc.byte_len != l)
    {
        fail(format!(
            "completion {wc:?}; want {wr_id:#x} {opcode} {len:?}"
        ));
    }
}

unsafe fn check_addr(sa: *mut c_void, addr: Ipv4Addr, port: Option<u16>, which: &str) {
    // SAFETY: rdma_get_*_addr points into the id's route, at a sockaddr_in for AF_INET.
    let sin = unsafe { *(sa as *const rv::sockaddr_in) };
    let got = Ipv4Addr::from(u32::from_be(sin.sin_addr));
    let p = u16::from_be(sin.sin_port);
    if i32::from(sin.sin_family) != rv::AF_INET || got != addr || port.is_some_and(|q| q != p) {
        fail(format!("{which} address {got}:{p}"));
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 || !(args[1] == "server" || args[1] == "client") {
        eprintln!("usage: rc server|client ADDR PORT");
        exit(2);
    }
    let role = ROLE.get_or_init(|| args[1].clone());
    let server = role == "server";
    let addr: Ipv4Addr = args[2].parse().unwrap_or_else(|e| fail(e));
    let port: u16 = args[3].parse().unwrap_or_else(|e| fail(e));
    let (seed, peer_seed) = if server { (0x51, 0xc1) } else { (0xc1, 0x51) };
    let node = CString::new(args[2].as_str()).unwrap();
    let service = CString::new(args[3].as_str()).unwrap();
    // SAFETY: every pointer handed to C is a live Buf, struct or out-pointer.
    unsafe { exchange(server, addr, port, seed, peer_seed, &node, &service) };
    println!("rc: PASS role={role} sends=4 bytes=384");
}

unsafe fn exchange(
    server: bool,
    addr: Ipv4Addr,
    port: u16,
    seed: usize,
    peer_seed: usize,
    node: &CString,
    service: &CString,
) {
    unsafe {
        // 1. Set up.
        let hints = rv::rdma_addrinfo {
            ai_port_space: rv::RDMA_PS_TCP,
            ai_flags: if server { rv::RAI_PASSIVE } else { 0 },
            ..Default::default()
        };
        let mut res = null_mut();
        ok(
            "rdma_getaddrinfo",
            rv::rdma_getaddrinfo(node.as_ptr(), service.as_ptr(), &hints, &mut res),
        );
        let mut attr = rv::ibv_qp_init_attr {
            cap: rv::ibv_qp_cap {
                max_send_wr: 8,
                max_recv_wr: 8,
                max_send_sge: 2,
                max_recv_sge: 1,
                max_inline_data: 0,
            },
            qp_type: rv::IBV_QPT_RC as u32,
            sq_sig_all: 1,
            ..Default::default()
        };
        let (mut listen, mut id) = (null_mut(), null_mut());
        if server {
            ok(
                "rdma_create_ep",
                rv::rdma_create_ep(&mut listen, res, null_mut(), &mut attr),
            );
            ok("rdma_listen", rv::rdma_listen(listen, 1));
            println!("rc: listening");
            ok("rdma_get_request", rv::rdma_get_request(listen, &mut id));
        } else {
            ok(
                "rdma_create_ep",
                rv::rdma_create_ep(&mut id, res, null_mut(), &mut attr),
            );
        }
        // 2. Memory; 3. receives.
        let (mut recv, mut send, win, mut back) = (
            Buf::new(4 * SIZE),
            Buf::new(SIZE),
            Buf::new(SIZE),
            Buf::new(SIZE),
        );
        let recv_mr = ok("rdma_reg_msgs", rv::rdma_reg_msgs(id, recv.ptr(), 4 * SIZE));
        let send_mr = ok("rdma_reg_msgs", rv::rdma_reg_msgs(id, send.ptr(), SIZE));
        let wmr = ok("rdma_reg_write", rv::rdma_reg_write(id, win.ptr(), SIZE));
        let rmr = ok("rdma_reg_read", rv::rdma_reg_read(id, win.ptr(), SIZE));
        let back_mr = ok("rdma_reg_msgs", rv::rdma_reg_msgs(id, back.ptr(), SIZE));
        let mr = |p: *mut c_void| *(p as *const rv::ibv_mr);
        for i in 0..4 {
            let slot = recv.ptr().byte_add(SIZE * i);
            ok(
                "rdma_post_recv",
                rv::rdma_post_recv(id, (0x100 + i) as *mut c_void, slot, SIZE, recv_mr),
            );
        }
        // 4. Connect.
        let mut param = rv::rdma_conn_param {
            responder_resources: 1,
            initiator_depth: 1,
            retry_count: 7,
            rnr_retry_count: 7,
            ..Default::default()
        };
        if server {
            ok("rdma_accept", rv::rdma_accept(id, &mut param));
        } else {
            ok("rdma_connect", rv::rdma_connect(id, &mut param));
        }
        // 5. Keys.
        let b = send.bytes();
        b.fill(0);
        b[..8].copy_from_slice(&(win.ptr() as u64).to_le_bytes());
        b[8..12].copy_from_slice(&mr(wmr).rkey.to_le_bytes());
        b[12..16].copy_from_slice(&mr(rmr).rkey.to_le_bytes());
        ok(
            "rdma_post_send",
            rv::rdma_post_send(id, 0x200 as *mut c_void, send.ptr(), SIZE, send_mr, 0),
        );
        comp(id, false, 0x200, rv::IBV_WC_SEND, None);
        comp(id, true, 0x100, rv::IBV_WC_RECV, Some(SIZE as u32));
        let keys = &recv.bytes()[..16];
        let peer_addr = u64::from_le_bytes(keys[..8].try_into().unwrap());
        let peer_wkey = u32::from_le_bytes(keys[8..12].try_into().unwrap());
        let peer_rkey = u32::from_le_bytes(keys[12..16].try_into().unwrap());
        // 6. Messages, over two SGEs.
        let (lkey, base) = (mr(send_mr).lkey, send.ptr() as u64);
        let sgl = [
            rv::ibv_sge {
                addr: base,
                length: 16,
                lkey,
            },
            rv::ibv_sge {
                addr: base + 16,
                length: 48,
                lkey,
            },
        ];
        for k in 0..2 {
            send.bytes().copy_from_slice(&pattern(seed + 7 * k));
            ok(
                "rdma_post_sendv",
                rv::rdma_post_sendv(id, (0x300 + k) as *mut c_void, &sgl, 2, 0),
            );
            comp(id, false, 0x300 + k as u64, rv::IBV_WC_SEND, None);
        }
        for k in 0..2 {
            comp(
                id,
                true,
                0x101 + k as u64,
                rv::IBV_WC_RECV,
                Some(SIZE as u32),
            );
            if recv.bytes()[SIZE * (1 + k)..SIZE * (2 + k)] != pattern(peer_seed + 7 * k)[..] {
                fail(format!("message {k} differs"));
            }
        }
        // 7. RDMA write, and read back.
        let written = pattern(seed ^ 0xa5);
        send.bytes().copy_from_slice(&written);
        ok(
            "rdma_post_write",
            rv::rdma_post_write(
                id,
                0x400 as *mut c_void,
                send.ptr(),
                SIZE,
                send_mr,
                0,
                peer_addr,
                peer_wkey,
            ),
        );
        comp(id, false, 0x400, rv::IBV_WC_RDMA_WRITE, None);
        back.bytes().fill(0);
        ok(
            "rdma_post_read",
            rv::rdma_post_read(
                id,
                0x401 as *mut c_void,
                back.ptr(),
                SIZE,
                back_mr,
                0,
                peer_addr,
                peer_rkey,
            ),
        );
        comp(id, false, 0x401, rv::IBV_WC_RDMA_READ, Some(SIZE as u32));
        if back.bytes() != &written[..] {
            fail("the bytes read back differ");
        }
        // 8. A bounded wait that times out; 9. refused input.
        let mut wc = rv::ibv_wc::default();
        refused(
            "rdma_get_send_comp_timeout",
            rv::rdma_get_send_comp_timeout(id, &mut wc, 100),
            rv::ETIMEDOUT,
        );
        refused(
            "rdma_post_send(NULL)",
            rv::rdma_post_send(null_mut(), null_mut(), send.ptr(), SIZE, send_mr, 0),
            rv::EINVAL,
        );
        refused(
            "rdma_get_local_addr(NULL)",
            rv::rdma_get_local_addr(null_mut()),
            rv::EINVAL,
        );
        // 10. Addresses.
        check_addr(
            ok("rdma_get_local_addr", rv::rdma_get_local_addr(id)),
            addr,
            server.then_some(port),
            "local",
        );
        check_addr(
            ok("rdma_get_peer_addr", rv::rdma_get_peer_addr(id)),
            addr,
            (!server).then_some(port),
            "peer",
        );
        // 11. Done.
        send.bytes().fill(0);
        send.bytes()[..4].copy_from_slice(b"DONE");
        ok(
            "rdma_post_send",
            rv::rdma_post_send(id, 0x500 as *mut c_void, send.ptr(), SIZE, send_mr, 0),
        );
        comp(id, false, 0x500, rv::IBV_WC_SEND, None);
        comp(id, true, 0x103, rv::IBV_WC_RECV, Some(SIZE as u32));
        if &recv.bytes()[3 * SIZE..3 * SIZE + 4] != b"DONE" {
            fail("no DONE");
        }
        // 12. Teardown.
        ok("rdma_disconnect", rv::rdma_disconnect(id));
        for m in [recv_mr, send_mr, wmr, rmr, back_mr] {
            ok("rdma_dereg_mr", rv::rdma_dereg_mr(m));
        }
        rv::rdma_destroy_ep(id);
        if server {
            rv::rdma_destroy_ep(listen);
        }
        rv::rdma_freeaddrinfo(res);
    }
}
