//! Messages left for a node with `!tell` (`mail`): kept until the recipient is heard live,
//! then delivered and deleted; deleted too when it expires or its sender cancels it. A row
//! holds who sent it (number and name), who it is for (number, name, pinned key), the text,
//! when it was left and expires, and the delivery attempts so far. Nothing of it is ever in
//! a prompt: the table is read by the mail room and the operator's `meshai mail` only.
//!
//! Bounded by the quotas [`Store::post_mail`] checks in the same transaction as the insert:
//! waiting messages per sender and per recipient. A renumbered node's mail moves with it
//! (`renumber.rs`, both as sender and as recipient).

use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params};

use super::error::StoreError;
use super::handle::Store;
use super::sql::{limit, node_sql};
use crate::lang::Lang;
use crate::node::{NodeId, PublicKey};

/// The most waiting messages any read returns (the quotas keep far fewer).
const READ_MAX: usize = 2000;

/// A message left for a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mail {
    pub(crate) id: i64,
    pub(crate) sender: NodeId,
    /// How the recipient is told who it is from.
    pub(crate) sender_name: String,
    pub recipient: NodeId,
    /// How the sender named it, for the sender's receipts.
    pub(crate) recipient_name: String,
    /// The key pinned for the recipient when it was left: the delivery goes sealed with it,
    /// and to the number the key implies where the recipient renumbered.
    pub(crate) recipient_key: Option<PublicKey>,
    pub text: String,
    /// The language the sender is told of it in.
    pub(crate) sender_lang: Lang,
    pub(crate) created_at: i64,
    pub(crate) expires_at: i64,
    /// When the last delivery was tried (it goes again only after the next live hearing).
    pub(crate) tried_at: Option<i64>,
    pub(crate) attempts: u32,
}

/// A message to leave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewMail {
    pub sender: NodeId,
    pub sender_name: String,
    pub recipient: NodeId,
    pub recipient_name: String,
    pub recipient_key: Option<PublicKey>,
    pub text: String,
    pub sender_lang: Lang,
    pub at: i64,
    pub expires_at: i64,
}

/// How many messages may wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MailQuota {
    pub per_sender: usize,
    pub per_recipient: usize,
}

/// What [`Store::post_mail`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Posted {
    /// Kept, under this id.
    Kept(i64),
    /// The sender has this many waiting already: nothing kept.
    SenderFull(usize),
    /// This many wait for the recipient already: nothing kept.
    RecipientFull(usize),
}

impl Store {
    /// Keeps `mail` unless its sender or its recipient has its quota of waiting messages.
    pub async fn post_mail(&self, mail: NewMail, quota: MailQuota) -> Result<Posted, StoreError> {
        self.call(move |c| post(c, &mail, quota)).await
    }

    /// Every waiting message, oldest first.
    pub async fn waiting_mail(&self) -> Result<Vec<Mail>, StoreError> {
        self.call(|c| Ok(select(c, "1 = ?1", 1)?)).await
    }

    /// The messages `sender` left that still wait, oldest first.
    pub(crate) async fn mail_from(&self, sender: NodeId) -> Result<Vec<Mail>, StoreError> {
        self.call(move |c| Ok(select(c, "sender = ?1", node_sql(sender))?))
            .await
    }

