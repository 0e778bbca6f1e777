//! `meshai history`, `meshai forget` (one node, or everything older than some days),
//! `meshai trust` (accept a node's new public key) and `meshai stats`: read or reset the
//! daemon's memory.
//!
//! Safe while the daemon runs: the store uses WAL and a busy timeout, so these commands and
//! the daemon share the file. They never create a database that does not exist yet (a typo
//! in the path, or `sudo`, would otherwise leave a stray file the daemon cannot use).

use std::io::{BufRead, Write};

use anyhow::Context as _;

use super::{format, open_store};
use crate::clock::unix_now;
use crate::config::Config;
use crate::node::{NodeId, PublicKey};
use crate::store::retention::Retention;
use crate::store::{KeyAccepted, NodeStats, Numbers, Store};

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

/// The number `node`'s memory is kept under now (another one when its node renumbered, and
/// `node` is an old number), and its earlier numbers: the commands take either.
async fn numbers(store: &Store, node: NodeId) -> anyhow::Result<Numbers> {
    store
        .numbers(node)
        .await
        .context("cannot read the node's numbers")
}

/// ` (earlier !a1b2c3d4)` after a node that renumbered, else nothing.
fn earlier(numbers: &Numbers) -> String {
    if numbers.earlier.is_empty() {
        return String::new();
    }
    let list: Vec<String> = numbers.earlier.iter().map(|n| n.to_string()).collect();
    format!(" (earlier {})", list.join(", "))
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

/// Prints the node's last `limit` messages and its summary, then the facts a correction
/// replaced and when.
pub async fn history(
    config: &Config,
    node: NodeId,
    limit: usize,
    out: &mut (dyn Write + Send),
) -> anyhow::Result<()> {
    let Some(store) = open_existing(config, out).await? else {
        return Ok(());
    };
    let numbers = numbers(&store, node).await;
    let node = numbers.as_ref().map_or(node, |n| n.current);
    let read = async {
        let messages = store.history(node, limit).await?;
        let summary = store.summary(node).await?;
        let retired = store.retired_facts(node).await?;
        anyhow::Ok((messages, summary, retired))
    };
    let result = read.await.context("cannot read the history");
    let stats = node_stats(&store, node).await;
    store
        .close()
        .await
        .context("the database did not close cleanly")?;
    let (messages, summary, retired) = result?;
    let earlier = earlier(&numbers?);
    if messages.is_empty() && summary.is_none() && retired.is_empty() {
        writeln!(out, "nothing stored for {node}{earlier}")?;
        return Ok(());
    }
    let label = format!("{}{earlier}", label(node, stats?.as_ref()));
    let now = unix_now();
    out.write_all(format::history(&label, &messages, summary.as_ref(), now).as_bytes())?;
    out.write_all(format::replaced_facts(&retired, now).as_bytes())?;
    Ok(())
}

/// Forgets the node's messages and summary, like its `!reset`, and says what went. A new
/// public key the node's PKI DMs came with is accepted with it: what it was kept from is
/// gone.
pub async fn forget(
    config: &Config,
    node: NodeId,
    follow: bool,
    out: &mut (dyn Write + Send),
) -> anyhow::Result<()> {
    let Some(store) = open_existing(config, out).await? else {
        return Ok(());
    };
    let result = async {
        let numbers = numbers(&store, node).await?;
        follows(node, &numbers, follow, "forget")?;
        let node = numbers.current;
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
        let unsigned = store
            .forget_signer(node)
            .await
            .context("cannot forget that the node signs its DMs")?;
        anyhow::Ok((before.filter(|_| had), key, numbers, unsigned))
    }
    .await;
    store
        .close()
        .await
        .context("the database did not close cleanly")?;
    let (forgot, key, numbers, unsigned) = result?;
    let node = numbers.current;
    let earlier = earlier(&numbers);
    if let KeyAccepted::Pinned { .. } = key {
        out.write_all(format::key_accepted(node, &key).as_bytes())?;
    }
    match forgot {
        None => writeln!(out, "nothing stored for {node}{earlier}")?,
        Some(s) => {
            let summary = match s.summary_chars {
                0 => "no summary".to_string(),
                n => format!("its summary ({n} chars)"),
            };
            writeln!(
                out,
                "forgot {}{earlier}: {} messages and {summary}",
                label(node, Some(&s)),
                s.messages
            )?;
        }
    }
    if unsigned {
        writeln!(
            out,
            "{node} is no longer taken as signing its DMs (firmware 2.8, licensed): a DM \
             without PKI from it is its number's own again, from the daemon's next start"
        )?;
    }
    Ok(())
}

/// How `meshai trust` makes sure the key it pins is the one the operator compared.
#[derive(Debug, Clone, Default)]
pub struct TrustOptions {
    /// `--key`: pin exactly this key, and only if it is the node's pending key.
    pub key: Option<PublicKey>,
    /// `--yes`: pin the pending key shown without asking (for scripts).
    pub yes: bool,
    /// `--follow`: an old number acts on the node it became.
    pub follow: bool,
}

/// A command that changes a node, named by `asked`, acts on `numbers.current`: when that is
/// another number (`asked` is an old one of a renumbered node) only with `--follow` — the
/// operator may mean whoever uses the old number now, and the person who moved is someone
/// else's to wipe (issue 39: `forget OLD` wiped Alice at her new number).
fn follows(asked: NodeId, numbers: &Numbers, follow: bool, command: &str) -> anyhow::Result<()> {
    if numbers.current == asked || follow {
        return Ok(());
    }
    anyhow::bail!(
        "{asked} is an old number of {current} (same key: the node renumbered); nothing done. \
         `meshai {command} '{current}'`, or `meshai {command} '{asked}' --follow`, acts on {current}",
        current = numbers.current
    )
}

/// Accepts the new public key a node's PKI DMs came with in place of the pinned one: the
/// node keeps its memory (`forget` drops it instead). Only the key the operator checked is
/// pinned: the one named with `--key`, or the one shown and confirmed on `answer` (a y/N line;
/// `None`: no terminal, so nothing is pinned without `--key` or `--yes`). If another key
/// arrived meanwhile, nothing changes and both keys are named. Fails when nothing was pinned
/// that should have been (the exit status tells a script).
pub async fn trust(
    config: &Config,
    node: NodeId,
    options: &TrustOptions,
    answer: Option<&mut dyn BufRead>,
    out: &mut (dyn Write + Send),
) -> anyhow::Result<()> {
    let Some(store) = open_existing(config, out).await? else {
        return Ok(());
    };
    let result = match numbers(&store, node).await {
        Ok(numbers) => match follows(node, &numbers, options.follow, "trust") {
            Ok(()) => {
                if numbers.current != node || !numbers.earlier.is_empty() {
                    writeln!(out, "{}{}", numbers.current, earlier(&numbers))?;
                }
                trust_on(&store, numbers.current, options, answer, out).await
            }
            Err(e) => Err(e),
        },
        Err(e) => Err(e),
    };
    store
        .close()
        .await
        .context("the database did not close cleanly")?;
    result
}

async fn trust_on(
    store: &Store,
    node: NodeId,
    options: &TrustOptions,
    answer: Option<&mut dyn BufRead>,
    out: &mut (dyn Write + Send),
) -> anyhow::Result<()> {
    let key = match options.key {
        Some(key) => key,
        None => {
            let known = store
                .node_key(node)
                .await
                .context("cannot read the node's keys")?;
            let Some(known) = known else {
                out.write_all(format::key_accepted(node, &KeyAccepted::NotPki).as_bytes())?;
                return Ok(());
            };
            let Some((new, seen)) = known.pending else {
                let nothing = KeyAccepted::NothingPending {
                    pinned: known.pinned,
                };
                out.write_all(format::key_accepted(node, &nothing).as_bytes())?;
                return Ok(());
            };
            out.write_all(format::key_pending(node, &known, new, seen).as_bytes())?;
            if !options.yes && !confirmed(node, new, answer, out)? {
                anyhow::bail!("the key was not pinned");
            }
            new
        }
    };
    let accepted = store
        .accept_key(node, key)
        .await
        .context("cannot accept the node's new key")?;
    out.write_all(format::key_accepted(node, &accepted).as_bytes())?;
    if let KeyAccepted::Mismatch { .. } | KeyAccepted::PinnedElsewhere { .. } = accepted {
        anyhow::bail!("the key was not pinned");
    }
    Ok(())
}

/// Asks on `answer` whether to pin `key`; without one, says how to pin it once compared.
fn confirmed(
    node: NodeId,
    key: PublicKey,
    answer: Option<&mut dyn BufRead>,
    out: &mut (dyn Write + Send),
) -> anyhow::Result<bool> {
    let Some(answer) = answer else {
        writeln!(
            out,
            "not pinned: there is no terminal to ask on. Once you have compared the key, pin \
             exactly it with\n    meshai trust '{node}' --key {key}"
        )?;
        return Ok(false);
    };
    write!(out, "Pin this key for {node}? [y/N] ")?;
    out.flush()?;
    let mut line = String::new();
    answer
        .read_line(&mut line)
        .context("cannot read the answer")?;
    let yes = matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes");
    if !yes {
        writeln!(out, "not pinned")?;
    }
    Ok(yes)
}

/// Prints the per-node table and the radio channel as the daemon last saw it.
pub async fn stats(config: &Config, out: &mut (dyn Write + Send)) -> anyhow::Result<()> {
    let Some(store) = open_existing(config, out).await? else {
        return Ok(());
    };
    let rows = store.stats().await.context("cannot read node stats");
    let moved = store
        .renumbered()
        .await
        .context("cannot read the renumbered nodes");
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
    for (old, new) in moved? {
        writeln!(out, "renumbered: {old} is now {new} (same key)")?;
    }
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

/// `meshai mail`: every message left with `!tell` that waits, or, with `cancel`, that one
/// deleted.
pub async fn mail(
    config: &Config,
    cancel: Option<i64>,
    out: &mut (dyn Write + Send),
) -> anyhow::Result<()> {
    let Some(store) = open_existing(config, out).await? else {
        return Ok(());
    };
    let result = match cancel {
        Some(id) => store.drop_mail(id).await.map(|gone| {
            if gone {
                format!("message {id} deleted (its sender is not told)\n")
            } else {
                format!("no waiting message {id}: `meshai mail` lists them\n")
            }
        }),
        None => store
            .waiting_mail()
            .await
            .map(|w| format::mail(&w, unix_now())),
    };
    store
        .close()
        .await
        .context("the database did not close cleanly")?;
    out.write_all(result.context("cannot read the waiting mail")?.as_bytes())?;
    Ok(())
}
