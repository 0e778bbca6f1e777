//! The responder's counters since start, for an admin's `!status`: a leaf every room may
//! count into (the intake, the answer, the summaries, the notices).

use std::sync::atomic::AtomicU64;

/// Counters for an admin's `!status`.
#[derive(Debug, Default)]
pub struct Counters {
    pub dms: AtomicU64,
    pub replies: AtomicU64,
    pub notices: AtomicU64,
    pub llm_failures: AtomicU64,
    pub llm_ms_total: AtomicU64,
    pub llm_calls: AtomicU64,
    /// Summary calls started, saved, cancelled by a reply, and failed (LLM error or refused).
    pub summaries_started: AtomicU64,
    pub summaries: AtomicU64,
    pub summaries_cancelled: AtomicU64,
    pub summary_failures: AtomicU64,
    /// Folds run before a reply because the backlog reached its hard cap.
    pub folds_at_cap: AtomicU64,
    /// Texts not answered because too many turns waited (or a new node's earlier one did).
    pub turns_refused: AtomicU64,
    /// New nodes' turns that gave way to a message of higher standing.
    pub turns_displaced: AtomicU64,
    /// Turns not given the LLM within `[limits] max_turn_wait_secs`.
    pub turns_expired: AtomicU64,
}
