//! `rdmaverbs-trace --latency`: per opcode, the time from each work
//! request's post to its completion, from the `t=` of their trace lines.
//!
//! A completion is matched with the oldest post still open with the same
//! QP number (an SRQ's receives: the same SRQ), queue (send or receive) and
//! `wr_id`. The queue of a completion is its function's
//! (`rdma_get_send_comp`, `rdma_get_recv_comp`) or its opcode's (`RECV`
//! for a receive); a completion in error, which shows no opcode, is tried
//! on the send queue, then the receive queue. The extended API's polls
//! (`ibv_start_poll`, `ibv_next_poll`) show no QP number: matched by
//! `wr_id` alone. Posts that never complete (unsignalled sends) and
//! completions of posts before the trace began are counted apart.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::io::BufRead;

use crate::lines::Line;

/// Which queue of a QP (or an SRQ).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Queue {
    Send,
    Recv,
    Srq,
}

/// An open post: when, and its opcode.
struct Post {
    t_ns: u64,
    opcode: String,
}

/// What a trace says of its latencies.
#[derive(Default, Debug)]
pub struct Report {
    /// Per opcode of the post, the latencies in microseconds, sorted.
    pub by_opcode: BTreeMap<String, Vec<f64>>,
    /// Trace lines read.
    pub lines: u64,
    /// Posts with no completion in the trace.
    pub open_posts: u64,
    /// Completions with no post before them.
    pub orphans: u64,
}

/// The `p`-th percentile (nearest rank) of sorted `v`.
pub fn percentile(v: &[f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}

/// The opcode a post line names.
fn post_opcode(l: &Line) -> Option<String> {
    let from_name = match l.name {
        "ibv_wr_send" | "ibv_wr_send_imm" => "SEND",
        "ibv_wr_rdma_write" | "ibv_wr_rdma_write_imm" => "RDMA_WRITE",
        "ibv_wr_rdma_read" => "RDMA_READ",
        "ibv_post_recv" | "ibv_post_srq_recv" => "RECV",
        _ => return l.get("opcode").map(str::to_string),
    };
    Some(from_name.to_string())
}

/// The queue and object of a post line, if it is a successful post.
fn post_key(l: &Line) -> Option<(Queue, u64)> {
    if l.num("ret").is_some_and(|r| r != 0) {
        return None;
    }
    let qpn = l.num("qpn").map(|q| q as u64);
    match l.name {
        "ibv_post_srq_recv" => Some((Queue::Srq, l.hex("srq")?)),
        "ibv_post_recv" => Some((Queue::Recv, qpn?)),
        "rdma_post_recv" | "rdma_post_recvv" => match l.hex("srq") {
            Some(srq) => Some((Queue::Srq, srq)),
            None => Some((Queue::Recv, qpn?)),
        },
        "ibv_post_send"
        | "rdma_post_send"
        | "rdma_post_sendv"
        | "rdma_post_read"
        | "rdma_post_readv"
        | "rdma_post_write"
        | "rdma_post_writev"
        | "rdma_post_ud_send"
        | "ibv_wr_send"
        | "ibv_wr_send_imm"
        | "ibv_wr_rdma_write"
        | "ibv_wr_rdma_write_imm"
        | "ibv_wr_rdma_read" => Some((Queue::Send, qpn?)),
        _ => None,
    }
}

/// The queues a completion line may be of, in the order to try them.
fn comp_queues(l: &Line) -> Option<&'static [Queue]> {
    match l.name {
        "rdma_get_send_comp" | "rdma_get_send_comp_timeout" => Some(&[Queue::Send]),
        "rdma_get_recv_comp" | "rdma_get_recv_comp_timeout" => Some(&[Queue::Recv, Queue::Srq]),
        "ibv_poll_cq" | "ibv_start_poll" | "ibv_next_poll" => match l.get("opcode") {
            Some("RECV" | "RECV_RDMA_WITH_IMM") => Some(&[Queue::Recv, Queue::Srq]),
            Some(_) => Some(&[Queue::Send]),
            None => Some(&[Queue::Send, Queue::Recv, Queue::Srq]),
        },
        _ => None,
    }
}

/// Reads a trace and matches its posts and completions.
pub fn analyze(input: impl BufRead) -> std::io::Result<Report> {
    let mut open: HashMap<(Queue, u64, u64), VecDeque<Post>> = HashMap::new();
    let mut r = Report::default();
    for text in input.lines() {
        let text = text?;
        let Some(l) = Line::parse(&text) else {
            continue;
        };
        r.lines += 1;
        let Some(wr_id) = l.hex("wr_id") else {
            continue;
        };
        if let Some((q, obj)) = post_key(&l) {
            let opcode = post_opcode(&l).unwrap_or_else(|| "OTHER".into());
            open.entry((q, obj, wr_id)).or_default().push_back(Post {
                t_ns: l.t_ns,
                opcode,
            });
            continue;
        }
        let Some(queues) = comp_queues(&l) else {
            continue;
        };
        let qpn = l.num("qpn").map(|q| q as u64);
        let mut post = None;
        for &q in queues {
            // A receive of an SRQ, or a completion without a QP number
            // (the extended CQ's): by wr_id alone.
            let key = match (q, qpn) {
                (Queue::Srq, _) | (_, None) => open
                    .iter()
                    .filter(|((kq, _, id), posts)| *kq == q && *id == wr_id && !posts.is_empty())
                    .min_by_key(|(_, posts)| posts.front().map(|p| p.t_ns))
                    .map(|(k, _)| *k),
                (_, Some(qpn)) => Some((q, qpn, wr_id)),
            };
            if let Some(p) = key.and_then(|k| open.get_mut(&k)?.pop_front()) {
                post = Some(p);
                break;
            }
        }
        match post {
            Some(p) => r
                .by_opcode
                .entry(p.opcode)
                .or_default()
                .push(l.t_ns.saturating_sub(p.t_ns) as f64 / 1000.0),
            None => r.orphans += 1,
        }
    }
    r.open_posts = open.values().map(|v| v.len() as u64).sum();
    for v in r.by_opcode.values_mut() {
        v.sort_by(f64::total_cmp);
    }
    Ok(r)
}

