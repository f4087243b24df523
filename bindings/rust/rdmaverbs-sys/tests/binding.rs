//! The Rust binding on a machine without RDMA: librdmaverbs' functions
//! bound at their symbol version, in librdmaverbs.so.1; the refused inputs
//! as the io::Error of their errno, the C functions' own results, the
//! vectored posts checked SGE by SGE on the recording provider
//! (bindings/recorder.c), and the RDMAVERBS_1.3 data path there
//! (ibv_post_send of a list with the wr union, ibv_post_srq_recv,
//! ibv_poll_cq into a slice, ibv_req_notify_cq, each failure convention);
//! the ports in both orders, the completion statuses.

use core::ffi::{c_char, c_int, c_void, CStr};
use std::ffi::CString;
use std::io;
use std::ptr::null_mut;
use std::sync::Mutex;

use rdmaverbs_sys as rv;

fn errno<T>(r: io::Result<T>) -> Option<i32> {
    r.err().as_ref().and_then(rv::errno_of)
}

#[test]
fn refused_inputs_are_einval() {
    let mut wc = rv::ibv_wc::default();
    unsafe {
        assert_eq!(
            errno(rv::rdma_post_send(
                null_mut(),
                null_mut(),
                null_mut(),
                0,
                null_mut(),
                0
            )),
            Some(rv::EINVAL)
        );
        assert_eq!(
            errno(rv::rdma_get_send_comp_timeout(null_mut(), &mut wc, 0)),
            Some(rv::EINVAL)
        );
        assert_eq!(errno(rv::rdma_get_local_addr(null_mut())), Some(rv::EINVAL));
        assert_eq!(
            errno(rv::rdma_reg_msgs(null_mut(), null_mut(), 0)),
            Some(rv::EINVAL)
        );
    }
}

#[test]
fn seterrno_and_the_c_functions() {
    unsafe {
        assert_eq!(rv::rdma_seterrno(0).unwrap(), 0);
        assert_eq!(errno(rv::rdma_seterrno(rv::EIO)), Some(rv::EIO));
        assert_eq!(
            rv::sys::rdma_post_send(null_mut(), null_mut(), null_mut(), 0, null_mut(), 0),
            -1
        );
        assert_eq!(io::Error::last_os_error().raw_os_error(), Some(rv::EINVAL));
        assert!(rv::sys::rdma_get_peer_addr(null_mut()).is_null());
    }
    assert_eq!(core::mem::size_of::<rv::ibv_wc>(), 48);
}

/// The recording provider (bindings/recorder.c, named by RDMAVERBS_RECORDER):
/// a fake id whose QP records each work request.
struct Recorder {
    id: unsafe extern "C" fn() -> *mut c_void,
    posts: unsafe extern "C" fn() -> c_int,
    last: unsafe extern "C" fn() -> *const c_char,
    qp: unsafe extern "C" fn() -> *mut c_void,
    srq: unsafe extern "C" fn() -> *mut c_void,
    cq: unsafe extern "C" fn() -> *mut c_void,
    qp_ex: unsafe extern "C" fn() -> *mut c_void,
    pd: unsafe extern "C" fn() -> *mut c_void,
    fail: unsafe extern "C" fn(c_int),
}

/// The recorder's record is the process's: one test at a time uses it.
static RECORDER: Mutex<()> = Mutex::new(());

#[repr(C)]
struct DlInfo {
    fname: *const c_char,
    fbase: *mut c_void,
    sname: *const c_char,
    saddr: *mut c_void,
}

