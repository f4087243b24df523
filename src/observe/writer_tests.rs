//! The trace file's pure rules: `%p` expanded, the file size limit.

use super::*;

#[test]
fn percent_p() {
    let mut out = [0u8; PATH_MAX];
    assert!(expand(b"/tmp/t.%p.%%p%x", &mut out));
    let s = CStr::from_bytes_until_nul(&out).unwrap().to_str().unwrap();
    assert_eq!(s, format!("/tmp/t.{}.%p%x", std::process::id()));
    let long = vec![b'a'; PATH_MAX];
    assert!(!expand(&long, &mut out));
}

#[test]
fn file_size_limit() {
    assert!(within(0, 10, 10));
    assert!(within(4096, 0, 4096));
    assert!(!within(1, 10, 10));
    assert!(!within(u64::MAX - 1, 2, u64::MAX - 1));
    // No limit (RLIM_INFINITY is u64::MAX): every write is within it.
    assert!(within(u64::MAX, 1, u64::MAX));
}