/// The report as a table: per opcode, count, p50, p90, p99 and max in
/// microseconds, then what was not matched.
pub fn table(r: &Report) -> String {
    let mut s = format!(
        "{:<20}{:>9}{:>11}{:>11}{:>11}{:>11}   (microseconds, post to completion)\n",
        "opcode", "count", "p50", "p90", "p99", "max"
    );
    for (op, v) in &r.by_opcode {
        s += &format!(
            "{:<20}{:>9}{:>11.1}{:>11.1}{:>11.1}{:>11.1}\n",
            op,
            v.len(),
            percentile(v, 50.0),
            percentile(v, 90.0),
            percentile(v, 99.0),
            v.last().copied().unwrap_or(0.0)
        );
    }
    s += &format!(
        "{} trace lines; {} posts without a completion (unsignalled, or not yet polled); \
         {} completions without a post\n",
        r.lines, r.open_posts, r.orphans
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(trace: &str) -> Report {
        analyze(trace.as_bytes()).unwrap()
    }

    #[test]
    fn posts_meet_their_completions() {
        let t = "\
rdmaverbs[1]: rdma_post_send t=10.000000000 id=0x1 qpn=7 wr_id=0x5 opcode=SEND nsge=1 bytes=8 flags=0x2 ret=0
rdmaverbs[1]: rdma_post_recv t=10.000001000 id=0x1 qpn=7 wr_id=0x5 opcode=RECV nsge=1 bytes=8 ret=0
rdmaverbs[1]: rdma_post_send t=10.000002000 id=0x1 qpn=7 wr_id=0x5 opcode=SEND nsge=1 bytes=8 flags=0x2 ret=0
rdmaverbs[1]: rdma_get_send_comp t=10.000020000 id=0x1 qpn=7 ret=1 wr_id=0x5 status=SUCCESS opcode=SEND byte_len=0
                                                         
rdmaverbs[1]: rdma_get_recv_comp t=10.000031000 id=0x1 qpn=7 ret=1 wr_id=0x5 status=SUCCESS opcode=RECV byte_len=8
rdmaverbs[2]: ibv_post_send t=11.000000000 qp=0x9 qpn=8 wr_id=0x6 opcode=RDMA_WRITE nsge=1 bytes=4 flags=0x2 ret=0
rdmaverbs[2]: ibv_poll_cq t=11.000005500 cq=0x3 ret=1 qpn=8 wr_id=0x6 status=SUCCESS opcode=RDMA_WRITE byte_len=4
rdmaverbs[2]: ibv_poll_cq t=11.000006000 cq=0x3 ret=1 qpn=8 wr_id=0x99 status=WR_FLUSH_ERR vendor_err=0x0
rdmaverbs[2]: ibv_post_send t=11.000007000 qp=0x9 qpn=8 wr_id=0x7 opcode=SEND nsge=1 flags=0x0 ret=12
";
        let r = run(t);
        // The first send meets the first completion (oldest first).
        assert_eq!(r.by_opcode["SEND"], vec![20.0]);
        assert_eq!(r.by_opcode["RECV"], vec![30.0]);
        assert_eq!(r.by_opcode["RDMA_WRITE"], vec![5.5]);
        // The second send is open; the flushed 0x99 has no post; the
        // failed post (ret=12) opens nothing.
        assert_eq!((r.open_posts, r.orphans, r.lines), (1, 1, 9));
        let table = table(&r);
        assert!(table.contains("SEND"), "{table}");
    }

    #[test]
    fn srq_and_extended_polls() {
        let t = "\
rdmaverbs[1]: ibv_post_srq_recv t=1.000000000 srq=0xab wr_id=0x1 nsge=1 bytes=8 ret=0
rdmaverbs[1]: ibv_poll_cq t=1.000002000 cq=0x3 ret=1 qpn=12 wr_id=0x1 status=SUCCESS opcode=RECV byte_len=8
rdmaverbs[1]: ibv_wr_send t=2.000000000 qp=0x5 qpn=4 wr_id=0x2 flags=0x2
rdmaverbs[1]: ibv_start_poll t=2.000003000 cq=0x6 ret=0 wr_id=0x2 status=SUCCESS opcode=SEND byte_len=0
";
        let r = run(t);
        assert_eq!(r.by_opcode["RECV"], vec![2.0]);
        assert_eq!(r.by_opcode["SEND"], vec![3.0]);
        assert_eq!((r.open_posts, r.orphans), (0, 0));
    }

    #[test]
    fn percentiles_by_nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), 50.0);
        assert_eq!(percentile(&v, 99.0), 99.0);
        assert_eq!(percentile(&[3.0], 90.0), 3.0);
        assert_eq!(percentile(&[], 50.0), 0.0);
    }
}
