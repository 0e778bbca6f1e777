//! `meshai history`, `meshai forget` (one node, or everything older than some days),
//! `meshai trust` (accept a node's new public key) and `meshai stats`: read or reset the
//! daemon's memory.
//!
//! Safe while the daemon runs: the store uses WAL and a busy timeout, so these commands and
//! the daemon share the file. They never create a database that does not exist yet (a typo
//! in the path, or `sudo`, would otherwise leave a stray file the daemon cannot use).

use std::io::Write;

use anyhow::Context as _;

use super::{format, open_store};
use crate::clock::unix_now;
use crate::config::Config;
use crate::node::NodeId;
use crate::store::retention::Retention;
use crate::store::{KeyAccepted, NodeStats, Store};

/// Opens the configured database, or says there is none and returns `None`.
async fn open_existing(
    config: &Config,
    out: &mut (dyn Write + Send),
) -> anyhow::Result<Option<Store>> {
    if !config.database.exists() {
        writeln!(
            out,
            "no database at {} yet: nothing is stored",
            config.database.display()
        )?;
        return Ok(None);
    }
    let store = open_store(&config.database)
        .await
        .with_context(|| format!("cannot open the database {}", config.database.display()))?;
    Ok(Some(store))
}

/// The node's stats row, if the database knows the node at all.
async fn node_stats(store: &Store, node: NodeId) -> anyhow::Result<Option<NodeStats>> {
    let stats = store.stats().await.context("cannot read node stats")?;
    Ok(stats.into_iter().find(|s| s.node == node))
}

/// `!a1b2c3d4 "Long Name"`, or just the id when the name is unknown.
fn label(node: NodeId, stats: Option<&NodeStats>) -> String {
    match stats
        .and_then(|s| s.long_name.as_deref())
        .filter(|n| !n.is_empty())
    {
        Some(name) => format!("{node} \"{}\"", format::printable(name)),
        None => node.to_string(),
    }
}

/// Prints the node's last `limit` messages and its summary.
pub async fn history(
    config: &Config,
    node: NodeId,
    limit: usize,
    out: &mut (dyn Write + Send),
) -> anyhow::Result<()> {
    let Some(store) = open_existing(config, out).await? else {
        return Ok(());
    };
    let read = async {
        let messages = store.history(node, limit).await?;
        let summary = store.summary(node).await?;
        anyhow::Ok((messages, summary))
    };
    let result = read.await.context("cannot read the history");
    let stats = node_stats(&store, node).await;
    store
        .close()
        .await
        .context("the database did not close cleanly")?;
    let (messages, summary) = result?;
    if messages.is_empty() && summary.is_none() {
        writeln!(out, "nothing stored for {node}")?;
        return Ok(());
    }
    let label = label(node, stats?.as_ref());
    out.write_all(format::history(&label, &messages, summary.as_ref(), unix_now()).as_bytes())?;
    Ok(())
}

/// Forgets the node's messages and summary, like its `!reset`, and says what went. A new
/// public key the node's PKI DMs came with is accepted with it: what it was kept from is
/// gone.
pub async fn forget(
    config: &Config,
    node: NodeId,
    out: &mut (dyn Write + Send),
) -> anyhow::Result<()> {
    let Some(store) = open_existing(config, out).await? else {
        return Ok(());
    };
    let result = async {
        let before = node_stats(&store, node).await?;
        let had = before
            .as_ref()
            .is_some_and(|s| s.messages > 0 || s.summary_chars > 0);
        if had {
            store.reset(node).await.context("cannot reset the node")?;
        }
        let key = store
            .accept_pending_key(node)
            .await
            .context("cannot accept the node's new key")?;
        anyhow::Ok((before.filter(|_| had), key))
    }
    .await;
    store
        .close()
        .await
        .context("the database did not close cleanly")?;
    let (forgot, key) = result?;
    if let KeyAccepted::Pinned { .. } = key {
        out.write_all(format::key_accepted(node, &key).as_bytes())?;
    }
    match forgot {
        None => writeln!(out, "nothing stored for {node}")?,
        Some(s) => {
            let summary = match s.summary_chars {
                0 => "no summary".to_string(),
                n => format!("its summary ({n} chars)"),
            };
            writeln!(
                out,
                "forgot {}: {} messages and {summary}",
                label(node, Some(&s)),
                s.messages
            )?;
        }
    }
    Ok(())
}

/// Accepts the new public key a node's PKI DMs came with in place of the pinned one: the
/// node keeps its memory (`forget` drops it instead).
pub async fn trust(
    config: &Config,
    node: NodeId,
    out: &mut (dyn Write + Send),
) -> anyhow::Result<()> {
    let Some(store) = open_existing(config, out).await? else {
        return Ok(());
    };
    let result = store
        .accept_pending_key(node)
        .await
        .context("cannot accept the node's new key");
    store
        .close()
        .await
        .context("the database did not close cleanly")?;
    out.write_all(format::key_accepted(node, &result?).as_bytes())?;
    Ok(())
}

/// Prints the per-node table and the radio channel as the daemon last saw it.
pub async fn stats(config: &Config, out: &mut (dyn Write + Send)) -> anyhow::Result<()> {
    let Some(store) = open_existing(config, out).await? else {
        return Ok(());
    };
    let rows = store.stats().await.context("cannot read node stats");
    let channel = store
        .airtime()
        .await
        .context("cannot read the channel reading");
    store
        .close()
        .await
        .context("the database did not close cleanly")?;
    let now = unix_now();
    out.write_all(format::stats_table(&rows?, now).as_bytes())?;
    out.write_all(format::channel(channel?.as_ref(), now).as_bytes())?;
    Ok(())
}

/// Deletes what `[storage] retain_days = days` would at `now`: messages older than that which
/// their node's summary already holds, and every node silent for longer. Says what went.
pub async fn forget_older_than(
    config: &Config,
    days: u32,
    now: i64,
    out: &mut (dyn Write + Send),
) -> anyhow::Result<()> {
    let Some(cutoff) = Retention::days(days).cutoff(now) else {
        writeln!(out, "nothing to forget: 0 days keeps everything")?;
        return Ok(());
    };
    let Some(store) = open_existing(config, out).await? else {
        return Ok(());
    };
    let result = store.expire(cutoff).await.context("cannot expire old data");
    store
        .close()
        .await
        .context("the database did not close cleanly")?;
    out.write_all(format::expired(&result?, days).as_bytes())?;
    Ok(())
}
