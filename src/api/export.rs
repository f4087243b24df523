//! The shape of every export: the fast path behind the observer's gate
//! ([`observed!`]), and the cold path ([`cold`]) that refuses a NULL
//! argument or runs the body for the observer to record.

use crate::functions::Func;
use crate::observe::{Call, Returned, Scope};

/// The body of every export: runs `$body` at once, unless `$p` (the pointer
/// argument that must not be NULL: the id, or `rdma_dereg_mr`'s MR) is NULL
/// or calls are watched, which [`crate::observe::gate`] tells with one
/// compare; then [`cold`] takes the call. `$call` describes it to the
/// observer. The body may assume `$p` is not NULL. With `-` for `$p`
/// (`rdma_seterrno`, which takes no pointer) only watching takes the cold
/// path.
///
/// A macro rather than a function taking closures, so that the fast path is
/// the plain body: the closures (and their captured arguments) are built
/// only on the cold branch.
macro_rules! observed {
    ($f:ident, -, $call:expr, $body:expr) => {{
        if $crate::observe::watching() {
            return $crate::api::export::cold(
                $crate::functions::Func::$f,
                false,
                move || $call,
                move || $body,
            );
        }
        $body
    }};
    ($f:ident, $p:expr, $call:expr, $body:expr) => {{
        let p = $p;
        if $crate::observe::gate(p) {
            let null = p.is_null();
            return $crate::api::export::cold(
                $crate::functions::Func::$f,
                null,
                move || $call,
                move || $body,
            );
        }
        // The gate let only a non-NULL `p` through.
        $body
    }};
}
pub(crate) use observed;

/// What an export returns on input it refuses: -1 or NULL, with
/// `errno = EINVAL`.
/// (Implemented beside the error convention, in `errno.rs`.)
pub(crate) trait Refused: Returned {
    /// -1 or NULL, with `errno = EINVAL`.
    fn refused() -> Self;
}

/// The cold path of an export `f`: refuses a NULL argument (`null`), or runs
/// the export's `body`; when calls are watched, records it with the
/// observer, `call` describing it. Reached also for a NULL argument when
/// nothing is watched: then it only refuses it.
#[cold]
#[inline(never)]
pub(crate) fn cold<R: Refused>(
    f: Func,
    null: bool,
    call: impl FnOnce() -> Call,
    body: impl FnOnce() -> R,
) -> R {
    let run = move || if null { R::refused() } else { body() };
    if !crate::observe::watching() {
        return run();
    }
    let scope = Scope::enter();
    let ret = run();
    scope.record(f, call(), ret);
    ret
}
