//! The waits as futures, on tokio (feature `tokio`): `AsyncFd` on the
//! event channel's and the completion channel's descriptors, which are
//! non-blocking; a wait never blocks the runtime's thread, and each is
//! bounded, as its blocking form is.

use std::io;
use std::ops::Deref;
use std::time::Duration;

use tokio::io::unix::AsyncFd;
use tokio::io::Interest;

use crate::channel::{expected, CmEvent, CmEventKind, CompChannel, CqEvent, EventChannel};
use crate::cq::{Completion, Cq};
use crate::id::AsRawCmId;
use crate::os::{self, timed_out};

/// An [`EventChannel`] registered with tokio's reactor (make it inside a
/// runtime); derefs to the channel (`create_id`, ...).
pub struct AsyncEventChannel {
    fd: AsyncFd<EventChannel>,
}

impl AsyncEventChannel {
    pub fn new(channel: EventChannel) -> io::Result<AsyncEventChannel> {
        // SAFETY: the channel's descriptor stays open, the same one, as long
        // as the channel (which the AsyncFd owns) lives.
        let fd = unsafe { AsyncFd::register_with_interest(channel, Interest::READABLE) };
        Ok(AsyncEventChannel {
            fd: fd.map_err(|e| e.into_parts().1)?,
        })
    }

    /// The next event, waiting `timeout` at most (`ETIMEDOUT`).
    pub async fn next_event(&self, timeout: Duration) -> io::Result<CmEvent> {
        let wait = async {
            loop {
                let mut ready = self.fd.readable().await?;
                match ready.get_inner().try_next_event()? {
                    Some(ev) => return Ok(ev),
                    None => ready.clear_ready(),
                }
            }
        };
        tokio::time::timeout(timeout, wait)
            .await
            .unwrap_or_else(|_| Err(timed_out()))
    }

    /// [`EventChannel::expect`], awaited.
    pub async fn expect(
        &self,
        kind: CmEventKind,
        id: &impl AsRawCmId,
        timeout: Duration,
    ) -> io::Result<CmEvent> {
        expected(self.next_event(timeout).await?, kind, id)
    }
}

impl Deref for AsyncEventChannel {
    type Target = EventChannel;
    fn deref(&self) -> &EventChannel {
        self.fd.get_ref()
    }
}

/// A [`CompChannel`] registered with tokio's reactor; derefs to the channel
/// (CQs are made on it).
pub struct AsyncCompChannel {
    fd: AsyncFd<CompChannel>,
}

impl AsyncCompChannel {
    pub fn new(channel: CompChannel) -> io::Result<AsyncCompChannel> {
        // SAFETY: as AsyncEventChannel::new's.
        let fd = unsafe { AsyncFd::register_with_interest(channel, Interest::READABLE) };
        Ok(AsyncCompChannel {
            fd: fd.map_err(|e| e.into_parts().1)?,
        })
    }

    /// The next event, waiting `timeout` at most (`ETIMEDOUT`); acknowledged.
    pub async fn get_event(&self, timeout: Duration) -> io::Result<CqEvent> {
        let wait = async {
            loop {
                let mut ready = self.fd.readable().await?;
                match ready.get_inner().try_get_event()? {
                    Some(ev) => return Ok(ev),
                    None => ready.clear_ready(),
                }
            }
        };
        tokio::time::timeout(timeout, wait)
            .await
            .unwrap_or_else(|_| Err(timed_out()))
    }
}

impl Deref for AsyncCompChannel {
    type Target = CompChannel;
    fn deref(&self) -> &CompChannel {
        self.fd.get_ref()
    }
}

impl Cq {
    /// [`Cq::wait`] as a future: polls, and after an empty poll yields a
    /// millisecond to the runtime (`tokio::time::sleep`), for `timeout` at
    /// most. For a CQ on a completion channel, arm it and await
    /// [`AsyncCompChannel::get_event`] instead.
    pub async fn wait_async(&self, n: usize, timeout: Duration) -> io::Result<Vec<Completion>> {
        let mut out = Vec::with_capacity(n);
        self.wait_into_async(&mut out, n, timeout).await?;
        Ok(out)
    }

    /// [`Cq::wait_into`] as a future.
    pub async fn wait_into_async(
        &self,
        out: &mut Vec<Completion>,
        n: usize,
        timeout: Duration,
    ) -> io::Result<()> {
        let deadline = tokio::time::Instant::from_std(os::deadline(timeout));
        let want = out.len() + n;
        while out.len() < want {
            let got = self.poll(want - out.len())?;
            if got.is_empty() {
                if tokio::time::Instant::now() >= deadline {
                    return Err(timed_out());
                }
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            out.extend(got);
        }
        Ok(())
    }
}
