//! The shape of every export: the fast path behind the observer's gate
//! ([`observed!`]), and the cold path ([`cold`]) that refuses a NULL
//! argument or runs the body for the observer to record.

use rdmaverbs_abi::functions::Func;
use rdmaverbs_observe::{Call, Returned, Scope};

/// The body of every export: runs `$body` at once, unless `$p` (the pointer
/// argument that must not be NULL: the id, or `rdma_dereg_mr`'s MR) is NULL
/// or calls are watched, which [`rdmaverbs_observe::gate`] tells with one
/// compare; then [`cold`] takes the call. `$call` describes it to the
/// observer. The body may assume `$p` is not NULL. With `-` for `$p`
/// (`rdma_seterrno`, which takes no pointer) only watching takes the cold
/// path.
///
/// With `status` first, the export returns an errno value (most verbs of
/// `<infiniband/verbs.h>`): the observer sees it as a `Status`.
///
/// A macro rather than a function taking closures, so that the fast path is
/// the plain body: the closures (and their captured arguments) are built
/// only on the cold branch.
macro_rules! observed {
    // The data path's form: the export's arguments named after the
    // function, `F(a, b, ...)`. The cold path is then `ColdArgs::cold` of
    // them, with `$call` and `$body` closures of them that capture nothing:
    // a jump, the arguments still in the registers they came in, so that
    // the fast path needs no stack frame. `null => $r` gives what a NULL
    // `$p` returns instead of `Refused::refused()` (the posts: `*bad_wr`).
    (@null) => { $crate::api::export::Refused::refused() };
    (@null $r:expr) => { ::rdmaverbs_observe::Status($r) };
    (status $f:ident($($a:ident),+), $p:expr, $call:expr, $body:expr $(, null => $r:expr)?) => {{
        if ::rdmaverbs_observe::gate($p) {
            return $crate::api::export::ColdArgs::cold(
                ($($a,)+),
                ::rdmaverbs_abi::functions::Func::$f,
                |($($a,)+)| {
                    let _ = ($($a,)+);
                    $call
                },
                |($($a,)+)| {
                    if $p.is_null() {
                        return observed!(@null $($r)?);
                    }
                    ::rdmaverbs_observe::Status($body)
                },
            )
            .0;
        }
        $body
    }};
    ($f:ident($($a:ident),+), $p:expr, $call:expr, $body:expr) => {{
        if ::rdmaverbs_observe::gate($p) {
            return $crate::api::export::ColdArgs::cold(
                ($($a,)+),
                ::rdmaverbs_abi::functions::Func::$f,
                |($($a,)+)| {
                    let _ = ($($a,)+);
                    $call
                },
                |($($a,)+)| {
                    if $p.is_null() {
                        return $crate::api::export::Refused::refused();
                    }
                    $body
                },
            );
        }
        $body
    }};
    // An errno value returned (`Status` to the observer, `c_int` to C).
    (status $f:ident, $p:expr, $call:expr, $body:expr) => {{
        let p = $p;
        if ::rdmaverbs_observe::gate(p) {
            return $crate::api::export::cold(
                ::rdmaverbs_abi::functions::Func::$f,
                move || $call,
                move || {
                    if p.is_null() {
                        return $crate::api::export::Refused::refused();
                    }
                    ::rdmaverbs_observe::Status($body)
                },
            )
            .0;
        }
        $body
    }};
    ($f:ident, -, $call:expr, $body:expr) => {{
        if ::rdmaverbs_observe::watching() {
            return $crate::api::export::cold(
                ::rdmaverbs_abi::functions::Func::$f,
                move || $call,
                move || $body,
            );
        }
        $body
    }};
    ($f:ident, $p:expr, $call:expr, $body:expr) => {{
        let p = $p;
        if ::rdmaverbs_observe::gate(p) {
            return $crate::api::export::cold(
                ::rdmaverbs_abi::functions::Func::$f,
                move || $call,
                move || {
                    if p.is_null() {
                        return $crate::api::export::Refused::refused();
                    }
                    $body
                },
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
pub(crate) trait Refused {
    /// -1 or NULL, with `errno = EINVAL`.
    fn refused() -> Self;
}

/// The cold path of an export `f`: runs the export's `body` (which refuses
/// a NULL argument); when calls are watched, records it with the observer,
/// `call` describing it. Reached also for a NULL argument when nothing is
/// watched: then the body only refuses it.
#[cold]
#[inline(never)]
pub(crate) fn cold<R: Returned + Refused>(
    f: Func,
    call: impl FnOnce() -> Call,
    body: impl FnOnce() -> R,
) -> R {
    if !rdmaverbs_observe::watching() {
        return body();
    }
    let scope = Scope::enter();
    let ret = body();
    // SAFETY: the export's own arguments, valid by its contract (a NULL one
    // was refused, and is not read).
    unsafe { scope.record(f, call(), ret) };
    ret
}

/// The cold path of an export in [`observed!`]'s data-path form, for its
/// arguments as a tuple: `cold_N` takes them first, one by one, in the
/// registers the export got them in, then `call` and `body`, closures of
/// them that capture nothing, and so take no register and no stack: the
/// export reaches its cold path by a jump. (`'static`: a closure that took a
/// local of the export by reference, an argument left out of the list,
/// would not compile.)
pub(crate) trait ColdArgs: Sized {
    fn cold<R: Returned + Refused>(
        self,
        f: Func,
        call: impl FnOnce(Self) -> Call + 'static,
        body: impl FnOnce(Self) -> R + 'static,
    ) -> R;
}

macro_rules! cold_fns {
    ($($name:ident($($a:ident: $A:ident),+);)+) => {$(
        #[cold]
        #[inline(never)]
        fn $name<$($A: Copy,)+ R: Returned + Refused>(
            $($a: $A,)+
            f: Func,
            call: impl FnOnce($($A),+) -> Call,
            body: impl FnOnce($($A),+) -> R,
        ) -> R {
            if !rdmaverbs_observe::watching() {
                return body($($a),+);
            }
            let scope = Scope::enter();
            let ret = body($($a),+);
            // SAFETY: as in `cold`.
            unsafe { scope.record(f, call($($a),+), ret) };
            ret
        }

        impl<$($A: Copy),+> ColdArgs for ($($A,)+) {
            #[inline(always)]
            fn cold<R: Returned + Refused>(
                self,
                f: Func,
                call: impl FnOnce(Self) -> Call + 'static,
                body: impl FnOnce(Self) -> R + 'static,
            ) -> R {
                let ($($a,)+) = self;
                $name($($a,)+ f, move |$($a),+| call(($($a,)+)), move |$($a),+| body(($($a,)+)))
            }
        }
    )+};
}
cold_fns! {
    cold_1(a: A);
    cold_2(a: A, b: B);
    cold_3(a: A, b: B, c: C);
    cold_4(a: A, b: B, c: C, d: D);
    cold_5(a: A, b: B, c: C, d: D, e: E);
    cold_6(a: A, b: B, c: C, d: D, e: E, g: G);
}
