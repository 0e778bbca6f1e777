//! `meshai trust` pins only the key the operator compared: `--key` pins exactly that key and
//! refuses, naming both, when the node's new key is another; without `--key` it shows the new
//! key and asks (no terminal: it refuses with the command to run; `--yes` for scripts), and a
//! key that arrives while the operator reads is not pinned in place of the one shown.

use std::io::{BufRead, Cursor, Read};
use std::path::{Path, PathBuf};

use meshai::cli::admin::{self, TrustOptions};
use meshai::node::{NodeId, PublicKey};
use meshai::store::Store;

use super::Setup;

const NODE: NodeId = NodeId(0xa1b2_c3d4);
/// The key pinned, the user's new key (after a reset of their node), an attacker's.
const OLD: PublicKey = PublicKey([0x11; 32]);
const NEW: PublicKey = PublicKey([0x22; 32]);
const ATTACKER: PublicKey = PublicKey([0x66; 32]);

/// A database where NODE's key OLD is pinned and NEW is pending.
async fn pending(db: &Path) {
    let store = Store::open(db).expect("the database opens");
    store.pin_key(NODE, OLD, 100).await.expect("pin");
    store
        .note_pending_key(NODE, NEW, 200)
        .await
        .expect("pending");
    store.close().await.expect("close");
}

/// NODE's pinned and pending keys now.
async fn keys(db: &Path) -> (PublicKey, Option<PublicKey>) {
    let store = Store::open(db).expect("the database opens");
    let key = store
        .node_key(NODE)
        .await
        .expect("read")
        .expect("a PKI node");
    store.close().await.expect("close");
    (key.pinned, key.pending.map(|(k, _)| k))
}

#[tokio::test]
async fn the_binary_pins_only_the_key_named_or_confirmed() {
    let setup = Setup::new("http://127.0.0.1:1/v1", "meshai.db");
    let db = setup.db();
    pending(&db).await;
    let node = NODE.to_string();

    // No terminal to ask on (stdin is not one): the keys are shown, nothing is pinned, and
    // the command to pin exactly the key shown is printed.
    let (ok, out) = setup.run(&["trust", &node]);
    assert!(!ok, "{out}");
    assert!(out.contains(&format!("is trusted with {OLD}")), "{out}");
    assert!(out.contains(&format!("\n    {NEW}\n")), "{out}");
    assert!(out.contains("in person, by phone"), "{out}");
    assert!(
        out.contains(&format!("meshai trust '{node}' --key {NEW}")),
        "{out}"
    );
    assert_eq!(keys(&db).await, (OLD, Some(NEW)));

    // Another key than the pending one: refused, both named.
    let (ok, out) = setup.run(&["trust", &node, "--key", &ATTACKER.to_string()]);
    assert!(!ok, "{out}");
    assert!(
        out.contains(&format!("its DMs came with is {NEW}, not {ATTACKER}")),
        "{out}"
    );
    assert_eq!(keys(&db).await, (OLD, Some(NEW)));
    let (ok, _) = setup.run(&["trust", &node, "--key", "not-base64!"]);
    assert!(!ok, "not a key");

    // The key compared: pinned (the `=` may be left out).
    let named = NEW.to_string();
    let (ok, out) = setup.run(&["trust", &node, "--key", named.trim_end_matches('=')]);
    assert!(ok, "{out}");
    assert!(
        out.contains(&format!("now trusting its new key {NEW} (was {OLD})")),
        "{out}"
    );
    assert_eq!(keys(&db).await, (NEW, None));

    // `--yes` pins the pending key shown without asking.
    let store = Store::open(&db).expect("open");
    store
        .note_pending_key(NODE, OLD, 300)
        .await
        .expect("pending");
    store.close().await.expect("close");
    let (ok, out) = setup.run(&["trust", &node, "--yes"]);
    assert!(ok, "{out}");
    assert!(
        out.contains(&format!("now trusting its new key {OLD}")),
        "{out}"
    );
    assert_eq!(keys(&db).await, (OLD, None));
}

/// An operator's answer on the terminal, read after `arrives` (an attacker's key, written
/// into the database while the operator reads the prompt) when it is set.
struct Answer {
    text: Cursor<Vec<u8>>,
    arrives: Option<(PathBuf, PublicKey)>,
}

impl Answer {
    fn new(text: &str, arrives: Option<(PathBuf, PublicKey)>) -> Answer {
        Answer {
            text: Cursor::new(text.as_bytes().to_vec()),
            arrives,
        }
    }
}

impl Read for Answer {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.fill_buf()?;
        self.text.read(buf)
    }
}

impl BufRead for Answer {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if let Some((db, key)) = self.arrives.take() {
            let c = rusqlite::Connection::open(db).expect("a second connection");
            c.execute(
                "UPDATE node_keys SET pending_key = ?1, pending_at = 400",
                [key.0.as_slice()],
            )
            .expect("the attacker's key arrives");
        }
        self.text.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        self.text.consume(n);
    }
}

/// Runs `meshai trust NODE` in-process with `answer` typed at its question.
async fn trust_answering(config: &Path, answer: &mut Answer) -> (bool, String) {
    let (config, _) = meshai::config::load(config).expect("config");
    let mut out = Vec::new();
    let result = admin::trust(
        &config,
        NODE,
        &TrustOptions::default(),
        Some(answer),
        &mut out,
    )
    .await;
    (result.is_ok(), String::from_utf8(out).expect("utf-8"))
}

#[tokio::test]
async fn on_a_terminal_it_asks_and_pins_only_the_key_it_showed() {
    let setup = Setup::new("http://127.0.0.1:1/v1", "meshai.db");
    let db = setup.db();
    pending(&db).await;

    for no in ["\n", "n\n", "maybe\n", ""] {
        let (ok, out) = trust_answering(&setup.config, &mut Answer::new(no, None)).await;
        assert!(!ok, "{no:?}: {out}");
        assert!(
            out.contains(&format!("Pin this key for {NODE}? [y/N] ")),
            "{out}"
        );
        assert!(out.ends_with("not pinned\n"), "{no:?}: {out}");
        assert_eq!(keys(&db).await, (OLD, Some(NEW)), "{no:?}");
    }

    // The attacker's key arrives between the prompt and the operator's yes: it is not
    // pinned in place of the key shown, and both are named.
    let race = Some((db.clone(), ATTACKER));
    let (ok, out) = trust_answering(&setup.config, &mut Answer::new("y\n", race)).await;
    assert!(!ok, "{out}");
    assert!(out.contains(&format!("\n    {NEW}\n")), "{out}");
    assert!(
        out.contains(&format!("its DMs came with is {ATTACKER}, not {NEW}")),
        "{out}"
    );
    assert_eq!(keys(&db).await, (OLD, Some(ATTACKER)));

    // The key shown, confirmed.
    let (ok, out) = trust_answering(&setup.config, &mut Answer::new("Yes\n", None)).await;
    assert!(ok, "{out}");
    assert!(
        out.contains(&format!("now trusting its new key {ATTACKER} (was {OLD})")),
        "the key shown this time is the one pinned: {out}"
    );
    assert_eq!(keys(&db).await, (ATTACKER, None));
}
