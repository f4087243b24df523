//! What an export returns, as the observer shows it ([`Returned`], sealed:
//! every kind is here): `-1` or a count with `errno` (`c_int`), an errno
//! value ([`Status`]), an address or an object (NULL with `errno`), a value
//! read (never a failure), nothing.

use core::ffi::c_int;

use rdmaverbs_abi::verbs::*;

use super::Returned;
use super::shown::Shown;
use crate::trace::line::Line;

/// An errno value returned (0 for success), as most verbs of
/// `<infiniband/verbs.h>` return it; `errno` is not set.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(transparent)]
pub struct Status(pub c_int);

impl Returned for Status {
    fn failed(self) -> bool {
        self.0 != 0
    }
    fn value(self) -> isize {
        self.0 as isize
    }
    fn sets_errno(self) -> bool {
        false
    }
}

impl Shown for Status {
    fn show(self, line: &mut Line) {
        line.dec(b" ret=", self.0.into());
    }
}

impl Returned for c_int {
    #[inline(always)]
    fn failed(self) -> bool {
        self < 0
    }
    fn value(self) -> isize {
        self as isize
    }
}

impl Shown for c_int {
    fn show(self, line: &mut Line) {
        line.dec(b" ret=", self.into());
    }
}

impl Returned for *mut libc::sockaddr {
    #[inline(always)]
    fn failed(self) -> bool {
        self.is_null()
    }
    fn value(self) -> isize {
        self as isize
    }
}

impl Shown for *mut libc::sockaddr {
    fn show(self, line: &mut Line) {
        if self.is_null() {
            line.push(b" ret=NULL");
        } else {
            line.hex(b" ret=", self as usize as u64);
        }
    }
}

impl Returned for *mut ibv_mr {
    #[inline(always)]
    fn failed(self) -> bool {
        self.is_null()
    }
    fn value(self) -> isize {
        self as isize
    }
}

impl Shown for *mut ibv_mr {
    fn show(self, line: &mut Line) {
        if self.is_null() {
            line.push(b" ret=NULL");
        } else {
            // SAFETY: the registration just returned this MR.
            let (lkey, rkey) = unsafe { ((*self).lkey, (*self).rkey) };
            line.hex(b" ret=", self as usize as u64);
            line.hex(b" lkey=", lkey.into());
            line.hex(b" rkey=", rkey.into());
        }
    }
}

/// A value read or computed: never a failure.
macro_rules! values {
    ($($t:ty),*) => {
        $(
            impl Returned for $t {
                fn failed(self) -> bool {
                    false
                }
                fn value(self) -> isize {
                    self as isize
                }
            }

            impl Shown for $t {
                fn show(self, line: &mut Line) {
                    line.hex(b" ret=", self as u64);
                }
            }
        )*
    };
}
values!(u8, u16, u32, u64);

/// `ssize_t`: a count, or a negative errno value.
impl Returned for isize {
    fn failed(self) -> bool {
        self < 0
    }
    fn value(self) -> isize {
        self
    }
    fn sets_errno(self) -> bool {
        false
    }
}

impl Shown for isize {
    fn show(self, line: &mut Line) {
        line.dec(b" ret=", self as i64);
    }
}

/// Nothing returned (a `void` function).
impl Returned for () {
    fn failed(self) -> bool {
        false
    }
    fn value(self) -> isize {
        0
    }
    /// A `void` call refused for a NULL object sets no `errno`.
    fn sets_errno(self) -> bool {
        false
    }
}

impl Shown for () {
    fn show(self, _: &mut Line) {}
}

/// An object made (NULL, with `errno`, when it could not be).
macro_rules! objects {
    ($($t:ident),*) => {
        $(
            impl Returned for *mut $t {
                fn failed(self) -> bool {
                    self.is_null()
                }
                fn value(self) -> isize {
                    self as isize
                }
            }

            impl Shown for *mut $t {
                fn show(self, line: &mut Line) {
                    if self.is_null() {
                        line.push(b" ret=NULL");
                    } else {
                        line.hex(b" ret=", self as usize as u64);
                    }
                }
            }
        )*
    };
}
rdmaverbs_abi::object_results!(objects);
