//! Unit tests of the workspace as a whole: the files generated from the
//! table are current ([`generated`]), and the shape of the sources
//! ([`shape`]). The C struct layouts are checked in `rdmaverbs-abi`.

mod generated;
mod shape;
