//! Buffers kept alive, at run time, on the recording provider
//! (bindings/recorder/, named by RDMAVERBS_RECORDER; bindings/run.sh sets
//! it): a buffer moved into a post is the queue's, so the program holds no
//! reference to it; its memory is not freed (the heap is churned with
//! other bytes of its size meanwhile), and the bytes the provider reads at
//! the posted SGE afterwards, as a card does when it executes the request,
//! are the bytes posted; the completion hands the same buffer back. A post
//! that fails hands back what it did not post, intact, with the errno.
//! Objects over the recorder's fake id, CQ and SRQ (`from_raw`: this crate
//! destroys none of them).

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::Mutex;

use rdmaverbs::{Buf, Cq, Endpoint, RecvWr, RemoteAddr, SendWr, Srq, WcOpcode};

/// The recording provider's functions.
struct Recorder {
    id: unsafe extern "C" fn() -> *mut c_void,
    srq: unsafe extern "C" fn() -> *mut c_void,
    cq: unsafe extern "C" fn() -> *mut c_void,
    fail: unsafe extern "C" fn(c_int),
    posts: unsafe extern "C" fn() -> c_int,
    last: unsafe extern "C" fn() -> *const c_char,
    bytes: unsafe extern "C" fn() -> *const c_char,
    complete_last: unsafe extern "C" fn(),
}

/// The recorder's record is the process's: one test at a time.
static ONE: Mutex<()> = Mutex::new(());

fn recorder() -> Recorder {
    let path = std::env::var("RDMAVERBS_RECORDER")
        .expect("RDMAVERBS_RECORDER names the recording provider");
    let path = CString::new(path).unwrap();
    // SAFETY: dlopen and dlsym of the recorder, whose functions have these
    // types (bindings/recorder/).
    unsafe {
        let lib = libc::dlopen(path.as_ptr(), libc::RTLD_NOW);
        assert!(!lib.is_null(), "RDMAVERBS_RECORDER does not load");
        let sym = |name: &CStr| {
            let p = libc::dlsym(lib, name.as_ptr());
            assert!(!p.is_null(), "{name:?} is not in the recorder");
            p
        };
        Recorder {
            id: std::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> *mut c_void>(sym(
                c"recorder_id",
            )),
            srq: std::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> *mut c_void>(sym(
                c"recorder_srq",
            )),
            cq: std::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> *mut c_void>(sym(
                c"recorder_cq",
            )),
            fail: std::mem::transmute::<*mut c_void, unsafe extern "C" fn(c_int)>(sym(
                c"recorder_fail",
            )),
            posts: std::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> c_int>(sym(
                c"recorder_posts",
            )),
            last: std::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> *const c_char>(sym(
                c"recorder_last",
            )),
            bytes: std::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> *const c_char>(
                sym(c"recorder_bytes"),
            ),
            complete_last: std::mem::transmute::<*mut c_void, unsafe extern "C" fn()>(sym(
                c"recorder_complete_last",
            )),
        }
    }
}

