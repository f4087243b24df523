//! Work requests that own their buffers, the queues' record of those
//! posted, and the completions that hand the buffers back.

pub(crate) mod post;

use std::io;

use rdmaverbs_sys as raw;

use crate::mr::window::RemoteAddr;
use crate::mr::Buf;

/// The buffers of a work request, one SGE each: a [`Buf`], an array or a
/// `Vec` of them.
pub trait IntoSges {
    fn into_sges(self) -> Vec<Buf>;
}

impl IntoSges for Buf {
    fn into_sges(self) -> Vec<Buf> {
        vec![self]
    }
}

impl IntoSges for Vec<Buf> {
    fn into_sges(self) -> Vec<Buf> {
        self
    }
}

impl<const N: usize> IntoSges for [Buf; N] {
    fn into_sges(self) -> Vec<Buf> {
        self.into()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Send,
    Write(RemoteAddr),
    Read(RemoteAddr),
    FetchAdd(RemoteAddr, u64),
    CompareSwap(RemoteAddr, u64, u64),
}

/// A send queue's work request: the operation, its buffers (moved in,
/// handed back by its [`Completion`](crate::Completion)), its `wr_id`. Every one is signaled
/// (`IBV_SEND_SIGNALED`): its buffers come back with its completion only.
#[derive(Debug)]
pub struct SendWr {
    wr_id: u64,
    op: Op,
    imm: Option<u32>,
    flags: u32,
    bufs: Vec<Buf>,
}

impl SendWr {
    fn new(wr_id: u64, op: Op, bufs: Vec<Buf>) -> SendWr {
        SendWr {
            wr_id,
            op,
            imm: None,
            flags: raw::IBV_SEND_SIGNALED as u32,
            bufs,
        }
    }

    /// A send of the buffers' bytes, in order (`IBV_WR_SEND`).
    pub fn send(wr_id: u64, bufs: impl IntoSges) -> SendWr {
        SendWr::new(wr_id, Op::Send, bufs.into_sges())
    }

    /// A send with 32 bits of immediate data, given in host order (put in
    /// network order here; the receiver's [`Completion::imm_data`](crate::Completion::imm_data) gives it
    /// back in host order): `IBV_WR_SEND_WITH_IMM`.
    pub fn send_with_imm(wr_id: u64, imm: u32, bufs: impl IntoSges) -> SendWr {
        SendWr {
            imm: Some(imm),
            ..SendWr::send(wr_id, bufs)
        }
    }

    /// An RDMA write of the buffers' bytes into the peer's memory
    /// (`IBV_WR_RDMA_WRITE`).
    pub fn write(wr_id: u64, bufs: impl IntoSges, remote: RemoteAddr) -> SendWr {
        SendWr::new(wr_id, Op::Write(remote), bufs.into_sges())
    }

    /// An RDMA read of the peer's memory into the buffers
    /// (`IBV_WR_RDMA_READ`).
    pub fn read(wr_id: u64, bufs: impl IntoSges, remote: RemoteAddr) -> SendWr {
        SendWr::new(wr_id, Op::Read(remote), bufs.into_sges())
    }

    /// Adds `add` to the peer's 8-byte word; its old value lands in
    /// `result` (8 bytes, 8-byte aligned), in host order
    /// (`IBV_WR_ATOMIC_FETCH_AND_ADD`).
    pub fn fetch_add(wr_id: u64, result: Buf, remote: RemoteAddr, add: u64) -> SendWr {
        SendWr::new(wr_id, Op::FetchAdd(remote, add), vec![result])
    }

    /// Sets the peer's word to `swap` if it is `compare`; its old value
    /// lands in `result` (`IBV_WR_ATOMIC_CMP_AND_SWP`).
    pub fn compare_swap(
        wr_id: u64,
        result: Buf,
        remote: RemoteAddr,
        compare: u64,
        swap: u64,
    ) -> SendWr {
        SendWr::new(wr_id, Op::CompareSwap(remote, compare, swap), vec![result])
    }

