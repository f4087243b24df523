//! A close ends every wait on a CQ at once, from another thread or task,
//! with a time limit and without, for two waiters on one CQ: the recorder's
//! CQ whose polls find nothing (bindings/recorder/, RDMAVERBS_RECORDER),
//! which this crate never destroys (`from_raw`). Every later poll fails the
//! same way.

use std::ffi::{c_void, CString};
use std::io;
use std::time::{Duration, Instant};

use rdmaverbs::{Closed, Cq};

fn empty_cq() -> Cq {
    let path = CString::new(std::env::var("RDMAVERBS_RECORDER").unwrap()).unwrap();
    // SAFETY: dlopen and dlsym of the recorder, whose recorder_empty_cq
    // returns a CQ (of a context of its own) that lives as long as the
    // process; this crate never destroys it.
    unsafe {
        let lib = libc::dlopen(path.as_ptr(), libc::RTLD_NOW);
        assert!(!lib.is_null(), "RDMAVERBS_RECORDER does not load");
        let f = libc::dlsym(lib, c"recorder_empty_cq".as_ptr());
        assert!(!f.is_null(), "no recorder_empty_cq");
        let f = std::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> *mut c_void>(f);
        Cq::from_raw(f())
    }
}

/// What a close ends a wait with: Closed, of the CQ, EBADF, "closed".
fn closed(e: &io::Error) -> Option<(&'static str, &'static str, i32)> {
    let c = e.get_ref()?.downcast_ref::<Closed>()?;
    e.to_string()
        .contains("closed")
        .then(|| (c.object(), c.function(), c.errno()))
}

const WANT: Option<(&str, &str, i32)> = Some(("Cq", "ibv_poll_cq", libc::EBADF));

#[test]
fn a_close_ends_two_blocking_waits_on_a_cq() {
    let cq = empty_cq();
    let waiters: Vec<_> = [Duration::MAX, Duration::from_secs(10)]
        .into_iter()
        .map(|t| {
            let cq = cq.clone(); // a clone of the CQ, as another thread holds it
            std::thread::spawn(move || cq.wait(1, t).map(|v| v.len()))
        })
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    assert!(waiters.iter().all(|w| !w.is_finished()), "the waits wait");
    let at = Instant::now();
    cq.close();
    for w in waiters {
        let e = w.join().unwrap().unwrap_err();
        assert_eq!(closed(&e), WANT, "{e}");
    }
    assert!(at.elapsed() < Duration::from_secs(2), "{:?}", at.elapsed());
    assert!(cq.is_closed());
    let e = cq.poll(1).unwrap_err();
    assert_eq!(closed(&e), WANT, "a poll after the close: {e}");
}

#[cfg(feature = "tokio")]
#[test]
fn a_close_ends_two_async_waits_on_a_cq() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let cq = empty_cq();
        let waiters: Vec<_> = [Duration::MAX, Duration::from_secs(10)]
            .into_iter()
            .map(|t| {
                let cq = cq.clone();
                tokio::spawn(async move { cq.wait_async(1, t).await.map(|v| v.len()) })
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(waiters.iter().all(|w| !w.is_finished()), "the waits wait");
        let at = Instant::now();
        // closed from another thread, as a task of another runtime would
        let closer = cq.clone();
        std::thread::spawn(move || closer.close()).join().unwrap();
        for w in waiters {
            let e = w.await.unwrap().unwrap_err();
            assert_eq!(closed(&e), WANT, "{e}");
        }
        assert!(at.elapsed() < Duration::from_secs(2), "{:?}", at.elapsed());
    });
}
