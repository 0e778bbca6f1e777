//! Per-node memory: the SQLite store, the prompt builder and the rolling-summary policy.

pub mod prompt;
pub mod retention;
pub mod store;
pub mod summary;

pub use store::{
    Context, Exchange, Expired, NodeStats, Role, Store, StoreError, StoredMessage, Summary,
    SummaryJob,
};