unsafe extern "C" {
    fn dlopen(file: *const c_char, mode: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void;
    fn dlvsym(handle: *mut c_void, name: *const c_char, version: *const c_char) -> *mut c_void;
    fn dladdr(address: *const c_void, info: *mut DlInfo) -> c_int;
}

fn recorder() -> Recorder {
    let path = std::env::var("RDMAVERBS_RECORDER")
        .expect("RDMAVERBS_RECORDER names the recording provider");
    let path = CString::new(path).unwrap();
    // SAFETY: dlopen and dlsym of a library of ours, whose functions have
    // the types given (bindings/recorder.c).
    unsafe {
        let lib = dlopen(path.as_ptr(), 2 /* RTLD_NOW */);
        assert!(!lib.is_null(), "RDMAVERBS_RECORDER does not load");
        let sym = |name: &CStr| {
            let p = dlsym(lib, name.as_ptr());
            assert!(!p.is_null(), "{name:?} is not in the recorder");
            p
        };
        Recorder {
            id: core::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> *mut c_void>(sym(
                c"recorder_id",
            )),
            posts: core::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> c_int>(sym(
                c"recorder_posts",
            )),
            last: core::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> *const c_char>(
                sym(c"recorder_last"),
            ),
            qp: core::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> *mut c_void>(sym(
                c"recorder_qp",
            )),
            srq: core::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> *mut c_void>(sym(
                c"recorder_srq",
            )),
            cq: core::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> *mut c_void>(sym(
                c"recorder_cq",
            )),
            qp_ex: core::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> *mut c_void>(sym(
                c"recorder_qp_ex",
            )),
            pd: core::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> *mut c_void>(sym(
                c"recorder_pd",
            )),
            fail: core::mem::transmute::<*mut c_void, unsafe extern "C" fn(c_int)>(sym(
                c"recorder_fail",
            )),
        }
    }
}

impl Recorder {
    fn last(&self) -> String {
        // SAFETY: the recorder's own NUL-terminated buffer.
        unsafe { CStr::from_ptr((self.last)()) }
            .to_string_lossy()
            .into_owned()
    }
    fn posts(&self) -> c_int {
        // SAFETY: no argument.
        unsafe { (self.posts)() }
    }
}

fn sge(addr: u64, length: u32, lkey: u32) -> rv::ibv_sge {
    rv::ibv_sge { addr, length, lkey }
}

/// The three SGEs the tests pass (`SA`, `SB`, `SC`: what the provider
/// records of each).
fn sges() -> [rv::ibv_sge; 3] {
    [
        sge(0x1000, 0x10, 0x11),
        sge(0x8000_0000_0000_2000, 0x8000_0030, 0x8000_0022),
        sge(0x3000, 0x40, 0x33),
    ]
}

// What the provider records of each SGE.
const SA: &str = " sge=0x1000:0x10:0x11";
const SB: &str = " sge=0x8000000000002000:0x80000030:0x80000022";
const SC: &str = " sge=0x3000:0x40:0x33";

/// (name, node, since) of an exports list: the build's (`RDMAVERBS_EXPORTS`),
/// or every row of the table (`RDMAVERBS_ALL_EXPORTS`).
fn exports(variable: &str) -> Vec<(String, String, String)> {
    let path =
        std::env::var(variable).unwrap_or_else(|_| panic!("{variable} (bindings/run.sh sets it)"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut out: Vec<(String, String, String)> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0].to_string(), f[1].to_string(), f[2].to_string())
        })
        .collect();
    out.sort();
    out
}

/// A row of the table that the library's build lacks is an `Err` of
/// `ErrorKind::Unsupported` at its call, naming it and the release that
/// brought it.
#[test]
fn a_function_the_build_lacks_is_an_error_at_its_call() {
    let built = exports("RDMAVERBS_EXPORTS");
    let lacking: Vec<_> = exports("RDMAVERBS_ALL_EXPORTS")
        .into_iter()
        .filter(|r| !built.iter().any(|b| b.0 == r.0))
        .collect();
    let errors: std::collections::BTreeMap<&str, Option<std::io::Error>> = [
        // SAFETY: a NULL QP and context, never passed on: the library lacks them.
        (
            "ibv_wr_flush",
            unsafe { rv::ibv_wr_flush(null_mut(), 0, 0, 0, 0, 0) }.err(),
        ),
        (
            "ibv_query_comp_cntr_caps",
            unsafe { rv::ibv_query_comp_cntr_caps(null_mut(), null_mut()) }.err(),
        ),
        (
            "ibv_wr_atomic_write",
            unsafe { rv::ibv_wr_atomic_write(null_mut(), 0, 0, null_mut()) }.err(),
        ),
    ]
    .into_iter()
    .collect();
    for (name, _, since) in &lacking {
        let e = errors[name.as_str()]
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: no error"));
        assert_eq!(e.kind(), std::io::ErrorKind::Unsupported, "{name}");
        let text = e.to_string();
        assert!(text.contains(&format!("{name} is not in")), "{text}");
        assert!(
            text.contains(&format!("it came with rdma-core {since},")),
            "{text}"
        );
    }
    // Those the build has are called (a NULL object: each refuses it).
    for (name, e) in &errors {
        if built.iter().any(|b| b.0 == *name) {
            assert!(
                e.as_ref()
                    .is_none_or(|e| e.kind() != std::io::ErrorKind::Unsupported),
                "{name}"
            );
        }
    }
}

