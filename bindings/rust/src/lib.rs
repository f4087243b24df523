//! rdmaverbs: RDMA from Rust through librdmaverbs. The raw layer, every C
//! function under its C name (`unsafe`, on `*mut c_void`) with the C
//! structs and constants, is the rdmaverbs-sys crate, re-exported here as
//! [`raw`] (see README.md).

/// The raw layer (the rdmaverbs-sys crate): every C function under its C
/// name, `unsafe`, on `*mut c_void`; the C structs and constants.
pub use rdmaverbs_sys as raw;
