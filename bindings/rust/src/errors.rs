//! The errors of this crate beside `std::io::Error`: a post's
//! ([`PostError`], with the work requests not posted).

use std::fmt;
use std::io;

/// A post that failed: the error (of the errno value the provider
/// returned), and the work requests not posted, with their buffers; those
/// before them were posted. `?` turns it into its `io::Error`.
pub struct PostError<W> {
    pub error: io::Error,
    pub unposted: Vec<W>,
}

impl<W> fmt::Debug for PostError<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "PostError {{ error: {:?}, unposted: {} }}",
            self.error,
            self.unposted.len()
        )
    }
}

impl<W> fmt::Display for PostError<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "post: {} ({} work requests not posted)",
            self.error,
            self.unposted.len()
        )
    }
}

impl<W> std::error::Error for PostError<W> {}

impl<W> From<PostError<W>> for io::Error {
    fn from(e: PostError<W>) -> io::Error {
        e.error
    }
}
