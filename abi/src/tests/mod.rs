//! The layout of every C struct field the library reads or writes, against
//! the system headers (`offsetof` in C, `offset_of!` here), the sizes it
//! passes, and the values of the constants it names ([`context`]: `struct
//! verbs_context`, member by member).

mod context;

/// Every field the library reads or writes, as `(C struct, C member, Rust
/// offset, Rust size)`. The C side prints `offsetof`/`sizeof` of the same
/// member, compiled from the system headers.
macro_rules! fields {
    ($( $cty:literal $ty:ty { $( $cf:literal => $($rf:ident).+ ),* $(,)? } )*) => {
        vec![ $( $( (
            $cty,
            $cf,
            core::mem::offset_of!($ty, $($rf).+),
            // Only the type is used: nothing is read.
            #[allow(unused_unsafe)]
            size_of_field(|v: &$ty| unsafe { &v.$($rf).+ }),
        ), )* )* ]
    };
}

/// The size of the field that `f` projects to.
fn size_of_field<T, F>(_: fn(&T) -> &F) -> usize {
    core::mem::size_of::<F>()
}

/// The sizes of the structs the library builds, copies or passes by pointer
/// to the provider, as `(C struct, Rust size)`.
fn struct_sizes() -> Vec<(&'static str, usize)> {
    use crate::verbs::*;
    use core::mem::size_of;
    vec![
        ("struct rdma_cm_id", size_of::<rdma_cm_id>()),
        ("struct ibv_send_wr", size_of::<ibv_send_wr>()),
        ("struct ibv_recv_wr", size_of::<ibv_recv_wr>()),
        ("struct ibv_sge", size_of::<ibv_sge>()),
        ("struct ibv_wc", size_of::<ibv_wc>()),
        ("struct ibv_port_attr", PORT_ATTR_SIZE),
        ("struct ibv_gid_entry", GID_ENTRY_SIZE),
        ("struct ibv_device_attr_ex", DEVICE_ATTR_EX_SIZE),
        ("struct ibv_context", size_of::<ibv_context>()),
        ("struct verbs_context", size_of::<verbs_context>()),
        ("struct ibv_mw_bind", size_of::<ibv_mw_bind>()),
        ("struct ibv_data_buf", size_of::<ibv_data_buf>()),
        ("struct ibv_wc_tm_info", size_of::<ibv_wc_tm_info>()),
        #[cfg(ibv_query_comp_cntr_caps)]
        ("struct ibv_comp_cntr_caps", size_of::<ibv_comp_cntr_caps>()),
    ]
}

