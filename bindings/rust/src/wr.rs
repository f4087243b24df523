//! Work requests that own their buffers, the queues' record of those
//! posted, and the completions that hand the buffers back.

use std::collections::HashMap;
use std::ffi::c_void;
use std::fmt;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use rdmaverbs_sys as raw;

use crate::mem::{Buf, RemoteAddr};

/// The buffers of a work request, one SGE each: a [`Buf`], an array or a
/// `Vec` of them.
pub trait IntoSges {
    fn into_sges(self) -> Vec<Buf>;
}

impl IntoSges for Buf {
    fn into_sges(self) -> Vec<Buf> {
        vec![self]
    }
}

impl IntoSges for Vec<Buf> {
    fn into_sges(self) -> Vec<Buf> {
        self
    }
}

impl<const N: usize> IntoSges for [Buf; N] {
    fn into_sges(self) -> Vec<Buf> {
        self.into()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Send,
    Write(RemoteAddr),
    Read(RemoteAddr),
    FetchAdd(RemoteAddr, u64),
    CompareSwap(RemoteAddr, u64, u64),
}

/// A send queue's work request: the operation, its buffers (moved in,
/// handed back by its [`Completion`]), its `wr_id`. Every one is signaled
/// (`IBV_SEND_SIGNALED`): its buffers come back with its completion only.
#[derive(Debug)]
pub struct SendWr {
    wr_id: u64,
    op: Op,
    imm: Option<u32>,
    flags: u32,
    bufs: Vec<Buf>,
}

impl SendWr {
    fn new(wr_id: u64, op: Op, bufs: Vec<Buf>) -> SendWr {
        SendWr {
            wr_id,
            op,
            imm: None,
            flags: raw::IBV_SEND_SIGNALED as u32,
            bufs,
        }
    }

    /// A send of the buffers' bytes, in order (`IBV_WR_SEND`).
    pub fn send(wr_id: u64, bufs: impl IntoSges) -> SendWr {
        SendWr::new(wr_id, Op::Send, bufs.into_sges())
    }

    /// A send with 32 bits of immediate data, given in host order (put in
    /// network order here; the receiver's [`Completion::imm_data`] gives it
    /// back in host order): `IBV_WR_SEND_WITH_IMM`.
    pub fn send_with_imm(wr_id: u64, imm: u32, bufs: impl IntoSges) -> SendWr {
        SendWr {
            imm: Some(imm),
            ..SendWr::send(wr_id, bufs)
        }
    }

    /// An RDMA write of the buffers' bytes into the peer's memory
    /// (`IBV_WR_RDMA_WRITE`).
    pub fn write(wr_id: u64, bufs: impl IntoSges, remote: RemoteAddr) -> SendWr {
        SendWr::new(wr_id, Op::Write(remote), bufs.into_sges())
    }

    /// An RDMA read of the peer's memory into the buffers
    /// (`IBV_WR_RDMA_READ`).
    pub fn read(wr_id: u64, bufs: impl IntoSges, remote: RemoteAddr) -> SendWr {
        SendWr::new(wr_id, Op::Read(remote), bufs.into_sges())
    }

    /// Adds `add` to the peer's 8-byte word; its old value lands in
    /// `result` (8 bytes, 8-byte aligned), in host order
    /// (`IBV_WR_ATOMIC_FETCH_AND_ADD`).
    pub fn fetch_add(wr_id: u64, result: Buf, remote: RemoteAddr, add: u64) -> SendWr {
        SendWr::new(wr_id, Op::FetchAdd(remote, add), vec![result])
    }

    /// Sets the peer's word to `swap` if it is `compare`; its old value
    /// lands in `result` (`IBV_WR_ATOMIC_CMP_AND_SWP`).
    pub fn compare_swap(
        wr_id: u64,
        result: Buf,
        remote: RemoteAddr,
        compare: u64,
        swap: u64,
    ) -> SendWr {
        SendWr::new(wr_id, Op::CompareSwap(remote, compare, swap), vec![result])
    }

