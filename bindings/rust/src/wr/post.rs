//! The queues' record of the requests posted (by token, with their
//! buffers) and the posts themselves.

use std::collections::HashMap;
use std::ffi::c_void;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use rdmaverbs_sys as raw;

use crate::errors::PostError;
use crate::mr::Buf;
use crate::wr::{RecvWr, SendWr};

/// A work request waiting for its completion, with its buffers.
pub(crate) enum InFlight {
    Send(SendWr),
    Recv(RecvWr),
}

impl InFlight {
    pub(crate) fn into_parts(self) -> (u64, Vec<Buf>) {
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
