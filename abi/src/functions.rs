//! The functions the library knows by name, from the one table
//! ([`function_table!`](crate::function_table), `table.rs`): the exports,
//! each with its symbol version node, the rdma-core release that brought
//! it, whether it may block, and whether the preload library also wraps the
//! provider op it calls.
//!
//! Everything else that lists them is derived from the table: [`Func`]
//! (the exports of this build: the rows whose function the build's headers
//! have), the names, the counters and "may block" flags here, and [`ROWS`]
//! (every row, in every build); the version scripts, the exports list and
//! the Debian symbols file, which `make header` generates and the unit tests
//! (the top crate's `src/tests/generated.rs`) check. A count is
//! `Func::COUNT`, never a literal.

pub use crate::table::{CHANGES, NODES, NOT_EXPORTED};

/// The oldest rdma-core release that the library is built and proven on
/// (`make test-rdma-core`: Debian 11's). A row whose original a later
/// release brought is missing from a build against this one: the Debian
/// symbols file marks it optional.
pub const OLDEST_RDMA_CORE: u32 = 33;

/// Version nodes that librdmaverbs.so.1 still defines, with no symbol in
/// them. 1.0.0 defined `ibv_open_device` and `ibv_close_device` at
/// `IBVERBS_1.1` (now in the preload library), so a program linked with it
/// and libibverbs may require that node of librdmaverbs.so.1; the node keeps
/// such programs loading, and their calls now resolve in libibverbs.
pub const RETIRED_NODES: &[&str] = &["IBVERBS_1.1"];

/// Whether no header of this library declares the functions of `node`
/// ([`NODES`] says `-`): `<rdma/rdma_cma.h>` (1.2) and
/// `<infiniband/verbs.h>` (1.3, and 1.4: those of later rdma-core releases
/// than 1.3.0's) define them `static inline` under the same names, and
/// every program that could call them includes those headers, so a
/// declaration would collide with the definition. Programs reach them by
/// their version (`dlvsym`, an FFI's versioned look-up): each is defined at
/// its node as a non-default version (`ibv_post_send@RDMAVERBS_1.3`, one
/// `@`), which no unversioned reference or `dlsym` binds, so that the
/// linked library interposes none of these names on another object of the
/// process that defines or calls its own (the exports' `.symver` lines,
/// `src/api/symver.rs`). [`by_version_only!`](crate::by_version_only) gives
/// the same answer while a macro expands, which a test compares.
pub fn by_version_only(node: &str) -> bool {
    NODES.iter().any(|n| n.0 == node && n.2 == "-")
}

/// The tokens of `{ yes }` for a node that [`by_version_only`] names, those of
/// `{ no }` for any other: the same answer where a macro needs it while it
/// expands (a `.symver` line), from a node given as a token tree.
#[macro_export]
macro_rules! by_version_only {
    ("RDMAVERBS_1.2", { $($yes:tt)* }, { $($no:tt)* }) => {
        $($yes)*
    };
    ("RDMAVERBS_1.3", { $($yes:tt)* }, { $($no:tt)* }) => {
        $($yes)*
    };
    ("RDMAVERBS_1.4", { $($yes:tt)* }, { $($no:tt)* }) => {
        $($yes)*
    };
    ($node:tt, { $($yes:tt)* }, { $($no:tt)* }) => {
        $($no)*
    };
}

/// A row of the table, in every build: what the committed files derived
/// from the table (the version scripts, the full exports list, the Debian
/// symbols file) are made of, whatever the headers of the build that
/// checks them.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Row {
    /// The C name.
    pub name: &'static str,
    /// The symbol version node.
    pub node: &'static str,
    /// Where the original comes from.
    pub since: Since,
    /// Whether a call may wait for a completion event.
    pub blocks: bool,
    /// Whether the preload library wraps the provider's op of this name.
    pub wrapped: bool,
}

/// Where a row's original comes from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Since {
    /// The rdma-core release whose header first defines it `static inline`.
    Release(u32),
    /// rdmaverbs' own API: in every build.
    Own,
}

/// Defines [`Func`] and its tables from [`function_table!`](crate::function_table).
macro_rules! define_func {
    (
        exports { $( $ev:ident $en:ident $node:literal $kind:ident $since:tt; )* }
        interposed { $( $iname:ident $inode:literal; )* }
    ) => {
        /// Every row of the table, in every build.
        pub const ROWS: &[Row] = &[ $( row!($en $node $kind $since), )* ];

        /// One function of this build: an export (some of which the preload
        /// library also records as the provider ops a program calls inline).
        /// A row whose original the build's headers lack is not one (its
        /// cfg, named after it, is not set).
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        #[repr(u8)]
        pub enum Func {
            $( #[cfg($en)] #[doc = concat!("`", stringify!($en), "`")] $ev, )*
        }

        impl Func {
            /// Every function, in the table's order.
            pub const ALL: &'static [Func] = &[ $( #[cfg($en)] Func::$ev, )* ];
            /// How many there are.
            pub const COUNT: usize = Self::ALL.len();
            /// The exports: every function of the build is one.
            pub const EXPORTS: &'static [Func] = Self::ALL;
            const ROWS: &'static [Row] = &[ $( #[cfg($en)] row!($en $node $kind $since), )* ];

            /// Its row of the table.
            pub const fn row(self) -> &'static Row {
                &Self::ROWS[self as usize]
            }

            /// The C name.
            pub const fn name(self) -> &'static str {
                self.row().name
            }

            /// The symbol version node.
            pub const fn node(self) -> &'static str {
                self.row().node
            }

            /// The libibverbs functions the preload library interposes, with
            /// their version nodes.
            pub const INTERPOSED: &'static [(&'static str, &'static str)] =
                &[ $( (stringify!($iname), $inode), )* ];

            /// Whether a call may wait for a completion event (the counters'
            /// "blocked" column).
            pub const fn may_block(self) -> bool {
                self.row().blocks
            }

            /// Whether the preload library wraps the provider's op of this
            /// name, and records a program's inline calls of it as calls of
            /// this function.
            pub const fn wrapped(self) -> bool {
                self.row().wrapped
            }
        }
    };
}

