//! Completion queues, and the completions they give.

use std::ffi::{c_int, c_void};
use std::fmt;
use std::io;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use rdmaverbs_sys as raw;

use crate::channel::CompChannelInner;
use crate::errors::Life;
use crate::mr::Buf;
use crate::os;
use crate::pd::Context;
use crate::wr::post::{InFlight, Pending};

pub(crate) struct CqInner {
    pub(crate) cq: *mut c_void,
    pub(crate) owned: bool,
    pub(crate) life: Arc<Life>,
    /// The queues whose completions land here (a QP's send or receive
    /// queue, an SRQ), to hand each request's buffers back.
    pub(crate) sources: Mutex<Vec<Weak<Pending>>>,
    pub(crate) _channel: Option<Arc<CompChannelInner>>,
    pub(crate) _ctx: Option<Context>,
}

// SAFETY: libibverbs' CQ calls are thread-safe (the provider locks).
unsafe impl Send for CqInner {}
// SAFETY: as Send.
unsafe impl Sync for CqInner {}

impl Drop for CqInner {
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: our CQ; every QP on it is gone (they hold it), every
            // event acknowledged (get_event does at once).
            let _ = unsafe { raw::ibv_destroy_cq(self.cq) };
        }
    }
}

/// A completion queue: [`poll`](Self::poll) (one `ibv_poll_cq` of several)
/// and [`wait`](Self::wait) (polls until there are enough, bounded) give
/// [`Completion`]s, each with its request's buffers.
#[derive(Clone)]
pub struct Cq {
    pub(crate) inner: Arc<CqInner>,
}

impl Cq {
    /// A CQ made elsewhere (the raw layer, another library), which this
    /// one never destroys.
    ///
    /// # Safety
    /// `cq` is a `struct ibv_cq *` that outlives this Cq and every QP made
    /// with it here.
    pub unsafe fn from_raw(cq: *mut c_void) -> Cq {
        Cq {
            inner: Arc::new(CqInner {
                cq,
                owned: false,
                life: Life::new("Cq", vec![]),
                sources: Mutex::new(Vec::new()),
                _channel: None,
                _ctx: None,
            }),
        }
    }

    /// The `struct ibv_cq *`, for the raw layer.
    pub fn as_ptr(&self) -> *mut c_void {
        self.inner.cq
    }

    pub(crate) fn add_source(&self, pending: &Arc<Pending>) {
        let mut s = self.inner.sources.lock().unwrap_or_else(|e| e.into_inner());
        s.retain(|w| w.strong_count() > 0);
        s.push(Arc::downgrade(pending));
    }

    /// Closes it for every clone: each wait on it ([`wait`](Self::wait),
    /// [`wait_async`](Self::wait_async), in any thread or task) ends at
    /// once, as does every later poll: [`Closed`](crate::Closed). A close of
    /// what it was made on (the endpoint or id whose context it is on, its
    /// completion channel) does the same. libibverbs' CQ is destroyed when
    /// the last clone and the QPs on it go, as before.
    pub fn close(&self) {
        self.inner.life.close();
    }

    /// Whether it, or what it was made on, was closed.
    pub fn is_closed(&self) -> bool {
        self.inner.life.is_closed()
    }

    /// Arms it (`ibv_req_notify_cq`): its next completion (`solicited_only`:
    /// its next solicited one) makes an event on its channel.
    pub fn req_notify(&self, solicited_only: bool) -> io::Result<()> {
        // SAFETY: our CQ.
        unsafe { raw::ibv_req_notify_cq(self.inner.cq, solicited_only as c_int) }.map(drop)
    }

    /// Up to `max` completions, in one `ibv_poll_cq`; none if there are
    /// none yet.
    pub fn poll(&self, max: usize) -> io::Result<Vec<Completion>> {
        self.inner.life.check("ibv_poll_cq")?;
        // Up to 16 on the stack: a busy poll that finds nothing allocates nothing.
        let (mut stack, mut heap) = ([raw::ibv_wc::default(); 16], Vec::new());
        let wc: &mut [raw::ibv_wc] = if max <= stack.len() {
            &mut stack[..max]
        } else {
            heap.resize(max, raw::ibv_wc::default());
            &mut heap
        };
        let n = c_int::try_from(max).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        // SAFETY: our CQ; wc has max entries.
        let n = unsafe { raw::ibv_poll_cq(self.inner.cq, n, wc) }? as usize;
        if n == 0 {
            return Ok(Vec::new());
        }
        let sources: Vec<Arc<Pending>> = {
            let s = self.inner.sources.lock().unwrap_or_else(|e| e.into_inner());
            s.iter().filter_map(Weak::upgrade).collect()
        };
        Ok(wc[..n]
            .iter()
            .map(|w| Completion::new(*w, sources.iter().find_map(|p| p.take(w.wr_id))))
            .collect())
    }

    /// Polls until `n` completions (up to `n` at a time, a millisecond's
    /// sleep after an empty poll), for `timeout` at most: `ETIMEDOUT` then,
    /// and the completions polled so far (with their buffers) are dropped;
    /// [`wait_into`](Self::wait_into) keeps them.
    pub fn wait(&self, n: usize, timeout: Duration) -> io::Result<Vec<Completion>> {
        let mut out = Vec::with_capacity(n);
        self.wait_into(&mut out, n, timeout)?;
        Ok(out)
    }

    /// As [`wait`](Self::wait), into `out`, which keeps what was polled
    /// when the wait ends in an error.
    pub fn wait_into(
        &self,
        out: &mut Vec<Completion>,
        n: usize,
        timeout: Duration,
    ) -> io::Result<()> {
        let deadline = os::deadline(timeout);
        let want = out.len() + n;
        while out.len() < want {
            let got = self.poll(want - out.len())?;
            if got.is_empty() {
                if Instant::now() >= deadline {
                    return Err(os::timed_out());
                }
                os::pause(&self.inner.life, Duration::from_millis(1), "ibv_poll_cq")?;
            }
            out.extend(got);
        }
        Ok(())
    }
}

impl fmt::Debug for Cq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Cq({:p})", self.inner.cq)
    }
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
