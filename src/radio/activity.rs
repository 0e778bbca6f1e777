//! [`LinkActivity`]: what the link counts as it runs — when the node last sent a frame, since
//! when the link is ready, how often another client took the node — for the daemon's status
//! file and `!status`.
//!
//! Atomics written by the link and read by anyone, never waited on: the reader of the node
//! only stores a number per frame. Times are Unix seconds (wall clock, for people to read),
//! 0 meaning "never".

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use crate::clock;

/// The link's counters; shared as an `Arc` by [`super::Radio::activity`].
#[derive(Debug, Default)]
pub struct LinkActivity {
    /// The last frame from the node.
    last_frame: AtomicI64,
    /// When the current link became ready; 0 while it is not.
    ready_since: AtomicI64,
    /// How many times the link yielded the node to another client.
    takeovers: AtomicU64,
    /// When it last did.
    last_takeover: AtomicI64,
    /// How many nodes the mesh view holds.
    mesh_nodes: AtomicU64,
}

/// A copy of the counters at one moment; times are `None` for "never".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ActivitySnapshot {
    pub last_frame: Option<i64>,
    pub ready_since: Option<i64>,
    pub takeovers: u64,
    pub last_takeover: Option<i64>,
    /// How many nodes the mesh view holds.
    pub mesh_nodes: u64,
}

impl LinkActivity {
    /// A frame arrived from the node.
    pub(crate) fn frame(&self) {
        self.last_frame.store(clock::unix_now(), Ordering::Relaxed);
    }

    /// The link became ready (true) or went down (false).
    pub(crate) fn ready(&self, ready: bool) {
        let at = if ready { clock::unix_now() } else { 0 };
        self.ready_since.store(at, Ordering::Relaxed);
    }

    /// The link yielded the node to another client.
    pub(crate) fn taken_over(&self) {
        self.takeovers.fetch_add(1, Ordering::Relaxed);
        self.last_takeover
            .store(clock::unix_now(), Ordering::Relaxed);
    }

    /// The mesh view now holds `n` nodes.
    pub(crate) fn mesh_nodes(&self, n: usize) {
        let n = u64::try_from(n).unwrap_or(u64::MAX);
        self.mesh_nodes.store(n, Ordering::Relaxed);
    }

    pub(crate) fn snapshot(&self) -> ActivitySnapshot {
        let time = |a: &AtomicI64| Some(a.load(Ordering::Relaxed)).filter(|&t| t > 0);
        ActivitySnapshot {
            last_frame: time(&self.last_frame),
            ready_since: time(&self.ready_since),
            takeovers: self.takeovers.load(Ordering::Relaxed),
            last_takeover: time(&self.last_takeover),
            mesh_nodes: self.mesh_nodes.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_times() {
        let a = LinkActivity::default();
        assert_eq!(a.snapshot(), ActivitySnapshot::default());
        a.frame();
        a.ready(true);
        a.taken_over();
        a.taken_over();
        let s = a.snapshot();
        assert!(s.last_frame.is_some_and(|t| t > 1_600_000_000), "{s:?}");
        assert!(s.ready_since.is_some());
        assert_eq!(s.takeovers, 2);
        assert!(s.last_takeover.is_some());
        a.ready(false);
        assert_eq!(a.snapshot().ready_since, None);
    }
}
