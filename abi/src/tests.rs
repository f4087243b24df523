//! The layout of every C struct field the library reads or writes, against
//! the system headers (`offsetof` in C, `offset_of!` here), and the values
//! of the enums it names.

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
    ]
}

#[test]
fn layout_matches_system_headers() {
    use crate::verbs::*;
    use ibverbs_sys::ibv_context_ops;
    let fields = fields! {
        "struct rdma_cm_id" rdma_cm_id {
            "verbs" => verbs, "qp" => qp, "send_cq_channel" => send_cq_channel,
            "send_cq" => send_cq, "recv_cq_channel" => recv_cq_channel,
            "recv_cq" => recv_cq, "srq" => srq, "pd" => pd, "qp_type" => qp_type,
            "route" => route, "route.addr.src_storage" => route.src_addr,
            "route.addr.dst_storage" => route.dst_addr,
        }
        "struct ibv_context" ibv_context { "ops" => ops, "abi_compat" => abi_compat }
        "struct ibv_qp_init_attr_ex" ibverbs_sys::ibv_qp_init_attr_ex { "comp_mask" => comp_mask }
        "struct ibv_qp_ex" ibverbs_sys::ibv_qp_ex {
            "qp_base.qp_num" => qp_base.qp_num, "wr_id" => wr_id, "wr_flags" => wr_flags,
            "wr_start" => wr_start, "wr_send" => wr_send, "wr_send_imm" => wr_send_imm,
            "wr_rdma_write" => wr_rdma_write, "wr_rdma_write_imm" => wr_rdma_write_imm,
            "wr_rdma_read" => wr_rdma_read, "wr_set_sge" => wr_set_sge,
            "wr_set_sge_list" => wr_set_sge_list, "wr_set_inline_data" => wr_set_inline_data,
            "wr_complete" => wr_complete, "wr_abort" => wr_abort,
        }
        "struct ibv_cq_ex" ibverbs_sys::ibv_cq_ex {
            "wr_id" => wr_id, "status" => status, "start_poll" => start_poll,
            "next_poll" => next_poll, "end_poll" => end_poll, "read_opcode" => read_opcode,
            "read_vendor_err" => read_vendor_err, "read_byte_len" => read_byte_len,
        }
        "struct ibv_context_ops" ibv_context_ops {
            "poll_cq" => poll_cq, "req_notify_cq" => req_notify_cq,
            "post_srq_recv" => post_srq_recv, "post_send" => post_send,
            "post_recv" => post_recv,
        }
        "struct ibv_qp" ibv_qp { "context" => context, "qp_num" => qp_num, "qp_type" => qp_type }
        "struct ibv_srq" ibv_srq { "context" => context }
        "struct ibv_cq" ibv_cq { "context" => context }
        "struct ibv_comp_channel" ibv_comp_channel { "fd" => fd }
        "struct ibv_mr" ibv_mr {
            "addr" => addr, "length" => length, "lkey" => lkey, "rkey" => rkey,
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

/// The members of `struct verbs_context` that the preload library reaches
/// from the `ibv_context` inside it: their distance to `context` (its last
/// member), as `verbs_context_tail` has them, against the system header.
#[test]
fn verbs_context_tail_matches_system_header() {
    use crate::verbs::verbs_context_tail as T;
    use core::mem::offset_of;
    let rust = [
        (
            "create_cq_ex",
            offset_of!(T, context) - offset_of!(T, create_cq_ex),
        ),
        (
            "create_qp_ex",
            offset_of!(T, context) - offset_of!(T, create_qp_ex),
        ),
        ("sz", offset_of!(T, context) - offset_of!(T, sz)),
    ];
    let body: String = rust
        .iter()
        .map(|(m, _)| {
            format!(
                "printf(\"%zu\\n\", offsetof(struct verbs_context, context) - \
                 offsetof(struct verbs_context, {m}));\n"
            )
        })
        .collect();
    let text = c_answers("vctx", &body);
    let c: Vec<usize> = text.lines().map(|l| l.parse().unwrap()).collect();
    let want: Vec<usize> = rust.iter().map(|(_, d)| *d).collect();
    assert_eq!(c, want, "verbs_context_tail differs from verbs.h: {rust:?}");
}

/// Compiles and runs a C program whose `main` is `body`, with the system's
/// verbs and librdmacm headers included; returns what it prints.
fn c_answers(name: &str, body: &str) -> String {
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
        "WC_STATUS in abi/src/verbs.rs is out of step with verbs.h"
    );
}
