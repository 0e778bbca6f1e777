//! Operator commands beside the daemon: `meshai check` (is everything reachable?), `meshai chat`
//! (try the bot from a terminal, no radio), the admin commands `history`, `forget` and
//! `stats` on the daemon's database, and `meshai knowledge` (the knowledge folder's index).
//!
//! Each command writes plain text to the writer it is given (stdout in `main.rs`); logs go to
//! stderr. The wording of advice and the layout of tables are pure functions in `advice` and
//! `format`, tested there; the command modules only gather facts and print them.

pub mod admin;
pub mod advice;
pub mod chat;
pub mod check;
pub(crate) mod daemons;
pub(crate) mod format;
pub mod init;
pub mod knowledge;

use std::path::Path;

use crate::store::{Store, StoreError};

/// Opens the store on a blocking thread: opening may migrate the schema and wait on locks.
pub(crate) async fn open_store(path: &Path) -> Result<Store, StoreError> {
    let path = path.to_path_buf();
    match tokio::task::spawn_blocking(move || Store::open(&path)).await {
        Ok(result) => result,
        Err(e) => Err(StoreError::Thread(std::io::Error::other(e.to_string()))),
    }
}

/// Whether an operator command failed only because its reader went away (`meshai stats |
/// head -1`): that ends the command quietly, as it ends `ls | head`.
pub fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
