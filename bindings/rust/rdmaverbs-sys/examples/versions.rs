//! librdmaverbs' functions as this crate binds them: `NAME VERSION` each,
//! the symbol version node its reference names (`nm -D` of this program
//! shows `U ibv_post_send@RDMAVERBS_1.3`: make test-bindings checks every
//! one).

fn main() {
    for (name, version, _) in rdmaverbs_sys::versioned() {
        println!("{name} {version}");
    }
}