#[test]
fn layout_matches_system_headers() {
    use crate::verbs::ibv_context_ops;
    use crate::verbs::*;
    #[allow(unused_mut)]
    let mut fields = fields! {
        "struct rdma_cm_id" rdma_cm_id {
            "verbs" => verbs, "qp" => qp, "send_cq_channel" => send_cq_channel,
            "send_cq" => send_cq, "recv_cq_channel" => recv_cq_channel,
            "recv_cq" => recv_cq, "srq" => srq, "pd" => pd, "qp_type" => qp_type,
            "route" => route, "route.addr.src_storage" => route.src_addr,
            "route.addr.dst_storage" => route.dst_addr,
        }
        "struct ibv_context" ibv_context { "ops" => ops, "abi_compat" => abi_compat }
        "struct ibv_qp_init_attr_ex" crate::verbs::ibv_qp_init_attr_ex { "comp_mask" => comp_mask }
        "struct ibv_qp_ex" crate::verbs::ibv_qp_ex {
            "qp_base.qp_num" => qp_base.qp_num, "wr_id" => wr_id, "wr_flags" => wr_flags,
            "wr_atomic_cmp_swp" => wr_atomic_cmp_swp, "wr_atomic_fetch_add" => wr_atomic_fetch_add,
            "wr_bind_mw" => wr_bind_mw, "wr_local_inv" => wr_local_inv,
            "wr_rdma_read" => wr_rdma_read, "wr_rdma_write" => wr_rdma_write,
            "wr_rdma_write_imm" => wr_rdma_write_imm, "wr_send" => wr_send,
            "wr_send_imm" => wr_send_imm, "wr_send_inv" => wr_send_inv,
            "wr_send_tso" => wr_send_tso, "wr_set_ud_addr" => wr_set_ud_addr,
            "wr_set_xrc_srqn" => wr_set_xrc_srqn, "wr_set_inline_data" => wr_set_inline_data,
            "wr_set_inline_data_list" => wr_set_inline_data_list, "wr_set_sge" => wr_set_sge,
            "wr_set_sge_list" => wr_set_sge_list, "wr_start" => wr_start,
            "wr_complete" => wr_complete, "wr_abort" => wr_abort,
        }
        "struct ibv_cq_ex" crate::verbs::ibv_cq_ex {
            "context" => context, "wr_id" => wr_id, "status" => status,
            "start_poll" => start_poll, "next_poll" => next_poll, "end_poll" => end_poll,
            "read_opcode" => read_opcode, "read_vendor_err" => read_vendor_err,
            "read_byte_len" => read_byte_len, "read_imm_data" => read_imm_data,
            "read_qp_num" => read_qp_num, "read_src_qp" => read_src_qp,
            "read_wc_flags" => read_wc_flags, "read_slid" => read_slid, "read_sl" => read_sl,
            "read_dlid_path_bits" => read_dlid_path_bits,
            "read_completion_ts" => read_completion_ts, "read_cvlan" => read_cvlan,
            "read_flow_tag" => read_flow_tag, "read_tm_info" => read_tm_info,
            "read_completion_wallclock_ns" => read_completion_wallclock_ns,
        }
        "struct ibv_wq" ibv_wq {
            "context" => context, "wq_context" => wq_context, "mutex" => mutex,
            "cond" => cond, "events_completed" => events_completed, "post_recv" => post_recv,
        }
        "struct ibv_dm" ibv_dm {
            "context" => context, "memcpy_to_dm" => memcpy_to_dm,
            "memcpy_from_dm" => memcpy_from_dm,
        }
        "struct ibv_mw" ibv_mw { "context" => context, "pd" => pd, "type" => type_ }
        "struct ibv_mw_bind" ibv_mw_bind { "bind_info" => bind_info }
        "struct ibv_mw_bind_info" ibv_mw_bind_info {
            "mr" => mr, "addr" => addr, "length" => length,
        }
        "struct ibv_flow" ibv_flow { "context" => context }
        "struct ibv_flow_action" ibv_flow_action { "context" => context }
        "struct ibv_xrcd" ibv_xrcd { "context" => context }
        "struct ibv_td" ibv_td { "context" => context }
        "struct ibv_counters" ibv_counters { "context" => context }
        "struct ibv_rwq_ind_table" ibv_rwq_ind_table { "context" => context }
        "struct ibv_srq_init_attr_ex" ibv_srq_init_attr_ex {
            "comp_mask" => comp_mask, "srq_type" => srq_type, "pd" => pd,
        }
        "struct ibv_qp_init_attr_ex" ibv_qp_init_attr_ex { "pd" => pd }
        "struct ibv_query_device_ex_input" ibv_query_device_ex_input { "comp_mask" => comp_mask }
        "struct ibv_device_attr_ex" ibv_device_attr_ex { "orig_attr" => orig_attr }
        "struct ibv_wq_init_attr" ibv_wq_init_attr { "wq_context" => wq_context }
        "struct ibv_data_buf" ibv_data_buf { "addr" => addr, "length" => length }
        "struct ibv_context_ops" ibv_context_ops {
            "alloc_mw" => alloc_mw, "bind_mw" => bind_mw, "dealloc_mw" => dealloc_mw,
            "poll_cq" => poll_cq, "req_notify_cq" => req_notify_cq,
            "post_srq_recv" => post_srq_recv, "post_send" => post_send,
            "post_recv" => post_recv,
        }
        "struct ibv_qp" ibv_qp { "context" => context, "qp_num" => qp_num, "qp_type" => qp_type }
        "struct ibv_srq" ibv_srq { "context" => context }
        "struct ibv_cq" ibv_cq { "context" => context }
        "struct ibv_comp_channel" ibv_comp_channel { "fd" => fd }
        "struct ibv_mr" ibv_mr {
            "pd" => pd, "addr" => addr, "length" => length, "lkey" => lkey, "rkey" => rkey,
        }
        "struct ibv_wc" ibv_wc_head {
            "wr_id" => wr_id, "status" => status, "opcode" => opcode,
            "vendor_err" => vendor_err, "byte_len" => byte_len, "qp_num" => qp_num,
        }
        "struct ibv_sge" ibv_sge { "addr" => addr, "length" => length, "lkey" => lkey }
        "struct ibv_recv_wr" ibv_recv_wr {
            "wr_id" => wr_id, "next" => next, "sg_list" => sg_list, "num_sge" => num_sge,
        }
        "struct ibv_send_wr" ibv_send_wr {
            "wr_id" => wr_id, "next" => next, "sg_list" => sg_list, "num_sge" => num_sge,
            "opcode" => opcode, "send_flags" => send_flags,
            "wr.rdma.remote_addr" => wr.rdma.remote_addr, "wr.rdma.rkey" => wr.rdma.rkey,
            "wr.ud.ah" => wr.ud.ah, "wr.ud.remote_qpn" => wr.ud.remote_qpn,
            "wr.ud.remote_qkey" => wr.ud.remote_qkey,
        }
    };
    // The extended QP's calls of the later releases, where the header has
    // them.
    #[cfg(ibv_wr_atomic_write)]
    fields.extend(fields! {
        "struct ibv_qp_ex" crate::verbs::ibv_qp_ex { "wr_atomic_write" => wr_atomic_write }
    });
    #[cfg(ibv_wr_flush)]
    fields.extend(fields! {
        "struct ibv_qp_ex" crate::verbs::ibv_qp_ex { "wr_flush" => wr_flush }
    });
    let sizes = struct_sizes();

    // One C program prints the system headers' answer for each line.
    let mut c = String::new();
    for (cty, cf, _, _) in &fields {
        c += &format!(
            "printf(\"%zu %zu\\n\", offsetof({cty}, {cf}), sizeof((({cty} *)0)->{cf}));\n"
        );
    }
    for (cty, _) in &sizes {
        c += &format!("printf(\"%zu\\n\", sizeof({cty}));\n");
    }
    let text = c_answers("layout", &c);
    let mut lines = text.lines();

    let mut bad = Vec::new();
    for (cty, cf, off, size) in &fields {
        let want = format!("{off} {size}");
        let got = lines.next().unwrap();
        if got != want {
            bad.push(format!("{cty}.{cf}: C (offset size) {got}, Rust {want}"));
        }
    }
    for (cty, size) in &sizes {
        let got = lines.next().unwrap();
        if got != size.to_string() {
            bad.push(format!("sizeof({cty}): C {got}, Rust {size}"));
        }
    }
    assert!(
        bad.is_empty(),
        "layout differs from the system headers:\n{}",
        bad.join("\n")
    );
    eprintln!(
        "layout: {} fields and {} struct sizes match",
        fields.len(),
        sizes.len()
    );
}

