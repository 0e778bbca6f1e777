//! What to do about a failed check: one line of advice per kind of failure, for the database,
//! the knowledge folder, the LLM server and the radio; and the daemon's error as `meshai run`
//! reports it, with the same advice. Pure functions of the error and the config, table-tested.

use std::io::ErrorKind;
use std::path::Path;

use rusqlite::ErrorCode;

use crate::llm::LlmError;
use crate::radio::{DownReason, Transport};
use crate::secret::redact_urls;
use crate::store::{Damage, KnowledgeIndex, StoreError};

/// Ollama's port: a refused connection there most likely means Ollama is not running.
const OLLAMA_PORT: u16 = 11434;

/// Advice for a database that would not open, or `None` when the message says it all.
pub fn database(error: &StoreError) -> Option<String> {
    match error {
        StoreError::MissingDirectory { dir, .. } => Some(format!(
            "create it: `mkdir -p {}` for yourself, `sudo install -d -o meshai -g meshai {}` \
             for the service (or set `StateDirectory=meshai` in the systemd unit); `meshai \
             init` picks a folder you can write",
            dir.display(),
            dir.display()
        )),
        StoreError::Open { path, source } | StoreError::Migration { path, source, .. } => {
            match source.sqlite_error_code() {
                // SQLite says only "unable to open" for a folder; no owner makes it a file.
                Some(ErrorCode::CannotOpen) if path.is_dir() => Some(format!(
                    "{} is a folder, not a file: point [storage] database at a file in it, \
                     e.g. `database = \"{}\"`",
                    path.display(),
                    path.join("meshai.db").display()
                )),
                Some(
                    ErrorCode::CannotOpen
                    | ErrorCode::PermissionDenied
                    | ErrorCode::ReadOnly
                    | ErrorCode::AuthorizationForStatementDenied,
                ) => Some(format!(
                    "this user cannot open it. For the service, the meshai user must own that \
                     folder (`sudo chown -R meshai: {}`) and checks run as it (`sudo -u meshai \
                     meshai check`); to run meshai as yourself, `meshai init` writes a config of \
                     your own with a database you can write",
                    dir_of(path)
                )),
                Some(ErrorCode::NotADatabase) => Some(format!(
                    "{} is not an SQLite database: move it away or point [storage] database \
                     elsewhere; if it was meshai's, its first page is damaged: {}",
                    path.display(),
                    damaged(Damage::File)
                )),
                Some(ErrorCode::DatabaseCorrupt) => Some(damaged(Damage::File)),
                Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
                    Some("another process holds a long lock on the database; try again".into())
                }
                Some(ErrorCode::DiskFull) => Some("the disk is full: free some space".into()),
                _ => None,
            }
        }
        StoreError::UnknownVersion { .. } => {
            Some("the database was written by a newer meshai: upgrade meshai".into())
        }
        StoreError::Damaged { part, .. } => Some(damaged(*part)),
        _ => None,
    }
}

/// What to do about a damaged database (`meshai check`'s `quick_check`, or a failed call).
pub(crate) fn damaged(damage: Damage) -> String {
    match damage {
        Damage::Index => "only the search index is damaged, which holds nothing the messages do \
             not: meshai rebuilds it at its next start (`sudo systemctl restart meshai`)"
            .into(),
        Damage::File => "meshai answers without memory until it is repaired: stop meshai, copy \
             the database with its -wal and -shm files as a backup, then recover what can be \
             read (sqlite3's .recover) or delete it — docs/raspberry-pi.md, \"A damaged \
             database\""
            .into(),
    }
}

/// What a node in licensed (ham) mode means for meshai, and the way back.
pub(crate) fn licensed() -> String {
    "licensed mode turns PKI off on this node: no DM can be proven, so [access] require_pki \
     and pinned keys cannot work — nodes that used PKI are answered without memory and run no \
     command but !help. To use PKI again turn licensed mode off on the node; to keep it, let \
     those users start afresh (`meshai forget NODE`). docs/security.md, \"Licensed nodes\""
        .into()
}

