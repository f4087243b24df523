//! Shared receive queues.

use std::ffi::c_void;
use std::sync::Arc;

use rdmaverbs_sys as raw;

use crate::errors::PostError;
use crate::pd::PdInner;
use crate::wr::post::{self, Pending};
use crate::wr::RecvWr;

pub(crate) struct SrqInner {
    pub(crate) srq: *mut c_void,
    pub(crate) owned: bool,
    pub(crate) pending: Arc<Pending>,
    pub(crate) _pd: Option<Arc<PdInner>>,
}

// SAFETY: libibverbs' SRQ calls are thread-safe.
unsafe impl Send for SrqInner {}
// SAFETY: as Send.
unsafe impl Sync for SrqInner {}

impl Drop for SrqInner {
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: our SRQ; every QP on it is gone (they hold it). Its
            // receives' buffers are freed after this, with `pending`.
            let _ = unsafe { raw::ibv_destroy_srq(self.srq) };
        } else {
            // Not ours to destroy: the card may still write what is posted.
            self.pending.leak();
        }
    }
}

/// A shared receive queue: receives posted here are consumed by every QP
/// made on it.
#[derive(Clone)]
pub struct Srq {
    pub(crate) inner: Arc<SrqInner>,
}

impl Srq {
    /// An SRQ made elsewhere, which this one never destroys; buffers still
    /// posted on it when the last clone goes are leaked, never freed.
    ///
    /// # Safety
    /// `srq` is a `struct ibv_srq *` that outlives this Srq and every QP
    /// made with it here.
    pub unsafe fn from_raw(srq: *mut c_void) -> Srq {
        Srq {
            inner: Arc::new(SrqInner {
                srq,
                owned: false,
                pending: Arc::new(Pending::default()),
                _pd: None,
            }),
        }
    }

    /// Posts receives, in one `ibv_post_srq_recv` of a list: each buffer is
    /// the SRQ's until its completion hands it back.
    pub fn post_recv(
        &self,
        wrs: impl IntoIterator<Item = RecvWr>,
    ) -> Result<(), PostError<RecvWr>> {
        let srq = self.inner.srq;
        post::post_recv(
            &self.inner.pending,
            wrs.into_iter().collect(),
            |first, bad| {
                // SAFETY: our SRQ; the list and its SGEs live across the call.
                unsafe { raw::ibv_post_srq_recv(srq, first.cast(), bad) }.map(drop)
            },
        )
    }

    /// How many receives are posted and not completed.
    pub fn posted(&self) -> usize {
        self.inner.pending.len()
    }

    /// The `struct ibv_srq *`, for the raw layer.
    pub fn as_ptr(&self) -> *mut c_void {
        self.inner.srq
    }
}
