//! rdmaverbs: RDMA from Rust through librdmaverbs, with no `unsafe` in the
//! program: an rdma_cm [`Endpoint`] (an id with its QP), [`Pd`], registered
//! memory ([`Buf`], [`Window`]), [`Cq`], [`Srq`], [`CompChannel`] and
//! [`EventChannel`], each closed by `Drop`, in the order they depend on
//! each other whatever the program drops first; a posted buffer moved into
//! its queue until its [`Completion`] hands it back; errors as
//! `std::io::Error` with the errno; every wait bounded, blocking or (feature
//! `tokio`) as a future. The raw layer, every C function under its C name,
//! is [`raw`] (the rdmaverbs-sys crate).
//!
//! README.md follows (its examples are compiled as this crate's doctests).
//!
#![doc = include_str!("../README.md")]
#![deny(unsafe_op_in_unsafe_fn)]

#[cfg(feature = "tokio")]
mod aio;
mod channel;
mod cq;
mod endpoint;
mod errors;
mod id;
mod listener;
mod mr;
mod os;
mod pd;
mod srq;
mod wr;

#[cfg(feature = "tokio")]
pub use aio::{AsyncCompChannel, AsyncEventChannel};
pub use channel::{CmEvent, CompChannel, CqEvent, EventChannel};
pub use cq::{Completion, Cq, WcOpcode, WcStatus};
pub use endpoint::Endpoint;
pub use errors::{Closed, PostError};
pub use id::{AsRawCmId, CmEventKind, CmId, ConnParam, PortSpace, QpCap};
pub use listener::Listener;
pub use mr::window::{RemoteAddr, Window};
pub use mr::{Access, Buf};
pub use pd::{Context, Pd};
pub use rdmaverbs_sys::{errno_of, CallError};
pub use srq::Srq;
pub use wr::{IntoSges, RecvWr, SendWr};

/// The raw layer (the rdmaverbs-sys crate): every C function under its C
/// name, `unsafe`, on `*mut c_void`; the C structs and constants. For what
/// the objects here do not cover; `as_ptr` gives an object's C pointer.
pub use rdmaverbs_sys as raw;