/// Compiles and runs a C program whose `main` is `body`, with the system's
/// verbs and librdmacm headers included; returns what it prints.
pub(super) fn c_answers(name: &str, body: &str) -> String {
    let c = format!(
        "#include <stdio.h>\n#include <stddef.h>\n#include <rdma/rdma_cma.h>\n\
         #include <infiniband/verbs.h>\nint main(void) {{\n{body}return 0;\n}}\n"
    );
    let dir = std::env::temp_dir().join(format!("rdmaverbs-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join(format!("{name}.c"));
    let exe = dir.join(name);
    std::fs::write(&src, c).unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = std::process::Command::new(&cc)
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .status()
        .expect("run the C compiler");
    assert!(status.success(), "compiling {} failed", src.display());
    let out = std::process::Command::new(&exe).output().unwrap();
    std::fs::remove_dir_all(&dir).ok();
    String::from_utf8(out.stdout).unwrap()
}

/// The names of completion statuses are `enum ibv_wc_status`'s, by value.
#[test]
fn wc_status_names_match_header() {
    let names = crate::verbs::WC_STATUS;
    let body: String = names
        .iter()
        .map(|n| format!("printf(\"%d\\n\", (int)IBV_WC_{n});\n"))
        .collect();
    let text = c_answers("status", &body);
    let values: Vec<usize> = text.lines().map(|l| l.parse().unwrap()).collect();
    let want: Vec<usize> = (0..names.len()).collect();
    assert_eq!(
        values, want,
        "WC_STATUS in abi/src/verbs/mod.rs is out of step with verbs.h"
    );
}
