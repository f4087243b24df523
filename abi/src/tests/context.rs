//! `struct verbs_context` member by member, and the constants the exports
//! of verbs.h name, against the system headers.

use core::mem::{offset_of, size_of};

use super::c_answers;
use crate::verbs::*;

/// `(member, Rust distance from the member to the end of the struct)` of
/// the members of `struct verbs_context` that the library reads.
macro_rules! members {
    ($($m:ident $(as $c:ident)?),* $(,)?) => {
        vec![ $( (
            members!(@name $m $($c)?),
            size_of::<verbs_context>() - offset_of!(verbs_context, $m),
        ), )* ]
    };
    (@name $m:ident) => { stringify!($m) };
    (@name $m:ident $c:ident) => { stringify!($c) };
}

/// Each op the library reads is as far from the end of `struct
/// verbs_context` as in the system header: the distance `verbs_get_ctx_op`
/// compares with the size a provider allocated (the struct grows at its
/// front, so the distance, not the offset, is what a release keeps).
#[test]
fn verbs_context_matches_system_header() {
    let rust = members![
        query_port,
        advise_mr,
        alloc_null_mr,
        read_counters,
        attach_counters_point_flow,
        create_counters,
        destroy_counters,
        reg_dm_mr,
        alloc_dm,
        free_dm,
        modify_flow_action_esp,
        destroy_flow_action,
        create_flow_action_esp,
        modify_qp_rate_limit,
        alloc_parent_domain,
        dealloc_td,
        alloc_td,
        modify_cq,
        post_srq_ops,
        destroy_rwq_ind_table,
        create_rwq_ind_table,
        destroy_wq,
        modify_wq,
        create_wq,
        query_rt_values,
        create_cq_ex,
        query_device_ex,
        ibv_destroy_flow,
        ibv_create_flow,
        open_qp,
        create_qp_ex,
        get_srq_num,
        create_srq_ex,
        open_xrcd,
        close_xrcd,
        sz,
        context,
    ];
    let body: String = rust
        .iter()
        .map(|(m, _)| {
            format!(
                "printf(\"%zu\\n\", sizeof(struct verbs_context) - offsetof(struct verbs_context, {m}));\n"
            )
        })
        .collect();
    let text = c_answers("vctx", &body);
    let c: Vec<usize> = text.lines().map(|l| l.parse().unwrap()).collect();
    let want: Vec<usize> = rust.iter().map(|(_, o)| *o).collect();
    assert_eq!(c, want, "verbs_context differs from verbs.h: {rust:?}");
}

/// The constants that verbs.h's inline functions test, as the exports have
/// them.
#[test]
fn constants_match_system_header() {
    use crate::verbs as s;
    let mut ours: Vec<(&str, u64)> = vec![
        (
            "IBV_ACCESS_OPTIONAL_RANGE",
            IBV_ACCESS_OPTIONAL_RANGE.into(),
        ),
        (
            "IB_ROCE_UDP_ENCAP_VALID_PORT_MIN",
            IB_ROCE_UDP_ENCAP_VALID_PORT_MIN.into(),
        ),
        ("IBV_MW_TYPE_1", s::IBV_MW_TYPE_1.into()),
        ("IBV_SRQT_BASIC", s::IBV_SRQT_BASIC.into()),
        ("IBV_SRQ_INIT_ATTR_PD", s::IBV_SRQ_INIT_ATTR_PD.into()),
        ("IBV_SRQ_INIT_ATTR_TYPE", s::IBV_SRQ_INIT_ATTR_TYPE.into()),
        ("IBV_QP_INIT_ATTR_PD", s::IBV_QP_INIT_ATTR_PD.into()),
        ("IBV_WR_TSO", s::ibv_wr_opcode::IBV_WR_TSO.into()),
        (
            "IBV_WR_SEND_WITH_INV",
            s::ibv_wr_opcode::IBV_WR_SEND_WITH_INV.into(),
        ),
        (
            "(uintptr_t)__VERBS_ABI_IS_EXTENDED",
            VERBS_ABI_IS_EXTENDED as u64,
        ),
    ];
    // The opcodes of the later releases' work requests, where the header
    // has them.
    #[cfg(ibv_wr_atomic_write)]
    ours.push((
        "IBV_WR_ATOMIC_WRITE",
        s::ibv_wr_opcode::IBV_WR_ATOMIC_WRITE.into(),
    ));
    #[cfg(ibv_wr_flush)]
    ours.push(("IBV_WR_FLUSH", s::ibv_wr_opcode::IBV_WR_FLUSH.into()));
    let body: String = ours
        .iter()
        .map(|(n, _)| format!("printf(\"%llu\\n\", (unsigned long long){n});\n"))
        .collect();
    let text = c_answers("consts", &body);
    let c: Vec<u64> = text.lines().map(|l| l.parse().unwrap()).collect();
    let want: Vec<u64> = ours.iter().map(|(_, v)| *v).collect();
    assert_eq!(c, want, "constants differ from verbs.h: {ours:?}");
}
