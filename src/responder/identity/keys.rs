//! Whether the key table can be read: which nodes talk to us over PKI and the key pinned for
//! each (the store's `node_keys`). Trust fails closed: once the table could not be read (at
//! start, or a damaged page met later), nothing proves that a DM without PKI is not a forgery
//! of a PKI node's id, nor that a PKI DM's key is the pinned one. Until the database is
//! repaired and meshai restarted, a DM without PKI is answered without memory, runs no
//! command and is stored nowhere, and a PKI DM is answered without memory
//! (`rules::Heard::PlainUnknown`, `Why::Unchecked`).

use std::sync::atomic::{AtomicBool, Ordering};

use tracing::error;

use crate::store::StoreError;

/// The recovery the log line, `!status` and `meshai check` point to.
pub(crate) const RECOVERY: &str =
    "repair the database (docs/raspberry-pi.md, section 11) and restart meshai";

/// Whether the key table could be read so far (shared by the intake's screen and the workers).
#[derive(Debug, Default)]
pub(crate) struct KeyTable {
    unreadable: AtomicBool,
}

impl KeyTable {
    /// Whether every read of the key table worked so far.
    pub(crate) fn readable(&self) -> bool {
        !self.unreadable.load(Ordering::Relaxed)
    }

    /// Trust fails closed from now on, after `error` (logged the first time, with what it
    /// means and what to do).
    pub(crate) fn fail_closed(&self, error: &StoreError) {
        if !self.unreadable.swap(true, Ordering::Relaxed) {
            error!(
                error = %error,
                "cannot read which nodes use PKI or their pinned keys (node_keys): trust fails \
                 closed — DMs without PKI are answered without memory, run no command and are \
                 stored nowhere; PKI DMs are answered without memory — until you {RECOVERY}"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_closes_once_and_stays_closed() {
        let keys = KeyTable::default();
        assert!(keys.readable());
        keys.fail_closed(&StoreError::Closed);
        assert!(!keys.readable());
        keys.fail_closed(&StoreError::Closed);
        assert!(!keys.readable());
    }
}