/// A [`Row`] from a row of the table.
macro_rules! row {
    ($en:ident $node:literal $kind:ident $since:tt) => {
        Row {
            name: stringify!($en),
            node: $node,
            since: since!($since),
            blocks: kind!(blocks $kind),
            wrapped: kind!(wrapped $kind),
        }
    };
}

/// A row's `since`: a release, or `own`.
macro_rules! since {
    (own) => {
        Since::Own
    };
    ($release:literal) => {
        Since::Release($release)
    };
}

/// Whether a row's kind is the one named first.
macro_rules! kind {
    (blocks blocks) => {
        true
    };
    (wrapped wrapped) => {
        true
    };
    ($want:ident $kind:ident) => {
        false
    };
}
crate::function_table!(define_func);

#[cfg(test)]
mod tests {
    use super::{Func, ROWS, Since};

    /// [`by_version_only!`](crate::by_version_only) and
    /// [`by_version_only`](super::by_version_only) name the same nodes,
    /// and every node of the table is one of [`NODES`](super::NODES).
    #[test]
    fn by_version_only_is_undeclared_nodes() {
        macro_rules! check {
            (exports { $( $ev:ident $en:ident $node:tt $kind:ident $since:tt; )* } $($rest:tt)*) => {
                $(
                    assert_eq!(
                        crate::by_version_only!($node, { true }, { false }),
                        super::by_version_only($node),
                        "{}",
                        stringify!($en)
                    );
                )*
            };
        }
        crate::function_table!(check);
        assert!(
            super::NODES
                .iter()
                .all(|n| super::ROWS.iter().any(|r| r.node == n.0))
        );
        assert!(
            ROWS.iter()
                .all(|r| super::NODES.iter().any(|n| n.0 == r.node))
        );
    }

    #[test]
    fn names_and_flags() {
        assert_eq!(Func::SetErrno.name(), "rdma_seterrno");
        assert_eq!(Func::GetRecvComp.name(), "rdma_get_recv_comp");
        assert_eq!(Func::IbvPollCq.name(), "ibv_poll_cq");
        assert_eq!(Func::IbvQueryPort.name(), "___ibv_query_port");
        assert_eq!(Func::PostSend.node(), "RDMAVERBS_1.0");
        assert_eq!(Func::IbvPostSend.node(), "RDMAVERBS_1.3");
        assert!(Func::GetSendComp.may_block() && !Func::PostSend.may_block());
        assert!(!Func::IbvPollCq.may_block());
        assert!(Func::IbvPollCq.wrapped() && Func::IbvWrStart.wrapped());
        assert!(!Func::PostSend.wrapped() && !Func::IbvWrAtomicCmpSwp.wrapped());
        assert_eq!(Func::IbvPostSend.row().since, Since::Release(13));
        assert_eq!(Func::GetSendCompTimeout.row().since, Since::Own);
        for (i, f) in Func::ALL.iter().enumerate() {
            assert_eq!(*f as usize, i);
            assert_eq!(ROWS.iter().find(|r| r.name == f.name()), Some(f.row()));
        }
        // The table's rows are in the order of their nodes (each node's
        // rows together), the order the version scripts list them in.
        let mut nodes: Vec<&str> = ROWS.iter().map(|r| r.node).collect();
        nodes.dedup();
        let mut sorted = nodes.clone();
        sorted.sort();
        assert_eq!(nodes, sorted);
    }

    /// The build has every row whose release is the headers' or older, and
    /// no later one: the table's `since` holds in every release a build
    /// compiles against.
    #[test]
    fn rows_are_those_of_the_headers_release() {
        let release: u32 = env!("RDMAVERBS_RDMA_CORE").parse().unwrap();
        for r in ROWS {
            let built = Func::ALL.iter().any(|f| f.name() == r.name);
            let want = match r.since {
                Since::Own => true,
                Since::Release(n) => n <= release,
            };
            assert_eq!(
                built, want,
                "{} (since {:?}) with rdma-core {release}'s headers",
                r.name, r.since
            );
        }
    }

    /// Every `static inline` function of the build's headers is a row of
    /// the table or one of [`NOT_EXPORTED`](super::NOT_EXPORTED) (the
    /// build script lists the others).
    #[test]
    fn every_inline_function_is_a_row() {
        let unknown = include_str!(concat!(env!("OUT_DIR"), "/unknown.txt"));
        assert!(
            unknown.is_empty(),
            "static inline in the build's headers and in no row of abi/src/table.rs:\n{unknown}"
        );
    }
}