#[test]
fn ours_are_bound_at_their_version_in_librdmaverbs() {
    let ours = rv::versioned();
    let mut bound: Vec<(String, String)> = ours
        .iter()
        .map(|(name, version, _)| (name.to_string(), version.to_string()))
        .collect();
    bound.sort();
    let every: Vec<(String, String)> = exports("RDMAVERBS_ALL_EXPORTS")
        .into_iter()
        .map(|(n, node, _)| (n, node))
        .collect();
    assert_eq!(bound, every, "each row of abi/exports.tsv, at its node");
    assert!(ours.iter().any(|(_, v, _)| *v == "RDMAVERBS_1.3"));
    let built = exports("RDMAVERBS_EXPORTS");
    // RTLD_DEFAULT: the process's scope, which the dynamic loader bound
    // the crate's versioned references in.
    let default = null_mut();
    for (name, version, address) in ours {
        if !built.iter().any(|b| b.0 == name) {
            assert!(address.is_null(), "{name}, which the build lacks");
            continue;
        }
        let (cname, cversion) = (CString::new(name).unwrap(), CString::new(version).unwrap());
        let mut info = DlInfo {
            fname: core::ptr::null(),
            fbase: null_mut(),
            sname: core::ptr::null(),
            saddr: null_mut(),
        };
        // SAFETY: dlvsym and dladdr with valid strings and a writable DlInfo.
        unsafe {
            assert_eq!(
                dlvsym(default, cname.as_ptr(), cversion.as_ptr()).cast_const(),
                address,
                "{name}@{version}"
            );
            assert_ne!(dladdr(address, &mut info), 0, "{name}");
            assert_eq!(CStr::from_ptr(info.sname).to_str().unwrap(), name);
            let file = CStr::from_ptr(info.fname).to_str().unwrap();
            assert!(file.contains("librdmaverbs.so"), "{name} is in {file}");
        }
    }
}

/// The recording provider's three completions, every field; the fourth
/// element untouched.
fn check_completions(wc: &[rv::ibv_wc]) {
    let status = [
        rv::IBV_WC_SUCCESS,
        rv::IBV_WC_SUCCESS,
        rv::IBV_WC_REM_ACCESS_ERR,
    ];
    let opcode = [rv::IBV_WC_RECV, rv::IBV_WC_COMP_SWAP, rv::IBV_WC_FETCH_ADD];
    for (i, w) in wc[..3].iter().enumerate() {
        let j = i as u32;
        assert_eq!(
            (
                w.wr_id,
                w.status,
                w.opcode,
                w.vendor_err,
                w.byte_len,
                w.imm_data,
                w.qp_num,
                w.src_qp
            ),
            (
                0x5000 + i as u64,
                status[i] as u32,
                opcode[i] as u32,
                0x100 + j,
                0x40 + j,
                0xa0b0_c0d0 + j,
                0x1100 + j,
                0x2200 + j
            ),
            "completion {i}"
        );
        assert_eq!(
            (w.wc_flags, w.pkey_index, w.slid, w.sl, w.dlid_path_bits),
            (
                if i == 0 {
                    rv::IBV_WC_WITH_IMM as u32
                } else {
                    0
                },
                0x30 + i as u16,
                0x4400 + i as u16,
                1 + i as u8,
                0x50 + i as u8
            ),
            "completion {i}"
        );
    }
    assert_eq!((wc[3].wr_id, wc[3].status, wc[3].byte_len), (0xdead, 0, 0));
}

