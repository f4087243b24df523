// The cfgs of the function table's rows, shared by the build scripts of the
// three crates of the library (`include!`d: `abi/build.rs`, and through the
// `links` metadata it sets, `observe/build.rs` and the top crate's
// `build.rs`): each row's name is a cfg, set when the build has the row;
// and `rdma_core_N`, set when the headers' release reaches N (CHANGES).

/// Declares the cfg of every row of `rows` and sets those of `present`.
pub fn emit(rows: &[&str], present: &[&str]) {
    for name in rows {
        println!("cargo::rustc-check-cfg=cfg({name})");
    }
    for name in present {
        println!("cargo::rustc-cfg={name}");
    }
}

/// In a crate above the ground floor: the rows and those the build has, as
/// the ground floor's build script found them.
#[allow(dead_code)]
pub fn emit_from_abi() {
    let list = |key: &str| {
        std::env::var(format!("DEP_IBVERBS_{key}"))
            .unwrap_or_else(|_| panic!("DEP_IBVERBS_{key}: rdmaverbs-abi's build script sets it"))
    };
    let (rows, present) = (list("ROWS"), list("PRESENT"));
    let split = |s: &'static str| s.split(',').filter(|n| !n.is_empty()).collect::<Vec<_>>();
    emit(&split(rows.leak()), &split(present.leak()));
}