    /// Asks for a solicited event at the receiver (`IBV_SEND_SOLICITED`):
    /// wakes a CQ armed with `req_notify(true)`.
    pub fn solicited(mut self) -> SendWr {
        self.flags |= raw::IBV_SEND_SOLICITED as u32;
        self
    }

    /// Waits for the requests before it to finish first (`IBV_SEND_FENCE`).
    pub fn fence(mut self) -> SendWr {
        self.flags |= raw::IBV_SEND_FENCE as u32;
        self
    }

    /// Its `wr_id`.
    pub fn wr_id(&self) -> u64 {
        self.wr_id
    }

    /// Its buffers back, unposted.
    pub fn into_bufs(self) -> Vec<Buf> {
        self.bufs
    }

    /// The C work request (its SGEs at `sges`, its wr_id the queue's token).
    fn raw(&self, token: u64, sges: *mut raw::ibv_sge) -> io::Result<raw::ibv_send_wr> {
        let mut w = raw::ibv_send_wr {
            wr_id: token,
            sg_list: sges.cast(),
            num_sge: self.bufs.len() as i32,
            send_flags: self.flags,
            ..Default::default()
        };
        let atomic = |remote: RemoteAddr, compare_add, swap| {
            let ok =
                self.bufs.len() == 1 && self.bufs[0].len() == 8 && self.bufs[0].addr() % 8 == 0;
            if !ok {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "wr_id {:#x}: an atomic's result is one buffer of 8 bytes, 8-byte aligned",
                        self.wr_id
                    ),
                ));
            }
            Ok(raw::ibv_send_wr_wr_atomic {
                remote_addr: remote.addr,
                compare_add,
                swap,
                rkey: remote.rkey,
            })
        };
        let (opcode, imm_opcode) = match self.op {
            Op::Send => (raw::IBV_WR_SEND, raw::IBV_WR_SEND_WITH_IMM),
            Op::Write(remote) => {
                w.wr.rdma = raw::ibv_send_wr_wr_rdma {
                    remote_addr: remote.addr,
                    rkey: remote.rkey,
                };
                (raw::IBV_WR_RDMA_WRITE, raw::IBV_WR_RDMA_WRITE_WITH_IMM)
            }
            Op::Read(remote) => {
                w.wr.rdma = raw::ibv_send_wr_wr_rdma {
                    remote_addr: remote.addr,
                    rkey: remote.rkey,
                };
                (raw::IBV_WR_RDMA_READ, raw::IBV_WR_RDMA_READ)
            }
            Op::FetchAdd(remote, add) => {
                w.wr.atomic = atomic(remote, add, 0)?;
                (
                    raw::IBV_WR_ATOMIC_FETCH_AND_ADD,
                    raw::IBV_WR_ATOMIC_FETCH_AND_ADD,
                )
            }
            Op::CompareSwap(remote, compare, swap) => {
                w.wr.atomic = atomic(remote, compare, swap)?;
                (
                    raw::IBV_WR_ATOMIC_CMP_AND_SWP,
                    raw::IBV_WR_ATOMIC_CMP_AND_SWP,
                )
            }
        };
        w.opcode = match self.imm {
            Some(imm) => {
                w.imm_data = imm.to_be();
                imm_opcode as u32
            }
            None => opcode as u32,
        };
        Ok(w)
    }
}

/// A receive queue's work request: the buffers the next message received
/// fills (moved in, handed back by its [`Completion`]).
#[derive(Debug)]
pub struct RecvWr {
    wr_id: u64,
    bufs: Vec<Buf>,
}

impl RecvWr {
    pub fn new(wr_id: u64, bufs: impl IntoSges) -> RecvWr {
        RecvWr {
            wr_id,
            bufs: bufs.into_sges(),
        }
    }