#[test]
fn verbs_data_path() {
    let _one = RECORDER.lock().unwrap_or_else(|e| e.into_inner());
    let rec = recorder();
    // SAFETY: the recorder's objects; every struct and slice below lives
    // across the calls that read or write it.
    unsafe {
        (rec.id)();
        let (qp, srq, cq) = ((rec.qp)(), (rec.srq)(), (rec.cq)());
        let sgl = [
            sge(0x1000, 0x10, 0x11),
            sge(0x8000_0000_0000_2000, 0x8000_0030, 0x8000_0022),
            sge(0x3000, 0x40, 0x33),
            sge(0x4000, 8, 0x44),
        ];
        let at = |i: usize| (&sgl[i] as *const rv::ibv_sge).cast_mut().cast::<c_void>();
        // Three work requests joined by next: a send with immediate data over
        // two SGEs, a compare-and-swap and a fetch-and-add (the wr union's
        // atomic member).
        let mut fadd = rv::ibv_send_wr {
            wr_id: 0x602,
            sg_list: at(3),
            num_sge: 1,
            ..Default::default()
        };
        fadd.opcode = rv::IBV_WR_ATOMIC_FETCH_AND_ADD as u32;
        fadd.wr.atomic = rv::ibv_send_wr_wr_atomic {
            remote_addr: 0xfedc_0000_0000_3008,
            rkey: 0x77,
            compare_add: 0x8000_0000_0000_0001,
            ..Default::default()
        };
        let mut cas = rv::ibv_send_wr {
            wr_id: 0x601,
            sg_list: at(2),
            num_sge: 1,
            ..Default::default()
        };
        cas.next = (&mut fadd as *mut rv::ibv_send_wr).cast();
        cas.opcode = rv::IBV_WR_ATOMIC_CMP_AND_SWP as u32;
        cas.send_flags = rv::IBV_SEND_FENCE as u32;
        cas.wr.atomic = rv::ibv_send_wr_wr_atomic {
            remote_addr: 0xfedc_0000_0000_3000,
            compare_add: 0x1111_2222_3333_4444,
            swap: 0x5555_6666_7777_8888,
            rkey: 0x8000_0066,
        };
        let mut send = rv::ibv_send_wr {
            wr_id: 0x600,
            sg_list: at(0),
            num_sge: 2,
            imm_data: 0x0a0b_0c0d,
            ..Default::default()
        };
        send.next = (&mut cas as *mut rv::ibv_send_wr).cast();
        send.opcode = rv::IBV_WR_SEND_WITH_IMM as u32;
        send.send_flags = rv::IBV_SEND_SIGNALED as u32;
        let mut bad: *mut c_void = null_mut();
        assert_eq!(rv::ibv_post_send(qp, &mut send, &mut bad).unwrap(), 0);
        assert_eq!(
            rec.last(),
            format!(
                "send_imm wr_id=0x600 flags=0x2 imm=0xa0b0c0d{SA}{SB} | cas wr_id=0x601 flags=0x1 \
                 remote=0xfedc000000003000 rkey=0x80000066 compare=0x1111222233334444 swap=0x5555666677778888{SC} \
                 | fadd wr_id=0x602 flags=0x0 remote=0xfedc000000003008 rkey=0x77 add=0x8000000000000001 \
                 sge=0x4000:0x8:0x44"
            )
        );
        assert!(bad.is_null());
        assert_eq!(rec.posts(), 1);
        // the rdma member shares the union's first bytes; its rkey is not atomic's
        assert_eq!(
            (cas.wr.rdma.remote_addr, cas.wr.rdma.rkey),
            (0xfedc_0000_0000_3000, 0x3333_4444)
        );
        // Failures: the provider's errno value, *bad_wr its first request; NULL refused.
        (rec.fail)(rv::ENOMEM);
        let e = rv::ibv_post_send(qp, &mut fadd, &mut bad).unwrap_err();
        assert_eq!(rv::errno_of(&e), Some(rv::ENOMEM));
        assert_eq!(e.kind(), io::ErrorKind::OutOfMemory);
        assert_eq!(
            e.to_string(),
            "ibv_post_send: ENOMEM (Cannot allocate memory, errno 12)"
        );
        let call = e.get_ref().and_then(|i| i.downcast_ref::<rv::CallError>());
        assert_eq!(
            call.map(|c| (c.function(), c.errno(), c.errno_name())),
            Some(("ibv_post_send", rv::ENOMEM, Some("ENOMEM")))
        );
        assert_eq!(bad, (&mut fadd as *mut rv::ibv_send_wr).cast());
        assert_eq!(
            rv::errno_of(&rv::ibv_post_send(null_mut(), &mut fadd, &mut bad).unwrap_err()),
            Some(rv::EINVAL)
        );
        assert_eq!(rv::sys::ibv_post_send(qp, null_mut(), &mut bad), rv::EINVAL);
        assert_eq!(rec.posts(), 1);
        // Receives on the SRQ, a list of two; one on the QP.
        let mut second = rv::ibv_recv_wr {
            wr_id: 0x621,
            next: null_mut(),
            sg_list: at(1),
            num_sge: 2,
        };
        let mut first = rv::ibv_recv_wr {
            wr_id: 0x620,
            next: (&mut second as *mut rv::ibv_recv_wr).cast(),
            sg_list: at(0),
            num_sge: 1,
        };
        assert_eq!(rv::ibv_post_srq_recv(srq, &mut first, &mut bad).unwrap(), 0);
        assert_eq!(
            rec.last(),
            format!("srq_recv wr_id=0x620{SA} | srq_recv wr_id=0x621{SB}{SC}")
        );
        assert_eq!(rv::ibv_post_recv(qp, &mut second, &mut bad).unwrap(), 0);
        assert_eq!(rec.last(), format!("recv wr_id=0x621{SB}{SC}"));
        // Completions: 3 of 4 filled, into a slice.
        let mut wc = [rv::ibv_wc::default(); 4];
        wc[3].wr_id = 0xdead;
        assert_eq!(rv::ibv_poll_cq(cq, 4, &mut wc).unwrap(), 3);
        check_completions(&wc);
        let e = rv::ibv_poll_cq(cq, 5, &mut wc).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(
            e.to_string(),
            "ibv_poll_cq: num_entries is 5 but wc has 4 elements"
        );
        (rec.fail)(rv::EIO);
        assert_eq!(
            rv::errno_of(&rv::ibv_poll_cq(cq, 4, &mut wc).unwrap_err()),
            Some(rv::EIO)
        );
        assert_eq!(rv::ibv_req_notify_cq(cq, 1).unwrap(), 0);
        assert_eq!(rec.last(), "notify solicited_only=1");
        assert_eq!(
            rv::errno_of(&rv::ibv_req_notify_cq(null_mut(), 0).unwrap_err()),
            Some(rv::EINVAL)
        );
        assert_eq!(rv::ibv_inc_rkey(0x1234_56ff), 0x1234_5600);
        assert_eq!(
            rv::rdma_event_str(rv::RDMA_CM_EVENT_ESTABLISHED as u32),
            "RDMA_CM_EVENT_ESTABLISHED"
        );
    }
}