/// What to do when the key table (which nodes use PKI, their pinned keys) cannot be read:
/// trust fails closed until it is repaired.
pub(crate) fn keys_unreadable() -> String {
    "trust fails closed: DMs without PKI are answered without memory and run no command, PKI \
     DMs are answered without memory; stop meshai, keep a copy of the database with its -wal \
     and -shm files, recover it (sqlite3's .recover) — docs/raspberry-pi.md, \"A damaged \
     database\" — and start meshai again. Do not delete only the key table: every PKI node \
     would then be pinned again by whoever sends first"
        .into()
}

/// What to do about an embedding server that gave no vector: answers still come, with
/// passages found by words alone.
pub(crate) fn embeddings(error: &LlmError, model: &str) -> String {
    let fix = match error {
        LlmError::Status { status: 404, .. } => format!(
            "the server does not serve embeddings of {model:?} (llama.cpp's server needs \
             --embeddings and a model that makes them; Ollama: `ollama pull {model}`)"
        ),
        LlmError::Status { status: 501, .. } => {
            "start llama.cpp's server with --embeddings (and --pooling mean for most \
             embedding models)"
                .to_string()
        }
        LlmError::Connect(_) | LlmError::Timeout => {
            "start the embedding server, or fix [knowledge.embeddings] base_url".to_string()
        }
        _ => format!("check that {model:?} is an embedding model the server serves"),
    };
    format!("{fix}; until then passages are found by words alone")
}

/// What to do about a knowledge folder that cannot be read.
pub(crate) fn knowledge_folder(dir: &Path, error: &std::io::Error) -> String {
    let dir = dir.display();
    match error.kind() {
        ErrorKind::NotFound => format!(
            "create it (`sudo install -d -o meshai -g meshai {dir}`) and put .md or .txt files \
             in it, or fix [knowledge] dir"
        ),
        ErrorKind::PermissionDenied => format!(
            "the meshai user must be able to read it: `sudo chown -R meshai: {dir}`; under \
             systemd a folder in /home is hidden (ProtectHome=): put it elsewhere"
        ),
        _ => format!("check that {dir} is a readable folder, or fix [knowledge] dir"),
    }
}

/// What to do about a knowledge index that works: `pending` files of the folder changed since
/// it was indexed, and whether anyone may get its private passages; `None` when nothing.
pub(crate) fn knowledge_index(
    index: &KnowledgeIndex,
    pending: usize,
    readers: bool,
) -> Option<String> {
    let mut advice = Vec::new();
    if pending > 0 {
        advice.push(format!(
            "{pending} file{} changed since it was indexed: `sudo systemctl reload meshai` (or \
             `meshai knowledge reindex`)",
            if pending == 1 { "" } else { "s" }
        ));
    }
    if index.skipped > 0 {
        advice.push("`meshai knowledge list` says why files were skipped".into());
    }
    if index.private_passages > 0 && !readers {
        advice.push("private documents go to no one: list nodes in [knowledge] private_to".into());
    }
    (!advice.is_empty()).then(|| advice.join("; "))
}

/// The daemon's error (`meshai::run`) as `meshai run` reports it: a database that would not
/// open gets the advice `meshai check` gives (the fix, not only the symptom), after ` → `;
/// any other error is its chain of causes.
pub fn run_error(error: &anyhow::Error) -> String {
    match error.downcast_ref::<StoreError>() {
        Some(e) => match database(e) {
            Some(advice) => format!("{e} → {advice}"),
            None => e.to_string(),
        },
        None => format!("{error:#}"),
    }
}

/// The directory holding `path`, for advice (`.` when it has none).
fn dir_of(path: &Path) -> String {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.display().to_string(),
        _ => ".".into(),
    }
}

