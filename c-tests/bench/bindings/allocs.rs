//! Both bench programs' allocation count (rust/ and peer/ include it as
//! `mod allocs`): a counting global allocator, and what the timed part of a
//! run allocated, per round trip (the client prints it: `allocs=`).

/// Counts the heap allocations, passing each call on to System.
struct Counting;
static ALLOCS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
// SAFETY: System's allocator, each call counted and passed on.
unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: std::alloc::Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        unsafe { std::alloc::System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: std::alloc::Layout) {
        unsafe { std::alloc::System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: std::alloc::Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        unsafe { std::alloc::System.realloc(p, l, n) }
    }
}
#[global_allocator]
static COUNTING: Counting = Counting;

fn allocs() -> usize {
    ALLOCS.load(std::sync::atomic::Ordering::Relaxed)
}

/// The count when the timing starts and when it ends.
static TIMED: [std::sync::atomic::AtomicUsize; 2] = [
    std::sync::atomic::AtomicUsize::new(0),
    std::sync::atomic::AtomicUsize::new(0),
];

pub fn mark(i: usize) {
    TIMED[i].store(allocs(), std::sync::atomic::Ordering::Relaxed);
}

/// The allocations of the timed part, per round trip.
pub fn allocs_per(n: usize) -> f64 {
    let [a, b] = &TIMED;
    let d =
        b.load(std::sync::atomic::Ordering::Relaxed) - a.load(std::sync::atomic::Ordering::Relaxed);
    d as f64 / n.max(1) as f64
}