    /// Its `wr_id`.
    pub fn wr_id(&self) -> u64 {
        self.wr_id
    }

    /// Its buffers back, unposted.
    pub fn into_bufs(self) -> Vec<Buf> {
        self.bufs
    }
}

/// A work request waiting for its completion, with its buffers.
pub(crate) enum InFlight {
    Send(SendWr),
    Recv(RecvWr),
}

impl InFlight {
    fn into_parts(self) -> (u64, Vec<Buf>) {
        match self {
            InFlight::Send(w) => (w.wr_id, w.bufs),
            InFlight::Recv(w) => (w.wr_id, w.bufs),
        }
    }
}

/// The tokens a post hands C as `wr_id`: unique in the process, so that a
/// CQ fed by several queues finds each completion's request.
static TOKENS: AtomicU64 = AtomicU64::new(1);

/// A queue's (a QP's send or receive queue, an SRQ's) requests posted and
/// not yet completed, by token; their buffers are dropped with it, after
/// the queue is destroyed.
#[derive(Default)]
pub(crate) struct Pending {
    map: Mutex<HashMap<u64, InFlight>>,
}

impl Pending {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, InFlight>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The request of a completion's token, if it is this queue's.
    pub(crate) fn take(&self, token: u64) -> Option<InFlight> {
        self.lock().remove(&token)
    }

    /// How many are posted and not completed.
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    /// Forgets those posted, never freeing their buffers: for a queue made
    /// elsewhere, which may still use them after this crate's handle goes.
    pub(crate) fn leak(&self) {
        std::mem::forget(std::mem::take(&mut *self.lock()));
    }
}

/// A post that failed: the error (of the errno value the provider
/// returned), and the work requests not posted, with their buffers; those
/// before them were posted. `?` turns it into its `io::Error`.
pub struct PostError<W> {
    pub error: io::Error,
    pub unposted: Vec<W>,
}

impl<W> fmt::Debug for PostError<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "PostError {{ error: {:?}, unposted: {} }}",
            self.error,
            self.unposted.len()
        )
    }
}

impl<W> fmt::Display for PostError<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "post: {} ({} work requests not posted)",
            self.error,
            self.unposted.len()
        )
    }
}

impl<W> std::error::Error for PostError<W> {}

impl<W> From<PostError<W>> for io::Error {
    fn from(e: PostError<W>) -> io::Error {
        e.error
    }
}

/// Posts a list of requests in one C call: each recorded under a token
/// before the call (its completion may be polled before the call returns),
/// those C did not take removed and handed back.
pub(crate) fn post<W>(
    pending: &Pending,
    wrs: Vec<W>,
    bufs_of: impl Fn(&W) -> &[Buf],
    build: impl Fn(&W, u64, *mut raw::ibv_sge) -> io::Result<Raw>,
    wrap: impl Fn(W) -> InFlight,
    unwrap: impl Fn(InFlight) -> W,
    call: impl FnOnce(*mut c_void, *mut *mut c_void) -> io::Result<()>,
) -> Result<(), PostError<W>> {
    if wrs.is_empty() {
        return Ok(());
    }
    let mut sges: Vec<raw::ibv_sge> = wrs
        .iter()
        .flat_map(|w| bufs_of(w).iter().map(Buf::sge))
        .collect();
    let tokens: Vec<u64> = wrs
        .iter()
        .map(|_| TOKENS.fetch_add(1, Ordering::Relaxed))
        .collect();
    let mut at = 0;
    let built: io::Result<Vec<Raw>> = wrs
        .iter()
        .zip(&tokens)
        .map(|(w, &token)| {
            // SAFETY: at <= sges.len() (the SGEs of the requests before this one).
            let r = build(w, token, unsafe { sges.as_mut_ptr().add(at) });
            at += bufs_of(w).len();
            r
        })
        .collect();
    let mut raws = match built {
        Ok(raws) => raws,
        Err(error) => {
            return Err(PostError {
                error,
                unposted: wrs,
            })
        }
    };
    for i in 1..raws.len() {
        let next = raws[i].as_ptr();
        raws[i - 1].set_next(next);
    }
    let first = raws[0].as_ptr();
    {
        let mut map = pending.lock();
        for (w, &token) in wrs.into_iter().zip(&tokens) {
            map.insert(token, wrap(w));
        }
    }
    let mut bad: *mut c_void = std::ptr::null_mut();
    match call(first, &mut bad) {
        Ok(()) => Ok(()),
        Err(error) => {
            // *bad is the first request C did not take; a NULL (or a stray)
            // one says nothing: then all of them stay posted, as far as
            // the queue knows (their buffers go with the queue).
            let from = raws.iter().position(|r| r.as_ptr() == bad);
            let unposted = match from {
                Some(i) => tokens[i..]
                    .iter()
                    .filter_map(|t| pending.take(*t))
                    .map(&unwrap)
                    .collect(),
                None => Vec::new(),
            };
            Err(PostError { error, unposted })
        }
    }
}