    /// Asks for a solicited event at the receiver (`IBV_SEND_SOLICITED`):
    /// wakes a CQ armed with `req_notify(true)`.
    pub fn solicited(mut self) -> SendWr {
        self.flags |= raw::IBV_SEND_SOLICITED as u32;
        self
    }

    /// Waits for the requests before it to finish first (`IBV_SEND_FENCE`).
    pub fn fence(mut self) -> SendWr {
        self.flags |= raw::IBV_SEND_FENCE as u32;
        self
    }

    /// Its `wr_id`.
    pub fn wr_id(&self) -> u64 {
        self.wr_id
    }

    /// Its buffers back, unposted.
    pub fn into_bufs(self) -> Vec<Buf> {
        self.bufs
    }

    /// The C work request (its SGEs at `sges`, its wr_id the queue's token).
    fn raw(&self, token: u64, sges: *mut raw::ibv_sge) -> io::Result<raw::ibv_send_wr> {
        let mut w = raw::ibv_send_wr {
            wr_id: token,
            sg_list: sges.cast(),
            num_sge: self.bufs.len() as i32,
            send_flags: self.flags,
            ..Default::default()
        };
        let atomic = |remote: RemoteAddr, compare_add, swap| {
            let ok =
                self.bufs.len() == 1 && self.bufs[0].len() == 8 && self.bufs[0].addr() % 8 == 0;
            if !ok {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "wr_id {:#x}: an atomic's result is one buffer of 8 bytes, 8-byte aligned",
                        self.wr_id
                    ),
                ));
            }
            Ok(raw::ibv_send_wr_wr_atomic {
                remote_addr: remote.addr,
                compare_add,
                swap,
                rkey: remote.rkey,
            })
        };
        let (opcode, imm_opcode) = match self.op {
            Op::Send => (raw::IBV_WR_SEND, raw::IBV_WR_SEND_WITH_IMM),
            Op::Write(remote) => {
                w.wr.rdma = raw::ibv_send_wr_wr_rdma {
                    remote_addr: remote.addr,
                    rkey: remote.rkey,
                };
                (raw::IBV_WR_RDMA_WRITE, raw::IBV_WR_RDMA_WRITE_WITH_IMM)
            }
            Op::Read(remote) => {
                w.wr.rdma = raw::ibv_send_wr_wr_rdma {
                    remote_addr: remote.addr,
                    rkey: remote.rkey,
                };
                (raw::IBV_WR_RDMA_READ, raw::IBV_WR_RDMA_READ)
            }
            Op::FetchAdd(remote, add) => {
                w.wr.atomic = atomic(remote, add, 0)?;
                (
                    raw::IBV_WR_ATOMIC_FETCH_AND_ADD,
                    raw::IBV_WR_ATOMIC_FETCH_AND_ADD,
                )
            }
            Op::CompareSwap(remote, compare, swap) => {
                w.wr.atomic = atomic(remote, compare, swap)?;
                (
                    raw::IBV_WR_ATOMIC_CMP_AND_SWP,
                    raw::IBV_WR_ATOMIC_CMP_AND_SWP,
                )
            }
        };
        w.opcode = match self.imm {
            Some(imm) => {
                w.imm_data = imm.to_be();
                imm_opcode as u32
            }
            None => opcode as u32,
        };
        Ok(w)
    }
}

/// A receive queue's work request: the buffers the next message received
/// fills (moved in, handed back by its [`Completion`](crate::Completion)).
#[derive(Debug)]
pub struct RecvWr {
    wr_id: u64,
    bufs: Vec<Buf>,
}

impl RecvWr {
    pub fn new(wr_id: u64, bufs: impl IntoSges) -> RecvWr {
        RecvWr {
            wr_id,
            bufs: bufs.into_sges(),
        }
    }

    /// Its `wr_id`.
    pub fn wr_id(&self) -> u64 {
        self.wr_id
    }

    /// Its buffers back, unposted.
    pub fn into_bufs(self) -> Vec<Buf> {
        self.bufs
    }
}
