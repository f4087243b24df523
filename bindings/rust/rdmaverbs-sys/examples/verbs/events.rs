//! Waiting for what the provider reports, and checking it: a channel's
//! file descriptor readable, an rdma_cm event, the completions of a CQ,
//! one completion's every field.

use std::ffi::{c_int, c_void};
use std::ptr::null_mut;

use rdmaverbs_sys as rv;

use crate::{check, ok, WAIT_MS};

#[repr(C)]
struct PollFd {
    fd: c_int,
    events: i16,
    revents: i16,
}

unsafe extern "C" {
    fn poll(fds: *mut PollFd, nfds: u64, timeout: c_int) -> c_int;
    fn nanosleep(req: *const [i64; 2], rem: *mut [i64; 2]) -> c_int;
}

/// Waits (WAIT_MS) for a channel's file descriptor to be readable.
pub fn readable(fd: c_int, what: &str) {
    let mut p = PollFd {
        fd,
        events: 1, /* POLLIN */
        revents: 0,
    };
    // SAFETY: one pollfd, alive across the call.
    let n = unsafe { poll(&mut p, 1, WAIT_MS) };
    check(n == 1, format!("{what} (poll: {n})"));
}

/// The channel's next rdma_cm event: of the type wanted, for id, status 0;
/// read, then acknowledged (its memory is librdmacm's).
pub unsafe fn event(channel: *mut c_void, want: i32, id: *mut c_void) {
    unsafe {
        readable(
            (*channel.cast::<rv::rdma_event_channel>()).fd,
            "no rdma_cm event within the wait",
        );
        let mut ev = null_mut();
        ok("rdma_get_cm_event", rv::rdma_get_cm_event(channel, &mut ev));
        let e = *ev.cast::<rv::rdma_cm_event>();
        ok("rdma_ack_cm_event", rv::rdma_ack_cm_event(ev));
        check(
            (e.event, e.status, e.id) == (want as u32, 0, id),
            format!(
                "rdma_cm event {} status {}; want {}",
                rv::rdma_event_str(e.event),
                e.status,
                rv::rdma_event_str(want as u32)
            ),
        );
    }
}

/// One completion, every field (bindings/verbs-protocol.md): what verbs
/// defines, and rxe's values where it does not (0 for what RC leaves).
pub fn completion(
    wc: &rv::ibv_wc,
    wr_id: u64,
    opcode: i32,
    len: u32,
    flags: i32,
    imm: u32,
    qp_num: u32,
) {
    let got = (
        wc.wr_id,
        wc.status,
        wc.opcode,
        wc.byte_len,
        wc.wc_flags,
        u32::from_be(wc.imm_data),
        wc.qp_num,
        (
            wc.vendor_err,
            wc.src_qp,
            wc.pkey_index,
            wc.slid,
            wc.sl,
            wc.dlid_path_bits,
        ),
    );
    let want = (
        wr_id,
        rv::IBV_WC_SUCCESS as u32,
        opcode as u32,
        len,
        flags as u32,
        imm,
        qp_num,
        (0, 0, 0, 0, 0, 0),
    );
    // SAFETY: ibv_wc_status_str takes any value.
    let status = unsafe { rv::ibv_wc_status_str(wc.status) };
    check(
        got == want,
        format!("completion {got:x?}; want {want:x?} ({status})"),
    );
}

/// Polls cq (up to 8 at once) until n completions: them.
pub unsafe fn completions(cq: *mut c_void, n: usize) -> Vec<rv::ibv_wc> {
    let (mut out, mut polls) = (Vec::new(), 0);
    while out.len() < n {
        let mut wc = [rv::ibv_wc::default(); 8];
        let want = (n - out.len()).min(8);
        let got = ok("ibv_poll_cq", unsafe {
            rv::ibv_poll_cq(cq, want as c_int, &mut wc)
        }) as usize;
        out.extend_from_slice(&wc[..got]);
        if got == 0 {
            polls += 1;
            check(polls < WAIT_MS, "too few completions within the wait");
            // SAFETY: a timespec of 1 ms.
            unsafe { nanosleep(&[0, 1_000_000], null_mut()) };
        }
    }
    out
}
