//! The waits as futures, on tokio (feature `tokio`): `AsyncFd` on the
//! event channel's and the completion channel's descriptors, which are
//! non-blocking; a wait never blocks the runtime's thread, and each is
//! bounded, as its blocking form is.

use std::future::Future;
use std::io;
use std::ops::Deref;
use std::pin::Pin;
use std::task::Poll;
use std::time::Duration;

use tokio::io::unix::AsyncFd;
use tokio::io::Interest;

use crate::channel::{expected, CmEvent, CompChannel, CqEvent, EventChannel};
use crate::cq::{Completion, Cq};
use crate::errors::Life;
use crate::id::AsRawCmId;
use crate::id::CmEventKind;
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

    /// The next event, waiting `timeout` at most (`ETIMEDOUT`); a close of
    /// the channel, from any task or thread, ends it at once
    /// ([`Closed`](crate::Closed)).
    pub async fn next_event(&self, timeout: Duration) -> io::Result<CmEvent> {
        self.next_event_of(&self.get_ref().inner.life, timeout)
            .await
    }

    async fn next_event_of(&self, life: &Life, timeout: Duration) -> io::Result<CmEvent> {
        let wait = async {
            loop {
                let mut ready = self.fd.readable().await?;
                match ready.get_inner().try_next_event()? {
                    Some(ev) => return Ok(ev),
                    None => ready.clear_ready(),
                }
            }
        };
        let wait = until_closed(life, "rdma_get_cm_event", wait);
        tokio::time::timeout(timeout, wait)
            .await
            .unwrap_or_else(|_| Err(timed_out()))
    }

    /// [`EventChannel::expect`], awaited; a close of the channel or of `id`
    /// ends it at once ([`Closed`](crate::Closed)).
    pub async fn expect(
        &self,
        kind: CmEventKind,
        id: &impl AsRawCmId,
        timeout: Duration,
    ) -> io::Result<CmEvent> {
        let life = id.life_ref().map(|l| l.0);
        let life = life.as_deref().unwrap_or(&self.get_ref().inner.life);
        expected(self.next_event_of(life, timeout).await?, kind, id)
    }

    fn get_ref(&self) -> &EventChannel {
        self.fd.get_ref()
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
    /// A close of the channel (or of the id of its context) ends it at once
    /// ([`Closed`](crate::Closed)).
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
        let wait = until_closed(&self.fd.get_ref().inner.life, "ibv_get_cq_event", wait);
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
    /// [`AsyncCompChannel::get_event`] instead. A close of the CQ, or of
    /// what it was made on, from any task or thread, ends it at once
    /// ([`Closed`](crate::Closed)).
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
                let pause = async {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                    Ok(())
                };
                until_closed(&self.inner.life, "ibv_poll_cq", pause).await?;
            }
            out.extend(got);
        }
        Ok(())
    }
}

/// `wait`, ended at once by a close of `life` (or of what it depends on):
/// its [`Closed`](crate::Closed) error then.
async fn until_closed<T>(
    life: &Life,
    function: &'static str,
    wait: impl Future<Output = io::Result<T>>,
) -> io::Result<T> {
    let all = life.all();
    let mut closes: Vec<Pin<Box<tokio::sync::futures::Notified<'_>>>> =
        all.iter().map(|l| Box::pin(l.notify.notified())).collect();
    for c in closes.iter_mut() {
        c.as_mut().enable(); // a close from now on wakes it
    }
    life.check(function)?;
    let mut wait = std::pin::pin!(wait);
    std::future::poll_fn(|cx| {
        if closes.iter_mut().any(|c| c.as_mut().poll(cx).is_ready()) {
            return Poll::Ready(Err(life.error(function)));
        }
        wait.as_mut().poll(cx)
    })
    .await
}
