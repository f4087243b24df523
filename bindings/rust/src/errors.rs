//! The errors of this crate beside `std::io::Error`: a post's
//! ([`PostError`], with the work requests not posted), and a closed
//! object's ([`Closed`]), with what tells an object is closed (its `Life`).

use std::fmt;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

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

/// What a wait or a call returns once the object it is on, or one it
/// depends on, was [closed](crate::Endpoint::close) (through any clone, in
/// any thread or task): an `io::Error` of this (`get_ref()` and
/// `downcast_ref::<Closed>()` find it), shown as
/// `"FUNCTION: OBJECT closed (EBADF)"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Closed {
    object: &'static str,
    function: &'static str,
}

impl Closed {
    /// The object that was closed: `"Endpoint"`, `"Cq"`, ...
    pub fn object(&self) -> &'static str {
        self.object
    }

    /// The C function the wait or call was of.
    pub fn function(&self) -> &'static str {
        self.function
    }

    /// `EBADF`, the errno of a closed object's descriptor.
    pub fn errno(&self) -> i32 {
        libc::EBADF
    }
}

impl fmt::Display for Closed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} closed (EBADF, errno {})",
            self.function,
            self.object,
            libc::EBADF
        )
    }
}

impl std::error::Error for Closed {}

/// Whether an object was closed, and the descriptor that wakes its blocking
/// waits when it is (an eventfd, made readable by [`close`](Self::close));
/// with the lives of the objects it depends on, whose close ends its waits
/// too.
pub(crate) struct Life {
    name: std::sync::Mutex<&'static str>,
    closed: AtomicBool,
    wake: Option<OwnedFd>,
    parents: Vec<Arc<Life>>,
    #[cfg(feature = "tokio")]
    pub(crate) notify: tokio::sync::Notify,
}

impl Life {
    pub(crate) fn new(name: &'static str, parents: Vec<Arc<Life>>) -> Arc<Life> {
        // SAFETY: no pointer; the descriptor is ours if non-negative.
        let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
        Arc::new(Life {
            name: std::sync::Mutex::new(name),
            closed: AtomicBool::new(false),
            // SAFETY: a new descriptor, owned by nothing else.
            wake: (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) }),
            parents,
            #[cfg(feature = "tokio")]
            notify: tokio::sync::Notify::new(),
        })
    }

    fn name(&self) -> &'static str {
        *self.name.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What its errors call it (an id becomes an endpoint).
    pub(crate) fn rename(&self, name: &'static str) {
        *self.name.lock().unwrap_or_else(|e| e.into_inner()) = name;
    }

    /// Closes it: every wait on it or on what depends on it ends.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        if let Some(fd) = &self.wake {
            let one = 1u64;
            // SAFETY: 8 bytes of a live u64 to our eventfd.
            let _ = unsafe { libc::write(fd.as_raw_fd(), (&one as *const u64).cast(), 8) };
        }
        #[cfg(feature = "tokio")]
        self.notify.notify_waiters();
    }

    /// The first of it and its ancestors that is closed.
    fn closed_one(&self) -> Option<&Life> {
        if self.closed.load(Ordering::SeqCst) {
            return Some(self);
        }
        self.parents.iter().find_map(|p| p.closed_one())
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.closed_one().is_some()
    }

    /// `Err(Closed)` if it or an object it depends on is closed.
    pub(crate) fn check(&self, function: &'static str) -> io::Result<()> {
        match self.closed_one() {
            Some(l) => Err(io::Error::other(Closed {
                object: l.name(),
                function,
            })),
            None => Ok(()),
        }
    }

    /// The error of a wait a close ended (this one's, if none is closed yet).
    pub(crate) fn error(&self, function: &'static str) -> io::Error {
        self.check(function).err().unwrap_or_else(|| {
            io::Error::other(Closed {
                object: self.name(),
                function,
            })
        })
    }

    /// It and its ancestors.
    pub(crate) fn all(&self) -> Vec<&Life> {
        let mut out = vec![self];
        for p in &self.parents {
            out.extend(p.all());
        }
        out
    }

    /// The wake descriptors of it and its ancestors.
    pub(crate) fn wake_fds(&self) -> Vec<RawFd> {
        self.all()
            .iter()
            .filter_map(|l| l.wake.as_ref().map(|f| f.as_raw_fd()))
            .collect()
    }
}
