//! Advice by kind of failure, table-tested: the database, the LLM server, the radio, and `meshai run`'s error.

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
    let serial = Transport::serial("/dev/ttyUSB0", 115_200);
    let tcp = Transport::tcp("127.0.0.1", 4403);
    let check = |reason: DownReason, t: &Transport, want: Option<&str>| {
        let got = radio(&reason, t);
        match (got.as_deref(), want) {
            (Some(g), Some(w)) => assert!(g.contains(w), "{reason:?}: {g:?} lacks {w:?}"),
            (None, None) => {}
            (g, w) => panic!("{reason:?}: got {g:?}, want {w:?}"),
        }
    };
    let connect = |t: &Transport, kind| DownReason::Connect {
        serial: t.device().is_some(),
        kind,
        message: String::new(),
    };
    check(
        connect(&serial, ErrorKind::PermissionDenied),
        &serial,
        Some("usermod -aG dialout"),
    );
    check(connect(&tcp, ErrorKind::PermissionDenied), &tcp, None);
    check(
        connect(&serial, ErrorKind::NotFound),
        &serial,
        Some("ls /dev/ttyUSB* /dev/ttyACM*"),
    );
    check(connect(&tcp, ErrorKind::NotFound), &tcp, None);
    check(
        connect(&tcp, ErrorKind::ConnectionRefused),
        &tcp,
        Some("WiFi/TCP API"),
    );
    check(
        connect(&tcp, ErrorKind::HostUnreachable),
        &tcp,
        Some("cannot be reached"),
    );
    check(
        connect(&tcp, ErrorKind::NetworkUnreachable),
        &tcp,
        Some("cannot be reached"),
    );
    check(
        DownReason::HandshakeTimeout,
        &serial,
        Some("enable the serial API"),
    );
    check(
        connect(&serial, ErrorKind::ResourceBusy),
        &serial,
        Some("`sudo systemctl stop meshai`"),
    );
    check(
        connect(&serial, ErrorKind::WouldBlock),
        &serial,
        Some("`sudo systemctl stop meshai`"),
    );
    check(DownReason::HandshakeTimeout, &tcp, Some("config request"));
    check(
        DownReason::ConnectTimeout {
            target: "127.0.0.1:4403".into(),
        },
        &tcp,
        Some("config request"),
    );
    check(DownReason::WriteTimeout, &serial, Some("config request"));
    check(
        connect(&tcp, ErrorKind::TimedOut),
        &tcp,
        Some("config request"),
    );
    check(
        DownReason::Read {
            kind: Some(ErrorKind::TimedOut),
            error: String::new(),
        },
        &serial,
        Some("config request"),
    );
    check(DownReason::ClosedByNode, &tcp, None);
    check(DownReason::TakenOver, &tcp, Some("multi-client proxy"));
    check(DownReason::Silent, &tcp, None);
    check(DownReason::Rebooted, &serial, None);
    check(
        DownReason::Read {
            kind: None,
            error: String::new(),
        },
        &serial,
        None,
    );
}

#[test]
fn run_errors_carry_the_database_advice() {
    let missing = StoreError::MissingDirectory {
        path: "/var/lib/meshai/meshai.db".into(),
        dir: "/var/lib/meshai".into(),
    };
    let text = run_error(&anyhow::Error::new(missing));
    assert!(
        text.starts_with(
            "cannot open database /var/lib/meshai/meshai.db: directory /var/lib/meshai does \
             not exist → create it: `mkdir -p /var/lib/meshai`"
        ),
        "{text}"
    );
    // The SQLite error is said once, not again as the cause.
    let busy = StoreError::Open {
        path: "db".into(),
        source: rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
            None,
        ),
    };
    let text = run_error(&anyhow::Error::new(busy));
    assert_eq!(text.matches("database file is locked").count(), 1, "{text}");
    assert!(text.ends_with(" → another process holds a long lock on the database; try again"));
    assert_eq!(
        run_error(&anyhow::Error::new(StoreError::Closed)),
        "database is closed"
    );
    let other = anyhow::anyhow!("refused").context("cannot set up the LLM client");
    assert_eq!(run_error(&other), "cannot set up the LLM client: refused");
}

