//! The cfgs of the function table's rows, as the ground floor's build
//! script found them in the system headers (`abi/build.rs`).

mod cfgs {
    include!("abi/build/cfgs.rs");
}

fn main() {
    cfgs::emit_from_abi();
}