    /// Deletes message `id` when `sender` left it; whether it did.
    pub(crate) async fn cancel_mail(
        &self,
        sender: NodeId,
        id: i64,
    ) -> Result<Option<Mail>, StoreError> {
        self.call(move |c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let found = one(&tx, id)?.filter(|m| m.sender == sender);
            if found.is_some() {
                tx.execute("DELETE FROM mail WHERE id = ?1", [id])?;
            }
            tx.commit()?;
            Ok(found)
        })
        .await
    }

    /// Deletes message `id` (delivered, expired or given up); whether it was there.
    pub(crate) async fn drop_mail(&self, id: i64) -> Result<bool, StoreError> {
        self.call(move |c| Ok(c.execute("DELETE FROM mail WHERE id = ?1", [id])? > 0))
            .await
    }

    /// Notes a delivery of message `id` tried at `at` that did not arrive; the attempts so far.
    pub(crate) async fn mail_tried(&self, id: i64, at: i64) -> Result<u32, StoreError> {
        self.call(move |c| {
            let n: Option<i64> = c
                .query_row(
                    "UPDATE mail SET tried_at = ?2, attempts = attempts + 1 WHERE id = ?1
                     RETURNING attempts",
                    params![id, at],
                    |row| row.get(0),
                )
                .optional()?;
            Ok(n.and_then(|n| u32::try_from(n).ok()).unwrap_or(0))
        })
        .await
    }
}

fn post(c: &mut Connection, m: &NewMail, quota: MailQuota) -> Result<Posted, StoreError> {
    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let count = |column: &str, node: NodeId| -> rusqlite::Result<usize> {
        let n: i64 = tx.query_row(
            &format!("SELECT count(*) FROM mail WHERE {column} = ?1"),
            [node_sql(node)],
            |row| row.get(0),
        )?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    };
    let from = count("sender", m.sender)?;
    if from >= quota.per_sender {
        return Ok(Posted::SenderFull(from));
    }
    let to = count("recipient", m.recipient)?;
    if to >= quota.per_recipient {
        return Ok(Posted::RecipientFull(to));
    }
    tx.execute(
        "INSERT INTO mail(sender, sender_name, recipient, recipient_name, recipient_key, text,
                          sender_lang, created_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            node_sql(m.sender),
            m.sender_name,
            node_sql(m.recipient),
            m.recipient_name,
            m.recipient_key.map(|k| k.0.to_vec()),
            m.text,
            m.sender_lang.code(),
            m.at,
            m.expires_at
        ],
    )?;
    let id = tx.last_insert_rowid();
    tx.commit()?;
    Ok(Posted::Kept(id))
}

const COLUMNS: &str = "id, sender, sender_name, recipient, recipient_name, recipient_key, text,
                       created_at, expires_at, tried_at, attempts, sender_lang";

fn select(c: &Connection, filter: &str, value: i64) -> rusqlite::Result<Vec<Mail>> {
    let mut stmt = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM mail WHERE {filter} ORDER BY created_at, id LIMIT ?2"
    ))?;
    stmt.query_map(params![value, limit(READ_MAX)], row)?
        .filter_map(|r| r.transpose())
        .collect()
}

fn one(c: &Connection, id: i64) -> rusqlite::Result<Option<Mail>> {
    c.query_row(
        &format!("SELECT {COLUMNS} FROM mail WHERE id = ?1"),
        [id],
        row,
    )
    .optional()
    .map(Option::flatten)
}

/// A row as a [`Mail`]; `None` for one written by hand with a number that is no node's.
fn row(r: &Row<'_>) -> rusqlite::Result<Option<Mail>> {
    let node = |i: usize| -> rusqlite::Result<Option<NodeId>> {
        Ok(u32::try_from(r.get::<_, i64>(i)?).ok().map(NodeId))
    };
    let (Some(sender), Some(recipient)) = (node(1)?, node(3)?) else {
        return Ok(None);
    };
    let key: Option<Vec<u8>> = r.get(5)?;
    Ok(Some(Mail {
        id: r.get(0)?,
        sender,
        sender_name: r.get(2)?,
        recipient,
        recipient_name: r.get(4)?,
        recipient_key: key
            .and_then(|k| <[u8; 32]>::try_from(k.as_slice()).ok())
            .map(PublicKey),
        text: r.get(6)?,
        created_at: r.get(7)?,
        expires_at: r.get(8)?,
        tried_at: r.get(9)?,
        attempts: u32::try_from(r.get::<_, i64>(10)?).unwrap_or(u32::MAX),
        sender_lang: Lang::from_code(&r.get::<_, String>(11)?).unwrap_or_default(),
    }))
}