/// A C work request of either queue.
pub(crate) enum Raw {
    Send(Box<raw::ibv_send_wr>),
    Recv(Box<raw::ibv_recv_wr>),
}

impl Raw {
    fn as_ptr(&self) -> *mut c_void {
        match self {
            Raw::Send(w) => (&**w as *const raw::ibv_send_wr).cast_mut().cast(),
            Raw::Recv(w) => (&**w as *const raw::ibv_recv_wr).cast_mut().cast(),
        }
    }
    fn set_next(&mut self, next: *mut c_void) {
        match self {
            Raw::Send(w) => w.next = next,
            Raw::Recv(w) => w.next = next,
        }
    }
}

pub(crate) fn post_send(
    pending: &Pending,
    wrs: Vec<SendWr>,
    call: impl FnOnce(*mut c_void, *mut *mut c_void) -> io::Result<()>,
) -> Result<(), PostError<SendWr>> {
    post(
        pending,
        wrs,
        |w| &w.bufs,
        |w, token, sges| Ok(Raw::Send(Box::new(w.raw(token, sges)?))),
        InFlight::Send,
        |f| match f {
            InFlight::Send(w) => w,
            InFlight::Recv(_) => unreachable!("a send queue holds sends"),
        },
        call,
    )
}

pub(crate) fn post_recv(
    pending: &Pending,
    wrs: Vec<RecvWr>,
    call: impl FnOnce(*mut c_void, *mut *mut c_void) -> io::Result<()>,
) -> Result<(), PostError<RecvWr>> {
    post(
        pending,
        wrs,
        |w| &w.bufs,
        |w, token, sges| {
            Ok(Raw::Recv(Box::new(raw::ibv_recv_wr {
                wr_id: token,
                next: std::ptr::null_mut(),
                sg_list: sges.cast(),
                num_sge: w.bufs.len() as i32,
            })))
        },
        InFlight::Recv,
        |f| match f {
            InFlight::Recv(w) => w,
            InFlight::Send(_) => unreachable!("a receive queue holds receives"),
        },
        call,
    )
}

/// A completion's status (`enum ibv_wc_status`); its text is libibverbs'
/// `ibv_wc_status_str`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct WcStatus(pub u32);

impl WcStatus {
    pub const SUCCESS: WcStatus = WcStatus(raw::IBV_WC_SUCCESS as u32);

    pub fn is_success(self) -> bool {
        self == WcStatus::SUCCESS
    }
}

impl fmt::Display for WcStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // SAFETY: ibv_wc_status_str takes any value ("unknown" beyond the enum).
        f.write_str(&unsafe { raw::ibv_wc_status_str(self.0) })
    }
}

impl fmt::Debug for WcStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "WcStatus({}: {self})", self.0)
    }
}