#[test]
fn sge_lists_of_the_extended_qp_and_advise_mr() {
    let _one = RECORDER.lock().unwrap_or_else(|e| e.into_inner());
    let rec = recorder();
    let [a, b, c] = sges();
    let array = [a, b, c];
    let vec = vec![c, a];
    // SAFETY: the recorder's objects; the slices are live across each call.
    unsafe {
        (rec.id)();
        let (qpx, pd) = ((rec.qp_ex)(), (rec.pd)());
        rv::ibv_wr_set_sge_list(qpx, 3, &array).unwrap();
        assert_eq!(rec.last(), format!("sge_list{SA}{SB}{SC}"));
        rv::ibv_wr_set_sge_list(qpx, 2, &vec).unwrap();
        assert_eq!(rec.last(), format!("sge_list{SC}{SA}"));
        let posts = rec.posts();
        let e = rv::ibv_wr_set_sge_list(qpx, 3, &vec).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(rec.posts(), posts, "a refused list reaches no provider");
        // IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, IBV_ADVISE_MR_FLAG_FLUSH
        assert_eq!(rv::ibv_advise_mr(pd, 1, 1, &vec, 2).unwrap(), 0);
        assert_eq!(rec.last(), format!("advise advice=0x1 flags=0x1{SC}{SA}"));
        assert_eq!(rv::ibv_advise_mr(pd, 0, 0, &array[1..], 1).unwrap(), 0);
        assert_eq!(rec.last(), format!("advise advice=0x0 flags=0x0{SB}"));
        (rec.fail)(rv::EAGAIN);
        assert_eq!(
            errno(rv::ibv_advise_mr(pd, 0, 0, &array, 3)),
            Some(rv::EAGAIN)
        );
    }
}

