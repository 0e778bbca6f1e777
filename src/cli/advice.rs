//! What to do about a failed check: one line of advice per kind of failure, for the database,
//! the LLM server and the radio. Pure functions of the error and the config, table-tested.

use std::path::Path;

use rusqlite::ErrorCode;

use crate::llm::LlmError;
use crate::memory::store::StoreError;
use crate::radio::Transport;

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
                Some(
                    ErrorCode::CannotOpen
                    | ErrorCode::PermissionDenied
                    | ErrorCode::ReadOnly
                    | ErrorCode::AuthorizationForStatementDenied,
                ) => Some(format!(
                    "the meshai user must own {} and the files in it: `sudo chown -R meshai: {}`; \
                     run the check as that user: `sudo -u meshai meshai check`",
                    dir_of(path),
                    dir_of(path)
                )),
                Some(ErrorCode::NotADatabase) => Some(format!(
                    "{} is not an SQLite database: move it away or point [storage] database \
                     elsewhere",
                    path.display()
                )),
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
        _ => None,
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
/// from.
pub fn llm(
    error: &LlmError,
    base_url: &str,
    model: &str,
    api_key_env: Option<&str>,
) -> Option<String> {
    match error {
        LlmError::Connect(reason) if contains(reason, "connection refused") => {
            if port_of(base_url) == Some(OLLAMA_PORT) {
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

/// Advice for a radio link that went down during the check; `reason` is the link's text.
pub fn radio(reason: &str, transport: &Transport) -> Option<String> {
    let serial = matches!(transport, Transport::Serial { .. });
    if serial && contains(reason, "permission denied") {
        Some(
            "add the user to the dialout group: `sudo usermod -aG dialout $USER`, then log in again"
                .into(),
        )
    } else if serial && (contains(reason, "no such file") || contains(reason, "not found")) {
        Some("is the node plugged in? `ls /dev/ttyUSB* /dev/ttyACM*`".into())
    } else if contains(reason, "in use") || contains(reason, "busy") {
        Some(
            "another program has the node open (the meshtastic CLI, a serial monitor, the \
             phone app over WiFi, another meshai: `sudo systemctl stop meshai`): close it"
                .into(),
        )
    } else if contains(reason, "connection refused") {
        Some("is the node's WiFi/TCP API on, and the address right?".into())
    } else if contains(reason, "unreachable") || contains(reason, "no route") {
        Some("the address cannot be reached: is the node on this network?".into())
    } else if contains(reason, "handshake") || contains(reason, "timed out") {
        Some(handshake())
    } else {
        None
    }
}

/// Advice when the node took the connection but never finished the config download.
pub fn handshake() -> String {
    "the node did not answer the config request; on serial, enable the serial API (Serial \
     module off or in DEFAULT mode, not SIMPLE) and check the baud rate"
        .into()
}

/// Case-insensitive substring test (OS error texts differ in case between platforms).
fn contains(haystack: &str, needle: &str) -> bool {
    haystack.to_lowercase().contains(needle)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn llm_advice_by_error_kind() {
        let check = |error: LlmError, url: &str, env: Option<&str>, want: Option<&str>| {
            let got = llm(&error, url, "qwen2.5:1.5b", env);
            match (got.as_deref(), want) {
                (Some(g), Some(w)) => assert!(g.contains(w), "{error:?}: {g:?} lacks {w:?}"),
                (None, None) => {}
                (g, w) => panic!("{error:?}: got {g:?}, want {w:?}"),
            }
        };
        let refused = || {
            LlmError::Connect(
                "error sending request: client error (Connect): tcp connect error: Connection \
                 refused (os error 111)"
                    .into(),
            )
        };
        let ollama = "http://127.0.0.1:11434/v1";
        let other = "http://127.0.0.1:8080/v1";
        let status = |status| LlmError::Status {
            status,
            body: String::new(),
            retry_after: None,
        };
        check(refused(), ollama, None, Some("`systemctl start ollama`"));
        check(
            refused(),
            other,
            None,
            Some("is the server running at http://127.0.0.1:8080/v1?"),
        );
        check(
            LlmError::Connect("dns error: failed to lookup address information".into()),
            "http://ollama.lan/v1",
            None,
            Some("cannot resolve"),
        );
        check(
            status(404),
            ollama,
            None,
            Some("`ollama pull qwen2.5:1.5b`"),
        );
        check(status(404), ollama, None, Some("ends in /v1"));
        check(
            status(401),
            other,
            Some("MESHAI_API_KEY"),
            Some("set the API key in $MESHAI_API_KEY"),
        );
        check(status(403), other, None, Some("api_key_env"));
        check(
            LlmError::Timeout,
            ollama,
            None,
            Some("raise [llm] timeout_secs"),
        );
        check(
            LlmError::BadResponse("no choices".into()),
            other,
            None,
            Some("OpenAI-compatible"),
        );
        check(status(500), other, None, None);
    }

    #[test]
    fn radio_advice_by_reason() {
        let serial = Transport::Serial {
            path: "/dev/ttyUSB0".into(),
            baud: 115_200,
        };
        let tcp = Transport::Tcp {
            host: "127.0.0.1".into(),
            port: 4403,
        };
        let check = |reason: &str, t: &Transport, want: Option<&str>| {
            let got = radio(reason, t);
            match (got.as_deref(), want) {
                (Some(g), Some(w)) => assert!(g.contains(w), "{reason:?}: {g:?} lacks {w:?}"),
                (None, None) => {}
                (g, w) => panic!("{reason:?}: got {g:?}, want {w:?}"),
            }
        };
        check(
            "cannot open /dev/ttyUSB0: Permission denied (os error 13)",
            &serial,
            Some("usermod -aG dialout"),
        );
        check(
            "cannot open /dev/ttyUSB0: No such file or directory (os error 2)",
            &serial,
            Some("ls /dev/ttyUSB* /dev/ttyACM*"),
        );
        check(
            "cannot connect to 127.0.0.1:4403: Connection refused (os error 111)",
            &tcp,
            Some("WiFi/TCP API"),
        );
        check(
            "cannot connect: No route to host (os error 113)",
            &tcp,
            Some("cannot be reached"),
        );
        check(
            "handshake timed out after 30 s",
            &serial,
            Some("enable the serial API"),
        );
        check(
            "cannot connect to /dev/ttyUSB0: Device or resource busy (the port is in use by \
             another program)",
            &serial,
            Some("`sudo systemctl stop meshai`"),
        );
        check(
            "handshake timed out after 30 s",
            &tcp,
            Some("config request"),
        );
        check("the node closed the connection", &tcp, None);
    }

    #[test]
    fn database_advice_by_error() {
        let path = PathBuf::from("/var/lib/meshai/meshai.db");
        let sqlite = |code| rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), None);
        let check = |error: StoreError, want: Option<&str>| {
            let got = database(&error);
            match (got.as_deref(), want) {
                (Some(g), Some(w)) => assert!(g.contains(w), "{error:?}: {g:?} lacks {w:?}"),
                (None, None) => {}
                (g, w) => panic!("{error:?}: got {g:?}, want {w:?}"),
            }
        };
        check(
            StoreError::MissingDirectory {
                path: path.clone(),
                dir: "/var/lib/meshai".into(),
            },
            Some("StateDirectory="),
        );
        check(
            StoreError::Open {
                path: path.clone(),
                source: sqlite(rusqlite::ffi::SQLITE_CANTOPEN),
            },
            Some("must own /var/lib/meshai"),
        );
        check(
            StoreError::Open {
                path: path.clone(),
                source: sqlite(rusqlite::ffi::SQLITE_READONLY),
            },
            Some("sudo chown -R meshai: /var/lib/meshai"),
        );
        check(
            StoreError::Open {
                path: path.clone(),
                source: sqlite(rusqlite::ffi::SQLITE_NOTADB),
            },
            Some("not an SQLite database"),
        );
        check(
            StoreError::UnknownVersion {
                path,
                found: 9,
                supported: 1,
            },
            Some("newer meshai"),
        );
        check(StoreError::Closed, None);
    }
}
