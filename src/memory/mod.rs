//! Per-node memory: the SQLite store, the prompt builder, the rolling-summary policy, the
//! facts kept verbatim beside the summary, and the text helpers they share (`text`).

pub mod facts;
pub mod prompt;
pub mod retention;
pub mod store;
pub mod summary;
pub mod text;

pub use store::{
    Context, Exchange, Expired, NodeStats, Role, Store, StoreError, StoredMessage, Summary,
    SummaryJob, SummarySave,
};