#[test]
fn vectored_posts_ports_and_statuses() {
    let _one = RECORDER.lock().unwrap_or_else(|e| e.into_inner());
    let rec = recorder();
    // SAFETY: no argument.
    let id = unsafe { (rec.id)() };
    let [a, b, c] = sges();
    let array = [a, b, c];
    let vec = vec![b, c];
    let ctx = |v: usize| v as *mut c_void;
    // SAFETY: id is the recorder's; the slices are live across each call.
    unsafe {
        assert_eq!(
            rv::rdma_post_sendv(id, ctx(0x300), &array, 3, rv::IBV_SEND_SIGNALED).unwrap(),
            0
        );
        assert_eq!(
            rec.last(),
            format!("send wr_id=0x300 flags=0x2{SA}{SB}{SC}")
        );
        assert_eq!(rv::rdma_post_recvv(id, ctx(0x301), &array, 2).unwrap(), 0);
        assert_eq!(rec.last(), format!("recv wr_id=0x301{SA}{SB}"));
        assert_eq!(
            rv::rdma_post_readv(
                id,
                ctx(0x302),
                &vec,
                2,
                0,
                0xfedc_0000_0000_1000,
                0x8000_0044
            )
            .unwrap(),
            0
        );
        assert_eq!(
            rec.last(),
            format!("read wr_id=0x302 flags=0x0 remote=0xfedc000000001000 rkey=0x80000044{SB}{SC}")
        );
        let flags = rv::IBV_SEND_SIGNALED | rv::IBV_SEND_FENCE;
        assert_eq!(
            rv::rdma_post_writev(
                id,
                ctx(0x303),
                &array[..],
                3,
                flags,
                0xfedc_0000_0000_2000,
                0x55
            )
            .unwrap(),
            0
        );
        assert_eq!(
            rec.last(),
            format!("write wr_id=0x303 flags=0x3 remote=0xfedc000000002000 rkey=0x55{SA}{SB}{SC}")
        );
        assert_eq!(rec.posts(), 4);
        let e = rv::rdma_post_sendv(id, ctx(0x304), &vec, 3, 0).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(
            e.to_string(),
            "rdma_post_sendv: nsge is 3 but sgl has 2 elements"
        );
        assert_eq!(rec.posts(), 4, "nothing posted");
        assert_eq!((rv::src_port(id), rv::dst_port(id)), (18577, 50000));
        // x86-64: the network-order value as a little-endian integer
        assert_eq!(
            (rv::rdma_get_src_port(id), rv::rdma_get_dst_port(id)),
            (0x9148, 0x50c3)
        );
        assert_eq!(
            rv::ibv_wc_status_str(rv::IBV_WC_LOC_PROT_ERR as u32),
            "local protection error"
        );
        assert_eq!(rv::ibv_wc_status_str(rv::IBV_WC_SUCCESS as u32), "success");
    }
    assert_eq!(rv::IBV_WC_TM_RNDV_INCOMPLETE, 23);
}