fn text(p: *const c_char) -> String {
    // SAFETY: the recorder's NUL-terminated buffers.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

impl Recorder {
    fn last(&self) -> String {
        // SAFETY: no argument.
        text(unsafe { (self.last)() })
    }
    fn bytes(&self) -> String {
        // SAFETY: no argument.
        text(unsafe { (self.bytes)() })
    }
    fn posts(&self) -> c_int {
        // SAFETY: no argument.
        unsafe { (self.posts)() }
    }
    fn complete_last(&self) {
        // SAFETY: no argument.
        unsafe { (self.complete_last)() }
    }
    fn fail(&self, errno: c_int) {
        // SAFETY: no pointer.
        unsafe { (self.fail)(errno) }
    }
    /// A fresh record, and an endpoint over the recorder's id (its QP), its
    /// CQ for both directions, its SRQ.
    fn endpoint(&self) -> (Endpoint, Cq, Srq) {
        // SAFETY: the recorder's objects live as long as the process; this
        // crate destroys none of them (from_raw).
        unsafe {
            let id = (self.id)();
            let (cq, srq) = (Cq::from_raw((self.cq)()), Srq::from_raw((self.srq)()));
            (Endpoint::from_raw(id, &cq, &cq, Some(&srq)), cq, srq)
        }
    }
}

/// A buffer of ours with these bytes, "registered" under lkey: a Box of
/// its own, so that a buffer freed too early is heap memory that churn()
/// gets back.
fn buf(bytes: &[u8], lkey: u32) -> Buf {
    // SAFETY: the recorder never reads an lkey's registration.
    let mut b = unsafe { Buf::from_raw(vec![0; bytes.len()].into_boxed_slice(), lkey) };
    b.copy_from_slice(bytes);
    b
}

/// Allocations of the size of the test's buffers, filled with 0xee: a
/// buffer freed while posted would be one of them now.
fn churn(len: usize) -> Vec<Vec<u8>> {
    (0..512).map(|_| vec![0xee; len]).collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn pattern(seed: u8, len: usize) -> Vec<u8> {
    (0..len).map(|j| seed.wrapping_add((7 * j) as u8)).collect()
}

/// The token a post handed C as the wr_id of its request k (the record's).
fn tokens(record: &str) -> Vec<u64> {
    record
        .split(' ')
        .filter_map(|t| t.strip_prefix("wr_id=0x"))
        .map(|t| u64::from_str_radix(t, 16).unwrap())
        .collect()
}

#[test]
fn a_posted_send_buffer_is_held_until_its_completion() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let rec = recorder();
    let (ep, cq, _srq) = rec.endpoint();
    let bytes = pattern(0x3c, 64);
    let msg = buf(&bytes, 0x1234);
    let addr = msg.addr();
    ep.post_send([SendWr::send_with_imm(0x42, 0xc0de_0001, msg)])
        .unwrap();
    // The program has no reference to the buffer: it is the queue's.
    let junk = churn(64);
    let record = rec.last();
    let token = tokens(&record)[0];
    assert_ne!(token, 0x42, "C is handed the queue's token, not the wr_id");
    assert_eq!(
        record,
        format!("send_imm wr_id={token:#x} flags=0x2 imm=0x100dec0 sge={addr:#x}:0x40:0x1234")
    );
    // What a card reads at the SGE now: the bytes posted, intact.
    assert_eq!(rec.bytes(), format!(" {}", hex(&bytes)));
    assert!(junk.iter().all(|j| j.iter().all(|&b| b == 0xee)));
    assert_eq!(ep.sends_posted(), 1);
    // Its completion hands the same buffer back, with the wr_id posted.
    rec.complete_last();
    let mut done = cq.poll(4).unwrap();
    assert_eq!(done.len(), 1);
    let c = done.remove(0);
    assert_eq!(
        (c.wr_id(), c.status().is_success(), c.opcode(), c.byte_len()),
        (0x42, true, WcOpcode::Send, 64)
    );
    assert_eq!(ep.sends_posted(), 0);
    let back = c.into_bufs();
    assert_eq!(back.len(), 1);
    assert_eq!(
        (back[0].addr(), back[0].lkey(), &back[0][..]),
        (addr, 0x1234, &bytes[..])
    );
}

#[test]
fn receives_posted_on_an_srq_come_back_with_their_completions() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let rec = recorder();
    let (_ep, cq, srq) = rec.endpoint();
    // One buffer of 4 slots of 16 bytes, each slot a receive, one list.
    let ring = buf(&pattern(0x90, 64), 0x77);
    let base = ring.addr();
    srq.post_recv(
        ring.chunks(16)
            .into_iter()
            .enumerate()
            .map(|(i, b)| RecvWr::new(0x100 + i as u64, b)),
    )
    .unwrap();
    assert_eq!(srq.posted(), 4);
    let junk = churn(64);
    let t = tokens(&rec.last());
    let want: Vec<String> = (0..4)
        .map(|i| {
            format!(
                "srq_recv wr_id={:#x} sge={:#x}:0x10:0x77",
                t[i],
                base + 16 * i as u64
            )
        })
        .collect();
    assert_eq!(rec.last(), want.join(" | "));
    let slots: Vec<String> = pattern(0x90, 64)
        .chunks(16)
        .map(|s| format!(" {}", hex(s)))
        .collect();
    assert_eq!(rec.bytes(), slots.join(" |"));
    drop(junk);
    rec.complete_last();
    let done = cq.poll(8).unwrap();
    assert_eq!(done.len(), 4);
    for (i, c) in done.into_iter().enumerate() {
        assert_eq!(
            (c.wr_id(), c.opcode(), c.byte_len()),
            (0x100 + i as u64, WcOpcode::Recv, 16)
        );
        let b = c.into_bufs().remove(0);
        assert_eq!(
            (b.addr(), &b[..]),
            (
                base + 16 * i as u64,
                &pattern(0x90, 64)[16 * i..16 * (i + 1)]
            )
        );
    }
    assert_eq!(srq.posted(), 0);
}