#[test]
fn a_database_path_that_is_a_folder_gets_the_fix_not_chown() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cannot_open = || {
        rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CANTOPEN),
            None,
        )
    };
    let folder = dir.path().to_path_buf();
    let advice = database(&StoreError::Open {
        path: folder.clone(),
        source: cannot_open(),
    })
    .expect("advice");
    assert!(
        advice.contains(&format!(
            "{} is a folder, not a file: point [storage] database at a file in it, e.g. \
             `database = \"{}\"`",
            folder.display(),
            folder.join("meshai.db").display()
        )),
        "{advice}"
    );
    assert!(!advice.contains("chown"), "{advice}");
    // A file that cannot be opened is still a matter of owners.
    let file = database(&StoreError::Open {
        path: folder.join("meshai.db"),
        source: cannot_open(),
    })
    .expect("advice");
    assert!(file.contains("sudo chown -R meshai:"), "{file}");
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
        Some("`meshai init` writes a config of your own"),
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
        StoreError::Open {
            path: path.clone(),
            source: sqlite(rusqlite::ffi::SQLITE_CORRUPT),
        },
        Some("A damaged database"),
    );
    check(
        StoreError::Damaged {
            part: Damage::Index,
            source: sqlite(rusqlite::ffi::SQLITE_CORRUPT_VTAB),
        },
        Some("rebuilds it at its next start"),
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

#[test]
fn knowledge_advice() {
    let dir = std::path::Path::new("/srv/notes");
    let missing = std::io::Error::from(std::io::ErrorKind::NotFound);
    assert!(
        knowledge_folder(dir, &missing).contains("sudo install -d -o meshai -g meshai /srv/notes")
    );
    let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
    assert!(knowledge_folder(dir, &denied).contains("ProtectHome"));
    let index = |skipped, private_passages| KnowledgeIndex {
        skipped,
        private_passages,
        ..KnowledgeIndex::default()
    };
    let cases: [(KnowledgeIndex, usize, bool, Option<&str>); 5] = [
        (index(0, 0), 0, false, None),
        (index(0, 3), 0, true, None),
        (
            index(0, 0),
            1,
            false,
            Some("1 file changed since it was indexed: `sudo systemctl reload meshai`"),
        ),
        (
            index(2, 0),
            3,
            false,
            Some(
                "3 files changed since it was indexed: `sudo systemctl reload meshai` (or `meshai knowledge reindex`); `meshai knowledge list` says why",
            ),
        ),
        (
            index(0, 3),
            0,
            false,
            Some("private documents go to no one"),
        ),
    ];
    for (i, pending, readers, want) in cases {
        let got = knowledge_index(&i, pending, readers);
        match (got.as_deref(), want) {
            (None, None) => {}
            (Some(g), Some(w)) => assert!(g.contains(w), "{g:?} lacks {w:?}"),
            (g, w) => panic!("got {g:?}, want {w:?}"),
        }
    }
}

#[test]
fn embeddings_advice_by_error_kind() {
    let status = |status| LlmError::Status {
        status,
        body: String::new(),
        retry_after: None,
    };
    let cases = [
        (status(404), "ollama pull nomic-embed-text"),
        (status(501), "--embeddings"),
        (
            LlmError::Connect("refused".into()),
            "start the embedding server",
        ),
        (LlmError::Timeout, "fix [knowledge.embeddings] base_url"),
        (
            LlmError::BadResponse("embeddings: 0 vectors for 1 inputs".into()),
            "is an embedding model",
        ),
    ];
    for (error, want) in cases {
        let got = embeddings(&error, "nomic-embed-text");
        assert!(got.contains(want), "{error:?}: {got:?} lacks {want:?}");
        assert!(
            got.ends_with("until then passages are found by words alone"),
            "{got}"
        );
    }
}
