//! Per-node memory on top of the store: the prompt builder and the rolling-summary policy.
//! The SQLite store they read and write is `crate::store`; the facts kept verbatim beside the
//! summary are picked by `crate::facts`, and the text helpers are `crate::text`.

pub mod layout;
pub mod summary;
