//! The exports reached by their version only (the nodes of
//! `rdmaverbs_abi::functions::by_version_only`): each is defined at its
//! node as a non-default version, `ibv_post_send@RDMAVERBS_1.3`, by a
//! `.symver` line beside its definition. The version scripts define those
//! nodes empty and leave the plain names local, so the library's dynamic
//! symbols have these names only at their version: `dlvsym` and an FFI's
//! versioned look-up find them, an unversioned reference or `dlsym` never
//! does, and the linked library interposes none of them on another object
//! that defines or calls its own.

use rdmaverbs_abi::{by_version_only, function_table};

macro_rules! symvers {
    (exports { $( $v:ident $name:ident $node:tt $kind:ident $since:tt; )* } $($rest:tt)*) => {
        $(
            #[cfg($name)]
            by_version_only!($node, {
                core::arch::global_asm!(concat!(
                    ".symver ", stringify!($name), ", ", stringify!($name), "@", $node
                ));
            }, {});
        )*
    };
}
function_table!(symvers);
