//! A PKI DM and a command count once: before a worker acts on one, the store remembers its
//! sender and packet id (`Store::first_sighting`: the key for a PKI DM, the number for a
//! command without PKI), and a repeat — a replay of a captured packet, or a duplicate the
//! radio's two-hour filter no longer remembers — is ignored with a log line. The radio's
//! filter still drops the plain duplicates of everything else.

use tracing::{info, warn};

use crate::clock::unix_now;
use crate::radio::TextMessage;
use crate::store::{Sender, Store};

/// What a DM is, for counting it once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Command,
    /// A question (or `!more`): counted once only over PKI.
    Text,
}

/// Whether `msg` is to be acted on: not a PKI DM or command taken before. A store that cannot
/// say lets it through (logged): the store's own failure then shows where it matters.
pub(crate) async fn first_time(store: &Store, msg: &TextMessage, kind: Kind) -> bool {
    let sender = match (msg.public_key, kind) {
        (Some(key), _) => Sender::Key(key),
        (None, Kind::Command) => Sender::Node(msg.from),
        (None, Kind::Text) => return true,
    };
    match store
        .first_sighting(sender, msg.packet_id, unix_now())
        .await
    {
        Ok(true) => true,
        Ok(false) => {
            info!(
                packet = msg.packet_id,
                pki = msg.pki,
                "this PKI DM or command was taken before (same sender, same packet id): \
                 ignored, a replay or a late duplicate"
            );
            false
        }
        Err(e) => {
            warn!(error = %e, "could not check whether this packet came before; taking it");
            true
        }
    }
}
