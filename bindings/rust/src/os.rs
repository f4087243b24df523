//! The operating system's pieces: the channels' file descriptors (made
//! non-blocking, waited on with poll(2) until a deadline) and socket
//! addresses laid out for C.

use std::ffi::c_void;
use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};
use std::os::fd::RawFd;
use std::time::{Duration, Instant};

use rdmaverbs_sys as raw;

use crate::errors::Life;

/// Sets O_NONBLOCK on a channel's descriptor: its get call then fails with
/// EAGAIN rather than block, and tokio's AsyncFd can watch it.
pub(crate) fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor the caller owns; no pointer.
    unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        if flags < 0 || libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The error of a wait that ran out: `ETIMEDOUT` (`ErrorKind::TimedOut`).
pub(crate) fn timed_out() -> io::Error {
    io::Error::from_raw_os_error(libc::ETIMEDOUT)
}

/// The deadline of a wait of `timeout` from now.
pub(crate) fn deadline(timeout: Duration) -> Instant {
    Instant::now()
        .checked_add(timeout)
        .unwrap_or_else(|| Instant::now() + Duration::from_secs(86400 * 365))
}

/// Waits until fd is readable, or the deadline: `ETIMEDOUT` then; or until
/// `life` (the waited object's, or an object's it depends on) is closed:
/// its [`Closed`](crate::Closed) error then.
pub(crate) fn readable(
    fd: RawFd,
    life: &Life,
    deadline: Instant,
    function: &'static str,
) -> io::Result<()> {
    let wake = life.wake_fds();
    loop {
        life.check(function)?;
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(timed_out());
        }
        // whole milliseconds, rounded up (a wait never ends early)
        let ms = left.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32;
        let mut p: Vec<libc::pollfd> = std::iter::once(fd)
            .chain(wake.iter().copied())
            .map(|fd| libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        // SAFETY: p.len() pollfds, alive across the call.
        match unsafe { libc::poll(p.as_mut_ptr(), p.len() as libc::nfds_t, ms) } {
            n if n > 0 && p[0].revents != 0 => return life.check(function),
            n if n > 0 => return Err(life.error(function)),
            0 => continue,
            _ => {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
}

/// A pause of `d` between two polls of a CQ, which a close of `life` ends
/// at once (its error then).
pub(crate) fn pause(life: &Life, d: Duration, function: &'static str) -> io::Result<()> {
    let mut p: Vec<libc::pollfd> = life
        .wake_fds()
        .into_iter()
        .map(|fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let ms = d.as_millis().min(i32::MAX as u128) as i32;
    // SAFETY: p.len() pollfds, alive across the call.
    unsafe { libc::poll(p.as_mut_ptr(), p.len() as libc::nfds_t, ms) };
    life.check(function)
}

/// Whether an error is the EAGAIN of a non-blocking descriptor.
pub(crate) fn would_block(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::WouldBlock
}

/// A `struct sockaddr_in6` (the raw layer declares the IPv4 one only).
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct SockAddrIn6 {
    family: u16,
    port: u16,
    flowinfo: u32,
    addr: [u8; 16],
    scope_id: u32,
}

/// A socket address laid out for C.
pub(crate) enum SockAddr {
    V4(raw::sockaddr_in),
    V6(SockAddrIn6),
}

impl From<SocketAddr> for SockAddr {
    fn from(a: SocketAddr) -> SockAddr {
        match a {
            SocketAddr::V4(a) => SockAddr::V4(raw::sockaddr_in {
                sin_family: raw::AF_INET as u16,
                sin_port: a.port().to_be(),
                sin_addr: u32::from_ne_bytes(a.ip().octets()),
                sin_zero: [0; 8],
            }),
            SocketAddr::V6(a) => SockAddr::V6(SockAddrIn6 {
                family: raw::AF_INET6 as u16,
                port: a.port().to_be(),
                flowinfo: a.flowinfo().to_be(),
                addr: a.ip().octets(),
                scope_id: a.scope_id(),
            }),
        }
    }
}

impl SockAddr {
    pub(crate) fn as_mut_ptr(&mut self) -> *mut c_void {
        match self {
            SockAddr::V4(a) => (a as *mut raw::sockaddr_in).cast(),
            SockAddr::V6(a) => (a as *mut SockAddrIn6).cast(),
        }
    }
}

/// The `SocketAddr` of a `struct sockaddr *` of C's.
///
/// # Safety
/// `sa` points to a sockaddr of its family's size.
pub(crate) unsafe fn socket_addr(sa: *mut c_void) -> io::Result<SocketAddr> {
    // SAFETY: every sockaddr begins with its family.
    let family = i32::from(unsafe { *sa.cast::<u16>() });
    if family == raw::AF_INET {
        // SAFETY: an AF_INET address is a sockaddr_in.
        let a = unsafe { *sa.cast::<raw::sockaddr_in>() };
        let ip = Ipv4Addr::from(a.sin_addr.to_ne_bytes());
        Ok(SocketAddr::V4(SocketAddrV4::new(
            ip,
            u16::from_be(a.sin_port),
        )))
    } else if family == raw::AF_INET6 {
        // SAFETY: an AF_INET6 address is a sockaddr_in6.
        let a = unsafe { *sa.cast::<SockAddrIn6>() };
        let ip = Ipv6Addr::from(a.addr);
        Ok(SocketAddr::V6(SocketAddrV6::new(
            ip,
            u16::from_be(a.port),
            u32::from_be(a.flowinfo),
            a.scope_id,
        )))
    } else {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!("address family {family}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A wait ends at its deadline with ETIMEDOUT, not before; a readable
    /// descriptor ends it at once.
    #[test]
    fn a_wait_is_bounded() {
        let mut p = [0; 2];
        // SAFETY: an array of two descriptors for pipe(2).
        assert_eq!(unsafe { libc::pipe(p.as_mut_ptr()) }, 0);
        set_nonblocking(p[0]).unwrap();
        let start = Instant::now();
        let life = Life::new("test", vec![]);
        let e = readable(p[0], &life, deadline(Duration::from_millis(50)), "poll").unwrap_err();
        assert_eq!(
            (e.raw_os_error(), e.kind()),
            (Some(libc::ETIMEDOUT), io::ErrorKind::TimedOut)
        );
        assert!(
            start.elapsed() >= Duration::from_millis(50),
            "{:?}",
            start.elapsed()
        );
        // SAFETY: one byte from a live buffer.
        assert_eq!(unsafe { libc::write(p[1], b"x".as_ptr().cast(), 1) }, 1);
        readable(p[0], &life, deadline(Duration::from_secs(5)), "poll").unwrap();
        let mut b = [0u8; 2];
        // SAFETY: reads into b.
        assert_eq!(unsafe { libc::read(p[0], b.as_mut_ptr().cast(), 2) }, 1);
        // non-blocking: nothing more to read is EAGAIN, not a wait
        // SAFETY: as above.
        assert_eq!(unsafe { libc::read(p[0], b.as_mut_ptr().cast(), 2) }, -1);
        assert!(would_block(&io::Error::last_os_error()));
        // SAFETY: our descriptors.
        assert_eq!(unsafe { libc::close(p[0]) + libc::close(p[1]) }, 0);
    }

    /// A close from another thread ends a wait on a descriptor that never
    /// becomes readable at once, with a deadline and without, the close of
    /// what the waited object depends on too: Closed, EBADF, "closed".
    #[test]
    fn a_close_ends_a_wait() {
        let mut p = [0; 2];
        // SAFETY: an array of two descriptors for pipe(2).
        assert_eq!(unsafe { libc::pipe(p.as_mut_ptr()) }, 0);
        let parent = Life::new("EventChannel", vec![]);
        for (timeout, closer) in [
            (Duration::MAX, 0),
            (Duration::from_secs(10), 0),
            (Duration::MAX, 1),
        ] {
            let life = Life::new("Endpoint", vec![parent.clone()]);
            let child = Life::new("Cq", vec![life.clone()]);
            let t = std::thread::spawn({
                let (life, child) = (life.clone(), child.clone());
                move || {
                    let a = readable(p[0], &life, deadline(timeout), "rdma_get_cm_event");
                    let b = pause(&child, Duration::from_secs(10), "ibv_poll_cq");
                    (a, b)
                }
            });
            std::thread::sleep(Duration::from_millis(100));
            let closed = Instant::now();
            if closer == 0 {
                life.close();
            } else {
                parent.close();
            }
            let (a, b) = t.join().unwrap();
            assert!(
                closed.elapsed() < Duration::from_secs(2),
                "{:?}",
                closed.elapsed()
            );
            for (e, f) in [
                (a.unwrap_err(), "rdma_get_cm_event"),
                (b.unwrap_err(), "ibv_poll_cq"),
            ] {
                let c = e
                    .get_ref()
                    .and_then(|e| e.downcast_ref::<crate::Closed>())
                    .copied();
                let want = if closer == 0 {
                    "Endpoint"
                } else {
                    "EventChannel"
                };
                assert_eq!(
                    c.map(|c| (c.object(), c.function(), c.errno())),
                    Some((want, f, libc::EBADF)),
                    "{e}"
                );
                assert!(e.to_string().contains("closed (EBADF"), "{e}");
            }
        }
        // SAFETY: our descriptors.
        assert_eq!(unsafe { libc::close(p[0]) + libc::close(p[1]) }, 0);
    }
}
