//! The SQLite store: the only module that runs SQL.
//!
//! One dedicated `std::thread` owns the `rusqlite::Connection` (an actor). Async callers send a
//! job over a bounded channel and await its `oneshot` reply, so no tokio worker ever blocks on
//! the SD card. The database runs in WAL mode with `synchronous=FULL`: a message the store has
//! acknowledged survives a power cut, and the admin CLI can read and write the same file from
//! another process while the daemon runs (`busy_timeout` absorbs short lock waits).
//!
//! `handle` is the async handle (open, close, the job queue) and `error` why a call failed
//! (`StoreError`, and which part of a damaged file); each other file owns one part of the
//! database, its `Store` calls and their synchronous SQL, which runs on the database thread
//! only. This file only declares them and re-exports what code outside the store uses; inside
//! the store, each file imports an item from the file that defines it (`tests/it/layers/hub.rs`
//! checks).
//!
//! - `conversations`: a node's messages, the memory a reply is built from (`context`), its
//!   history and `reset`; `retrieval` the older exchanges that match a new message; `reply` a
//!   streamed reply's row as it grows;
//! - `summaries`: the rolling summary, the facts kept beside it, the fold that is due;
//! - `nodes`: each node's names, last-heard time and usage counters, `meshai stats`;
//! - `keys`: the public key pinned for each node that talks to us over PKI;
//! - `renumber`: a person is their key — a renumbered node's rows moved to its new number,
//!   the old numbers as aliases;
//! - `replay`: the PKI DMs and commands already taken (sender, packet id), which count once;
//! - `knowledge`: the operator's documents as passages with their own full-text index (its
//!   child `vectors`: their embeddings, with `[knowledge.embeddings]`);
//! - `airtime`: the channel's last reading for `meshai stats`;
//! - `mail`: the messages left with `!tell` until their recipient is heard;
//! - `watches`: the watches set with `!watch`, and whether each held at the last look;
//! - `bulletins`: the drop folder's topics people subscribed to, and the bulletins sent;
//! - `mesh`: the mesh view kept across restarts, saved once a minute and at shutdown;
//! - `retention`: `[storage] retain_days`, the daily expiry task and what expiry deletes;
//! - `damage`: what the store does about a damaged file: the start check, the search-index
//!   entries written best-effort, the indexes rebuilt (which part is damaged: `error`);
//! - `schema` the connection settings and the versioned migrations, `fts` user text as a safe
//!   FTS5 query, `sql` how values are stored, `types` the values the calls take and return.
//!
//! Writes use immediate transactions: in WAL mode a deferred transaction that later wants to
//! write can fail with `SQLITE_BUSY` without waiting, while an immediate one waits for the
//! write lock under `busy_timeout` like any other statement.
//!
//! A damaged file (SQLITE_CORRUPT, SQLITE_NOTADB) does not stop the store: every call is still
//! tried, one that fails returns [`StoreError::Damaged`], and the damage is logged once per
//! kind (see `damage`). Retrieval is best-effort: when the search index fails, the context
//! comes without retrieved exchanges, and a reply is stored without its index entry.
//!
//! A database file the store creates is 0600: it holds every node's conversation.

mod airtime;
mod bulletins;
mod conversations;
mod damage;
mod error;
mod fts;
mod handle;
mod keys;
mod knowledge;
mod mail;
pub mod mesh;
mod nodes;
mod renumber;
mod replay;
mod reply;
pub(crate) mod retention;
mod retrieval;
mod schema;
mod sql;
mod standings;
mod summaries;
#[cfg(test)]
mod tests;
mod types;
mod watches;

pub(crate) use airtime::AirtimeRecord;
pub(crate) use bulletins::{News, Subscribed};
pub(crate) use damage::Health;
pub(crate) use error::Damage;
pub use error::StoreError;
pub(crate) use fts::{content_words, is_term};
pub use handle::Store;
pub use keys::{KeyAccepted, NodeKey, PkiNodes};
pub use knowledge::{
    Embedded, KnowledgeChange, KnowledgeFile, KnowledgeHit, KnowledgeIndex, NewPassage, Passages,
    Unembedded, embed_input, fnv1a, unit,
};
pub use mail::{Mail, MailQuota, NewMail, Posted};
pub(crate) use renumber::{Moved, Numbers};
pub(crate) use replay::Sender;
pub(crate) use retention::Expired;
pub use standings::{Earned, Noted, Over, PinnedKey};
pub use types::{
    Context, Exchange, FoldRule, NodeStats, RetiredFact, Role, Said, StoredMessage, Summary,
    SummaryJob, SummarySave, Window,
};
pub(crate) use watches::{Added, NewWatch, Watch};