#[test]
fn a_failed_post_hands_back_what_it_did_not_post() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let rec = recorder();
    let (ep, _cq, _srq) = rec.endpoint();
    let (a, b) = (pattern(1, 32), pattern(2, 8));
    let posts = rec.posts();
    rec.fail(libc::ENOMEM);
    let e = ep
        .post_send([
            SendWr::send(0x1, buf(&a, 1)),
            SendWr::fetch_add(
                0x2,
                buf(&b, 2),
                RemoteAddr {
                    addr: 0x1000,
                    rkey: 9,
                },
                5,
            ),
        ])
        .unwrap_err();
    assert_eq!(rdmaverbs::errno_of(&e.error), Some(libc::ENOMEM));
    assert_eq!(rec.posts(), posts, "nothing recorded");
    assert_eq!(ep.sends_posted(), 0);
    let back: Vec<(u64, Vec<u8>)> = e
        .unposted
        .into_iter()
        .map(|w| (w.wr_id(), w.into_bufs()[0].to_vec()))
        .collect();
    assert_eq!(back, [(0x1, a), (0x2, b)]);
    // An atomic's result must be one 8-byte buffer: refused before C.
    let e = ep
        .post_send([SendWr::compare_swap(
            0x3,
            buf(&[0; 4], 3),
            RemoteAddr {
                addr: 0x1000,
                rkey: 9,
            },
            1,
            2,
        )])
        .unwrap_err();
    assert_eq!(e.error.kind(), std::io::ErrorKind::InvalidInput);
    assert_eq!(
        (rec.posts(), e.unposted.len(), ep.sends_posted()),
        (posts, 1, 0)
    );
    let as_io: std::io::Error = e.into();
    assert!(as_io.to_string().contains("8 bytes"), "{as_io}");
}

#[test]
fn atomics_carry_their_operands_and_a_failed_poll_its_errno() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let rec = recorder();
    let (ep, cq, _srq) = rec.endpoint();
    let [r0, r1]: [Buf; 2] = buf(&[0; 16], 0x55).chunks(8).try_into().unwrap();
    let (at0, at1) = (r0.addr(), r1.addr());
    let word = RemoteAddr {
        addr: 0xfedc_0000_0000_3000,
        rkey: 0x8000_0066,
    };
    ep.post_send([
        SendWr::fetch_add(0x700, r0, word, 0x1000_0000_0000_0001),
        SendWr::compare_swap(0x701, r1, word.offset(8), 0x1111, 0x2222).fence(),
    ])
    .unwrap();
    let t = tokens(&rec.last());
    assert_eq!(
        rec.last(),
        format!(
            "fadd wr_id={:#x} flags=0x2 remote=0xfedc000000003000 rkey=0x80000066 add=0x1000000000000001 sge={at0:#x}:0x8:0x55 | \
             cas wr_id={:#x} flags=0x3 remote=0xfedc000000003008 rkey=0x80000066 compare=0x1111 swap=0x2222 sge={at1:#x}:0x8:0x55",
            t[0], t[1]
        )
    );
    rec.fail(libc::EIO);
    let e = cq.poll(4).unwrap_err();
    assert_eq!(rdmaverbs::errno_of(&e), Some(libc::EIO));
    assert_eq!(
        e.to_string(),
        "ibv_poll_cq: EIO (Input/output error, errno 5)"
    );
    rec.complete_last();
    let done = cq.poll(4).unwrap();
    let got: Vec<(u64, WcOpcode, u64)> = done
        .iter()
        .map(|c| (c.wr_id(), c.opcode(), c.bufs()[0].addr()))
        .collect();
    assert_eq!(
        got,
        [
            (0x700, WcOpcode::FetchAdd, at0),
            (0x701, WcOpcode::CompareSwap, at1)
        ]
    );
}
