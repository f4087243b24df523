//! `<infiniband/verbs.h>` as the build's system header has it: bindgen's
//! bindings of its types, constants and libibverbs' functions, made by the
//! build script (`abi/build.rs`) from the header this build compiles
//! against, so that a size, an op's place or a field is that release's.

#![allow(
    non_upper_case_globals,
    non_camel_case_types,
    non_snake_case,
    missing_docs,
    unsafe_op_in_unsafe_fn,
    clippy::all
)]

include!(concat!(env!("OUT_DIR"), "/verbs.rs"));