/// What a completion completed (`enum ibv_wc_opcode`; undefined in a
/// completion in error).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WcOpcode {
    Send,
    RdmaWrite,
    RdmaRead,
    CompareSwap,
    FetchAdd,
    Recv,
    RecvRdmaWithImm,
    Other(u32),
}

impl From<u32> for WcOpcode {
    fn from(v: u32) -> WcOpcode {
        match v as i32 {
            raw::IBV_WC_SEND => WcOpcode::Send,
            raw::IBV_WC_RDMA_WRITE => WcOpcode::RdmaWrite,
            raw::IBV_WC_RDMA_READ => WcOpcode::RdmaRead,
            raw::IBV_WC_COMP_SWAP => WcOpcode::CompareSwap,
            raw::IBV_WC_FETCH_ADD => WcOpcode::FetchAdd,
            raw::IBV_WC_RECV => WcOpcode::Recv,
            raw::IBV_WC_RECV_RDMA_WITH_IMM => WcOpcode::RecvRdmaWithImm,
            _ => WcOpcode::Other(v),
        }
    }
}

/// A work completion: its request's `wr_id` and buffers, and what the
/// provider said of it (every field of `struct ibv_wc`: [`raw`](Self::raw)).
pub struct Completion {
    wc: raw::ibv_wc,
    bufs: Vec<Buf>,
}

impl Completion {
    /// A completion polled: its token replaced by its request's wr_id, its
    /// buffers handed back (none for a request this crate did not post).
    pub(crate) fn new(mut wc: raw::ibv_wc, request: Option<InFlight>) -> Completion {
        let bufs = match request {
            Some(r) => {
                let (wr_id, bufs) = r.into_parts();
                wc.wr_id = wr_id;
                bufs
            }
            None => Vec::new(),
        };
        Completion { wc, bufs }
    }

    /// Its request's `wr_id`.
    pub fn wr_id(&self) -> u64 {
        self.wc.wr_id
    }

    pub fn status(&self) -> WcStatus {
        WcStatus(self.wc.status)
    }

    pub fn opcode(&self) -> WcOpcode {
        WcOpcode::from(self.wc.opcode)
    }

    /// The bytes received (or, on rxe, sent).
    pub fn byte_len(&self) -> u32 {
        self.wc.byte_len
    }

    /// The immediate data, in host order, if it came with some
    /// (`IBV_WC_WITH_IMM`).
    pub fn imm_data(&self) -> Option<u32> {
        (self.wc.wc_flags & raw::IBV_WC_WITH_IMM as u32 != 0)
            .then(|| u32::from_be(self.wc.imm_data))
    }

    /// `IBV_WC_*` flags: `IBV_WC_GRH`, `IBV_WC_WITH_IMM`, ...
    pub fn wc_flags(&self) -> u32 {
        self.wc.wc_flags
    }

    /// The local QP's number.
    pub fn qp_num(&self) -> u32 {
        self.wc.qp_num
    }

    /// The C struct, every field as the provider wrote it (`imm_data` in
    /// network order) but `wr_id`, its request's.
    pub fn raw(&self) -> &raw::ibv_wc {
        &self.wc
    }

    /// Its request's buffers, back from the card.
    pub fn bufs(&self) -> &[Buf] {
        &self.bufs
    }

    /// Its request's buffers, the program's again.
    pub fn into_bufs(self) -> Vec<Buf> {
        self.bufs
    }

    /// Itself if it succeeded, else an error naming its status.
    pub fn ok(self) -> io::Result<Completion> {
        if self.status().is_success() {
            return Ok(self);
        }
        Err(io::Error::other(format!(
            "work completion wr_id {:#x}: {} (status {}, vendor error {:#x})",
            self.wc.wr_id,
            self.status(),
            self.wc.status,
            self.wc.vendor_err
        )))
    }
}

impl fmt::Debug for Completion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Completion")
            .field("wc", &self.wc)
            .field("bufs", &self.bufs)
            .finish()
    }
}
