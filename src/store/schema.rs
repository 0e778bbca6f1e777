//! Opening the database file: connection settings and the versioned schema migrations.
//!
//! The schema version lives in `PRAGMA user_version`. `MIGRATIONS[i]` takes the schema from
//! version `i` to `i + 1`; each runs in its own immediate transaction that re-reads the
//! version first, so two processes opening the same file at once cannot both apply it.
//! Migrations are append-only: never edit one that has shipped.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use super::error::StoreError;

/// How long a statement waits for a lock held by another connection (the admin CLI).
pub(super) const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The open flags: read-write, create, no URI interpretation of the path.
pub(super) fn open_flags() -> OpenFlags {
    OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
}

/// The ordered migrations; the schema version is the number applied.
pub(super) const MIGRATIONS: &[&str] = &[
    // 1: messages, summaries, exchanges with their full-text index, node stats.
    "
    CREATE TABLE messages(
        id   INTEGER PRIMARY KEY,
        node INTEGER NOT NULL,
        role TEXT NOT NULL CHECK(role IN ('user', 'assistant')),
        text TEXT NOT NULL,
        at   INTEGER NOT NULL
    );
    CREATE INDEX messages_node_id ON messages(node, id);

    CREATE TABLE summaries(
        node       INTEGER PRIMARY KEY,
        text       TEXT NOT NULL,
        through_id INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
    );

    CREATE TABLE exchanges(
        id           INTEGER PRIMARY KEY,
        node         INTEGER NOT NULL,
        user_id      INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
        assistant_id INTEGER NOT NULL UNIQUE REFERENCES messages(id) ON DELETE CASCADE,
        at           INTEGER NOT NULL
    );
    CREATE INDEX exchanges_node_id ON exchanges(node, id);
    CREATE INDEX exchanges_user_id ON exchanges(user_id);

    -- Contentless: the text stays in `messages`, the index only maps terms to exchange ids.
    -- contentless_delete lets rows be deleted by rowid, which `reset` needs.
    CREATE VIRTUAL TABLE exchanges_fts USING fts5(
        user, assistant, content = '', contentless_delete = 1
    );
    -- However an exchange goes (reset, or a cascade from its messages), its index entry goes too.
    CREATE TRIGGER exchanges_fts_delete AFTER DELETE ON exchanges BEGIN
        DELETE FROM exchanges_fts WHERE rowid = old.id;
    END;

    CREATE TABLE nodes(
        node              INTEGER PRIMARY KEY,
        long_name         TEXT,
        short_name        TEXT,
        first_seen        INTEGER,
        last_seen         INTEGER,
        llm_calls         INTEGER NOT NULL DEFAULT 0,
        prompt_tokens     INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0
    );
    ",
    // 2: retrieval that stems ("meets" finds "meet"): the full-text index is rebuilt with the
    // porter tokenizer from the stored messages, so nothing is lost. And the facts a user
    // stated about themselves, kept verbatim beside the summary (see `crate::facts`); no
    // foreign key to `messages`, because a fact outlives the message it came from.
    "
    DROP TRIGGER exchanges_fts_delete;
    DROP TABLE exchanges_fts;
    CREATE VIRTUAL TABLE exchanges_fts USING fts5(
        user, assistant, content = '', contentless_delete = 1,
        tokenize = 'porter unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER exchanges_fts_delete AFTER DELETE ON exchanges BEGIN
        DELETE FROM exchanges_fts WHERE rowid = old.id;
    END;
    INSERT INTO exchanges_fts(rowid, user, assistant)
        SELECT e.id, u.text, a.text
        FROM exchanges e
        JOIN messages u ON u.id = e.user_id
        JOIN messages a ON a.id = e.assistant_id;

    CREATE TABLE facts(
        id        INTEGER PRIMARY KEY,
        node      INTEGER NOT NULL,
        text      TEXT NOT NULL,
        source_id INTEGER NOT NULL,
        at        INTEGER NOT NULL
    );
    CREATE INDEX facts_node_id ON facts(node, id);
    ",
    // 3: the radio channel as the daemon last saw it, one row (see `store/airtime.rs`): our
    // node's latest channel numbers and what the airtime policy did since the daemon started.
    "
    CREATE TABLE airtime(
        id                  INTEGER PRIMARY KEY CHECK (id = 1),
        started_at          INTEGER NOT NULL,
        read_at             INTEGER NOT NULL,
        channel_utilization REAL NOT NULL,
        air_util_tx         REAL,
        region              TEXT,
        duty_cycle          REAL,
        shortened           INTEGER NOT NULL,
        held                INTEGER NOT NULL,
        waited_secs         INTEGER NOT NULL
    );
    ",
    // 4: who has talked to us over PKI (see `store/keys.rs`): a row per such node, with the
    // public key pinned at its first PKI DM (trust on first use) and the latest different key
    // seen since, which the operator may accept (`meshai trust`).
    "
    CREATE TABLE node_keys(
        node        INTEGER PRIMARY KEY,
        public_key  BLOB NOT NULL CHECK (length(public_key) = 32),
        pinned_at   INTEGER NOT NULL,
        pending_key BLOB CHECK (pending_key IS NULL OR length(pending_key) = 32),
        pending_at  INTEGER
    );
    ",
    // 5: a message as the model saw it, when that differs from `text` (see `memory::layout`):
    // a user message with the header it was sent with (the sender's name and local time at
    // the start of a conversation), a reply as the model wrote it (before clean-up
    // and numbering). The next turn's prompt repeats it byte for byte, so the server's cache
    // of the last prompt and answer still matches. NULL: the prompt uses `text`.
    "
    ALTER TABLE messages ADD COLUMN prompt TEXT;
    ",
    // 6: the operator's documents (`[knowledge] dir`, see `store/knowledge.rs`): a row per file
    // of the folder (indexed, or skipped with the reason), the passages it was split into and
    // their full-text index (porter, like the exchanges'; contentless: the text stays in
    // `knowledge_passages`), and when the folder was last indexed, by which version of the
    // splitter (a new one splits every file again). Nothing here is a node's.
    "
    CREATE TABLE knowledge_files(
        id         INTEGER PRIMARY KEY,
        path       TEXT NOT NULL UNIQUE,
        size       INTEGER NOT NULL,
        mtime_ns   INTEGER NOT NULL,
        hash       INTEGER,
        private    INTEGER NOT NULL CHECK (private IN (0, 1)),
        skipped    TEXT,
        indexed_at INTEGER NOT NULL
    );
    CREATE TABLE knowledge_passages(
        id      INTEGER PRIMARY KEY,
        file_id INTEGER NOT NULL REFERENCES knowledge_files(id) ON DELETE CASCADE,
        seq     INTEGER NOT NULL,
        heading TEXT NOT NULL,
        text    TEXT NOT NULL
    );
    CREATE INDEX knowledge_passages_file ON knowledge_passages(file_id, seq);
    CREATE VIRTUAL TABLE knowledge_fts USING fts5(
        source, topic, text, content = '', contentless_delete = 1,
        tokenize = 'porter unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER knowledge_fts_delete AFTER DELETE ON knowledge_passages BEGIN
        DELETE FROM knowledge_fts WHERE rowid = old.id;
    END;
    CREATE TABLE knowledge_state(
        id         INTEGER PRIMARY KEY CHECK (id = 1),
        dir        TEXT NOT NULL,
        indexed_at INTEGER NOT NULL,
        splitter   INTEGER NOT NULL
    );
    ",
    // 7: passage embeddings (`[knowledge.embeddings]`, see `store/vectors.rs`): each passage's
    // key (the hash of its heading and text), and one vector per key and model, so an
    // unchanged passage keeps its vector through a change to its file. The passages indexed
    // before have no key: the splitter version is cleared, so the next indexing splits every
    // file again and keys them.
    "
    ALTER TABLE knowledge_passages ADD COLUMN embed_key INTEGER;
    CREATE INDEX knowledge_passages_embed_key ON knowledge_passages(embed_key);
    CREATE TABLE knowledge_vectors(
        model  TEXT NOT NULL,
        key    INTEGER NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (model, key)
    ) WITHOUT ROWID;
    UPDATE knowledge_state SET splitter = 0;
    ",
    // 8: the packets that count once (see `store/replay.rs`): the sender (a PKI DM's 32-byte
    // key, or the node number of a command without PKI) and packet id of every PKI DM and
    // every command taken, so a replay is ignored across restarts; pruned by age and count.
    "
    CREATE TABLE seen_packets(
        id        INTEGER PRIMARY KEY,
        sender    BLOB NOT NULL CHECK (length(sender) IN (4, 32)),
        packet_id INTEGER NOT NULL,
        at        INTEGER NOT NULL,
        UNIQUE (sender, packet_id)
    );
    CREATE INDEX seen_packets_at ON seen_packets(at);
    ",
    // 9: a person is their key (see `store/renumber.rs`): the numbers a key's owner had before
    // (firmware 2.8 renumbers a node once, from its key), each pointing at the number its
    // memory moved to; and the pinned keys by key, to find a key's owner.
    "
    CREATE TABLE node_aliases(
        old INTEGER PRIMARY KEY,
        new INTEGER NOT NULL,
        at  INTEGER NOT NULL
    );
    CREATE INDEX node_aliases_new ON node_aliases(new);
    CREATE INDEX node_keys_key ON node_keys(public_key);
    ",
    // 10: standing earned (see `store/standings.rs`): when a node first completed an exchange
    // with us (its own ACK came back for one of our replies), and, for a PKI node, when it
    // first did so over PKI with its pinned key, or whether the operator pinned that key. A
    // database of before counts every node that has a reply as having completed an exchange
    // then, and its pinned key as seen over PKI when it was pinned: nothing else was kept.
    "
    ALTER TABLE nodes ADD COLUMN exchanged_at INTEGER;
    ALTER TABLE node_keys ADD COLUMN exchanged_at INTEGER;
    ALTER TABLE node_keys ADD COLUMN vouched INTEGER NOT NULL DEFAULT 0;
    INSERT INTO nodes(node, first_seen, last_seen)
        SELECT DISTINCT node, NULL, NULL FROM messages WHERE role = 'assistant'
        ON CONFLICT(node) DO NOTHING;
    UPDATE nodes SET exchanged_at = (
        SELECT MIN(at) FROM messages m WHERE m.node = nodes.node AND m.role = 'assistant'
    );
    UPDATE node_keys SET exchanged_at = pinned_at
        WHERE node IN (SELECT node FROM messages WHERE role = 'assistant');
    ",
    // 11: a fact a newer statement corrected (see `crate::facts::replace`): kept for the record
    // (`meshai history` shows it), no longer in the prompt. `retired_at` is when, `replaced_by`
    // the id of the fact that replaced it (which may be gone since: no foreign key).
    "
    ALTER TABLE facts ADD COLUMN retired_at INTEGER;
    ALTER TABLE facts ADD COLUMN replaced_by INTEGER;
    ",
    // 12: the mesh view kept across restarts (see `store/mesh.rs`): one node's `NodeView` as
    // JSON, with its last heard for expiry and the bound.
    "
    CREATE TABLE mesh_nodes(
        node       INTEGER PRIMARY KEY,
        last_heard INTEGER,
        view       TEXT NOT NULL
    );
    CREATE INDEX mesh_nodes_last_heard ON mesh_nodes(last_heard);
    ",
    // 13: known from two completed exchanges half a day apart, not one (see
    // `store/standings.rs`; one ACK can be forged): when a node became known. A database of
    // before keeps every node that had completed an exchange known: its people stay who
    // they were.
    "
    ALTER TABLE nodes ADD COLUMN known_at INTEGER;
    UPDATE nodes SET known_at = exchanged_at WHERE exchanged_at IS NOT NULL;
    ",
    // 14: when a node first sent us a DM our node found XEdDSA-signed (firmware 2.8, licensed
    // nodes; see `identity::rules`): from then on a DM without a signature claiming it gets
    // no memory.
    "
    ALTER TABLE nodes ADD COLUMN signed_at INTEGER;
    ",
    // 15: messages left with `!tell` until their recipient is heard (see `store/mail.rs`).
    "
    CREATE TABLE mail(
        id             INTEGER PRIMARY KEY,
        sender         INTEGER NOT NULL,
        sender_name    TEXT NOT NULL,
        recipient      INTEGER NOT NULL,
        recipient_name TEXT NOT NULL,
        recipient_key  BLOB,
        text           TEXT NOT NULL,
        sender_lang    TEXT NOT NULL,
        created_at     INTEGER NOT NULL,
        expires_at     INTEGER NOT NULL,
        tried_at       INTEGER,
        attempts       INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX mail_sender ON mail(sender);
    CREATE INDEX mail_recipient ON mail(recipient);
    ",
    // 16: the watches set with `!watch` (see `store/watches.rs`).
    "
    CREATE TABLE watches(
        id          INTEGER PRIMARY KEY,
        owner       INTEGER NOT NULL,
        target      INTEGER NOT NULL,
        target_name TEXT NOT NULL,
        condition   TEXT NOT NULL,
        lang        TEXT NOT NULL,
        created_at  INTEGER NOT NULL,
        held        INTEGER NOT NULL DEFAULT 0,
        changed_at  INTEGER
    );
    CREATE INDEX watches_owner ON watches(owner);
    ",
    // 17: bulletins from the drop folder (see `store/bulletins.rs`): who subscribed to which
    // topic, and what was sent.
    "
    CREATE TABLE subscriptions(
        node  INTEGER NOT NULL,
        topic TEXT NOT NULL,
        lang  TEXT NOT NULL,
        at    INTEGER NOT NULL,
        PRIMARY KEY(node, topic)
    );
    CREATE INDEX subscriptions_topic ON subscriptions(topic);
    CREATE TABLE bulletins(
        id    INTEGER PRIMARY KEY,
        topic TEXT NOT NULL,
        hash  INTEGER NOT NULL,
        text  TEXT NOT NULL,
        at    INTEGER NOT NULL
    );
    CREATE INDEX bulletins_topic ON bulletins(topic, at);
    ",
];

/// The schema version this build writes.
pub(super) const VERSION: i64 = MIGRATIONS.len() as i64;

/// Opens `path`, configures the connection and migrates the schema to `VERSION`.
pub(super) fn open(path: &Path) -> Result<Connection, StoreError> {
    if let Some(dir) = path.parent()
        && !dir.as_os_str().is_empty()
        && !dir.is_dir()
    {
        return Err(StoreError::MissingDirectory {
            path: path.to_path_buf(),
            dir: dir.to_path_buf(),
        });
    }
    let open_err = |source| StoreError::Open {
        path: path.to_path_buf(),
        source,
    };
    let mut conn = Connection::open_with_flags(path, open_flags()).map_err(open_err)?;
    configure(&conn).map_err(open_err)?;
    migrate(&mut conn, path)?;
    Ok(conn)
}

/// Per-connection settings. WAL lets the admin CLI work beside the daemon; FULL sync makes an
/// acknowledged write survive power loss.
fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    let mode: String =
        conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        tracing::warn!(mode, "database did not switch to WAL journal mode");
    }
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    // Keep the WAL file from staying large on the SD card after a burst of writes.
    conn.pragma_update(None, "journal_size_limit", 4 * 1024 * 1024)?;
    Ok(())
}

fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "user_version", |row| row.get(0))
}

/// Applies the migrations the file lacks, each in one transaction.
fn migrate(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    loop {
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|source| StoreError::Open {
                path: path.to_path_buf(),
                source,
            })?;
        let found = user_version(&tx).map_err(|source| StoreError::Open {
            path: path.to_path_buf(),
            source,
        })?;
        if !(0..=VERSION).contains(&found) {
            return Err(StoreError::UnknownVersion {
                path: path.to_path_buf(),
                found,
                supported: VERSION,
            });
        }
        let Some(sql) = usize::try_from(found).ok().and_then(|i| MIGRATIONS.get(i)) else {
            return Ok(());
        };
        let version = found + 1;
        let applied = tx
            .execute_batch(sql)
            .and_then(|()| tx.pragma_update(None, "user_version", version))
            .and_then(|()| tx.commit());
        applied.map_err(|source| StoreError::Migration {
            path: path.to_path_buf(),
            version,
            source,
        })?;
        tracing::info!(version, "database schema migrated");
    }
}
