//! Bulletins from the operator's drop folder (`[bulletins] dir`, read by
//! `responder::courier::bulletins`): who asked for which topic with `!subscribe`
//! (`subscriptions`), and the bulletins sent (`bulletins`: topic, content hash, text, when),
//! so a file already sent is never sent again — not after a restart either — and a topic
//! sends at most its daily cap. Bounded: [`KEPT_PER_TOPIC`] bulletins per topic, subscribers
//! per topic and topics per node by the callers' limits, in the insert's transaction.

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::error::StoreError;
use super::handle::Store;
use super::sql::{limit, node_sql};
use crate::lang::Lang;
use crate::node::NodeId;

/// Bulletins kept per topic (for the daily cap and the "already sent" check).
pub(crate) const KEPT_PER_TOPIC: usize = 50;

/// A subscriber of a topic, with the language it subscribed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Subscriber {
    pub(crate) node: NodeId,
    pub(crate) lang: Lang,
}

/// What [`Store::subscribe`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Subscribed {
    /// Subscribed now.
    New,
    Already,
    /// The node has this many topics already.
    NodeFull(usize),
    /// The topic has this many subscribers already.
    TopicFull(usize),
}

/// What [`Store::bulletin_news`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum News {
    /// A bulletin not sent before: kept as sent now.
    New,
    /// The topic's last bulletin has this content.
    Seen,
    /// The topic sent its daily cap in the last 24 hours: not kept, looked at again later.
    OverCap,
}

impl Store {
    /// Subscribes `node` to `topic`, within `per_node` topics per node and `per_topic`
    /// subscribers per topic.
    pub(crate) async fn subscribe(
        &self,
        node: NodeId,
        topic: String,
        lang: Lang,
        at: i64,
        (per_node, per_topic): (usize, usize),
    ) -> Result<Subscribed, StoreError> {
        self.call(move |c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let count = |sql: &str, p: &dyn rusqlite::ToSql| -> rusqlite::Result<usize> {
                let n: i64 = tx.query_row(sql, [p], |r| r.get(0))?;
                Ok(usize::try_from(n).unwrap_or(usize::MAX))
            };
            let already: bool = tx.query_row(
                "SELECT EXISTS(SELECT 1 FROM subscriptions WHERE node = ?1 AND topic = ?2)",
                params![node_sql(node), topic],
                |r| r.get(0),
            )?;
            if already {
                return Ok(Subscribed::Already);
            }
            let mine = count(
                "SELECT count(*) FROM subscriptions WHERE node = ?1",
                &node_sql(node),
            )?;
            if mine >= per_node {
                return Ok(Subscribed::NodeFull(mine));
            }
            let theirs = count(
                "SELECT count(*) FROM subscriptions WHERE topic = ?1",
                &topic,
            )?;
            if theirs >= per_topic {
                return Ok(Subscribed::TopicFull(theirs));
            }
            tx.execute(
                "INSERT INTO subscriptions(node, topic, lang, at) VALUES (?1, ?2, ?3, ?4)",
                params![node_sql(node), topic, lang.code(), at],
            )?;
            tx.commit()?;
            Ok(Subscribed::New)
        })
        .await
    }

    /// Unsubscribes `node` from `topic`; whether it was subscribed.
    pub(crate) async fn unsubscribe(
        &self,
        node: NodeId,
        topic: String,
    ) -> Result<bool, StoreError> {
        self.call(move |c| {
            let n = c.execute(
                "DELETE FROM subscriptions WHERE node = ?1 AND topic = ?2",
                params![node_sql(node), topic],
            )?;
            Ok(n > 0)
        })
        .await
    }

    /// The topics `node` subscribed to, by name.
    pub(crate) async fn subscriptions_of(&self, node: NodeId) -> Result<Vec<String>, StoreError> {
        self.call(move |c| {
            let mut stmt =
                c.prepare_cached("SELECT topic FROM subscriptions WHERE node = ?1 ORDER BY topic")?;
            let topics = stmt
                .query_map([node_sql(node)], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            Ok(topics)
        })
        .await
    }

    /// The subscribers of `topic`, in the order they subscribed.
    pub(crate) async fn subscribers(&self, topic: String) -> Result<Vec<Subscriber>, StoreError> {
        self.call(move |c| {
            let mut stmt = c.prepare_cached(
                "SELECT node, lang FROM subscriptions WHERE topic = ?1 ORDER BY at, node LIMIT ?2",
            )?;
            let rows = stmt.query_map(params![topic, limit(10_000)], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
            })?;
            let mut out = Vec::new();
            for row in rows {
                let (node, lang) = row?;
                if let Ok(node) = u32::try_from(node) {
                    out.push(Subscriber {
                        node: NodeId(node),
                        lang: Lang::from_code(&lang).unwrap_or_default(),
                    });
                }
            }
            Ok(out)
        })
        .await
    }

    /// Whether `text` (its hash `hash`) is news for `topic` at `now`: not the topic's last
    /// bulletin, and the topic has sent fewer than `per_day` in the last 24 hours. News is
    /// kept as sent in the same transaction.
    pub(crate) async fn bulletin_news(
        &self,
        topic: String,
        hash: u64,
        text: String,
        now: i64,
        per_day: usize,
    ) -> Result<News, StoreError> {
        self.call(move |c| news(c, &topic, hash, &text, now, per_day))
            .await
    }
}

fn news(
    c: &mut Connection,
    topic: &str,
    hash: u64,
    text: &str,
    now: i64,
    per_day: usize,
) -> Result<News, StoreError> {
    // SQLite integers are i64: the hash is kept with its bits as they are.
    let hash = i64::from_ne_bytes(hash.to_ne_bytes());
    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let last: Option<i64> = tx
        .query_row(
            "SELECT hash FROM bulletins WHERE topic = ?1 ORDER BY at DESC, id DESC LIMIT 1",
            [topic],
            |r| r.get(0),
        )
        .optional()?;
    if last == Some(hash) {
        return Ok(News::Seen);
    }
    let today: i64 = tx.query_row(
        "SELECT count(*) FROM bulletins WHERE topic = ?1 AND at > ?2",
        params![topic, now - 86_400],
        |r| r.get(0),
    )?;
    if usize::try_from(today).unwrap_or(usize::MAX) >= per_day {
        return Ok(News::OverCap);
    }
    tx.execute(
        "INSERT INTO bulletins(topic, hash, text, at) VALUES (?1, ?2, ?3, ?4)",
        params![topic, hash, text, now],
    )?;
    tx.execute(
        "DELETE FROM bulletins WHERE topic = ?1 AND id NOT IN
             (SELECT id FROM bulletins WHERE topic = ?1 ORDER BY at DESC, id DESC LIMIT ?2)",
        params![topic, limit(KEPT_PER_TOPIC)],
    )?;
    tx.commit()?;
    Ok(News::New)
}
