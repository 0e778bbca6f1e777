//! Who really sent a DM, and what it may do. The rules are sans-IO (`rules`: the verdict on
//! how a DM was heard, what it lets a text or a command do, the refusal lines and their
//! hourly report). The intake's `screen` decides every DM without a key to check, once,
//! before any worker sees it, and refuses those that only claim a PKI node's id; a node's
//! worker checks a PKI DM's key against the pinned one (`trust`, pinning it on first use),
//! then rules, once. `trust` also stores a message that will not be answered, when it is the
//! node's own. Whether the key table can be read at all is `keys`': when it cannot, trust
//! fails closed. A PKI DM or a command counts once, across restarts (`once`). See
//! `docs/security.md`.

pub(crate) mod keys;
pub(crate) mod once;
mod rules;
pub(crate) mod screen;
pub mod trust;

pub(crate) use rules::{Grant, Line, Rule, Scope, Verdict, Who, rule};