/// Advice for a failed test request to the LLM server.
///
/// `base_url` and `model` are as configured; `api_key_env` names the variable the key is read
/// from. The URL's user info is never repeated.
pub(crate) fn llm(
    error: &LlmError,
    base_url: &str,
    model: &str,
    api_key_env: Option<&str>,
) -> Option<String> {
    let base_url = redact_urls(base_url);
    match error {
        LlmError::Connect(reason) if contains(reason, "connection refused") => {
            if port_of(&base_url) == Some(OLLAMA_PORT) {
                Some("start Ollama: `systemctl start ollama`".into())
            } else {
                Some(format!("is the server running at {base_url}?"))
            }
        }
        LlmError::Connect(reason) if contains(reason, "dns") || contains(reason, "lookup") => {
            Some("cannot resolve the host name: check [llm] base_url and the network".into())
        }
        LlmError::Connect(_) => Some(format!(
            "is the server running at {base_url}, and reachable from here?"
        )),
        LlmError::Status { status: 404, .. } => Some(format!(
            "model not found: `ollama pull {model}`; also check that [llm] base_url ends in /v1"
        )),
        LlmError::Status {
            status: 401 | 403, ..
        } => Some(match api_key_env {
            Some(var) => format!("set the API key in ${var}"),
            None => "set [llm] api_key_env and put the API key in that variable".into(),
        }),
        LlmError::Timeout => Some(
            "the model is slow to load; raise [llm] timeout_secs or try a smaller model".into(),
        ),
        LlmError::BadResponse(_) => Some(
            "the server answered, but not like an OpenAI-compatible API: does [llm] base_url \
             end in /v1?"
                .into(),
        ),
        LlmError::Status { .. } | LlmError::Empty | LlmError::Setup(_) => None,
    }
}

/// The port of an `http(s)://host[:port]/...` URL, the scheme's default when absent.
fn port_of(url: &str) -> Option<u16> {
    reqwest::Url::parse(url).ok()?.port_or_known_default()
}

/// Advice for a radio link that went down during the check: by the kind of I/O error behind
/// a failed open, read or write, and for every kind of time-out the handshake's.
pub fn radio(reason: &DownReason, transport: &Transport) -> Option<String> {
    let serial = transport.device().is_some();
    if let DownReason::HandshakeTimeout
    | DownReason::ConnectTimeout { .. }
    | DownReason::WriteTimeout = reason
    {
        return Some(handshake());
    }
    if *reason == DownReason::TakenOver {
        return Some(shared_node());
    }
    match (reason.io_kind()?, serial) {
        (ErrorKind::PermissionDenied, true) => Some(
            "add the user to the dialout group: `sudo usermod -aG dialout $USER`, then log in again"
                .into(),
        ),
        (ErrorKind::NotFound, true) => {
            Some("is the node plugged in? `ls /dev/ttyUSB* /dev/ttyACM*`".into())
        }
        (ErrorKind::ResourceBusy | ErrorKind::WouldBlock | ErrorKind::AddrInUse, _) => Some(
            "another program has the node open (the meshtastic CLI, a serial monitor, the \
             phone app over WiFi, another meshai: `sudo systemctl stop meshai`): close it"
                .into(),
        ),
        (ErrorKind::ConnectionRefused, _) => {
            Some("is the node's WiFi/TCP API on, and the address right?".into())
        }
        (ErrorKind::HostUnreachable | ErrorKind::NetworkUnreachable, _) => {
            Some("the address cannot be reached: is the node on this network?".into())
        }
        (ErrorKind::TimedOut, _) => Some(handshake()),
        _ => None,
    }
}

/// Advice when the node took the connection but never finished the config download.
pub(crate) fn handshake() -> String {
    "the node did not answer the config request; on serial, enable the serial API (Serial \
     module off or in DEFAULT mode, not SIMPLE) and check the baud rate"
        .into()
}

/// Advice when another client keeps taking the node's one TCP API slot.
pub(crate) fn shared_node() -> String {
    "another client (the phone app over WiFi, a status page, a second meshai) keeps taking \
     the node's only TCP API slot: give meshai a serial link and the phone Bluetooth, or \
     connect every client through a multi-client proxy (docs/raspberry-pi.md, \"Sharing the \
     node\")"
        .into()
}

/// Case-insensitive substring test (OS error texts differ in case between platforms).
fn contains(haystack: &str, needle: &str) -> bool {
    haystack.to_lowercase().contains(needle)
}

#[cfg(test)]
mod tests;
