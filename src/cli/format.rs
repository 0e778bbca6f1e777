//! Text layout for the operator commands: times, the packet lines of `meshai chat`, the
//! `meshai stats` table and channel lines, and the `meshai history` listing. Pure functions,
//! no I/O.
//!
//! Times are shown in UTC (with "ago" where it helps), so a listing reads the same on any
//! machine and in any log it is pasted into.

use std::time::Duration;

use crate::node::{NodeId, PublicKey};
use crate::store::{
    AirtimeRecord, Expired, KeyAccepted, Mail, NodeKey, NodeStats, RetiredFact, StoredMessage,
    Summary,
};

/// Replaces control characters (newlines, escape sequences) so text that came from the radio
/// or the LLM cannot reshape or recolour the operator's terminal.
pub(crate) fn printable(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// What `meshai forget --older-than DAYS` removed, one line.
pub(crate) fn expired(e: &Expired, days: u32) -> String {
    if e.is_empty() {
        return format!("nothing older than {days} days to forget\n");
    }
    format!(
        "forgot {} ({}) older than {days} days and {} silent for longer\n",
        crate::text::count(e.messages, "message", "messages"),
        crate::text::count(e.exchanges, "exchange", "exchanges"),
        crate::text::count(e.nodes, "node", "nodes")
    )
}

/// What `meshai trust` (or `forget`) did to a node's keys, one line (keys in base64, as the
/// Meshtastic apps show them).
pub(crate) fn key_accepted(node: NodeId, k: &KeyAccepted) -> String {
    match k {
        KeyAccepted::Pinned { old, new } => {
            format!("{node}: now trusting its new key {new} (was {old})\n")
        }
        KeyAccepted::NothingPending { pinned } => {
            format!("{node}: no other key seen; it is trusted with {pinned}, nothing to change\n")
        }
        KeyAccepted::NotPki => {
            format!("{node} has never sent an encrypted (PKI) DM: no key to trust\n")
        }
        KeyAccepted::Mismatch {
            given,
            pending: Some(pending),
            pinned,
        } => {
            let already = if given == pinned {
                " (that is the key pinned already)"
            } else {
                ""
            };
            format!(
                "{node}: not pinned: the new key its DMs came with is {pending}, not {given}{already}; \
                 compare the keys with the user again\n"
            )
        }
        KeyAccepted::Mismatch {
            given,
            pending: None,
            pinned,
        } => format!(
            "{node}: not pinned: no other key seen; it is trusted with {pinned}, not {given}\n"
        ),
        KeyAccepted::PinnedElsewhere { key, other } => format!(
            "{node}: not pinned: its DMs came with {key}, the key pinned for {other}: one key is \
             one person, and {other}'s next move to a new number would take {node}'s memory. If \
             {other} is gone, `meshai forget '{other}'` first; else this is someone using \
             {other}'s key\n"
        ),
    }
}

/// The keys `meshai trust` shows before it asks: the pinned one and the new one, with when
/// each was seen, and what to compare the new one with.
pub(crate) fn key_pending(node: NodeId, key: &NodeKey, new: PublicKey, seen: i64) -> String {
    format!(
        "{node} is trusted with {} (pinned {}).\n\
         Its encrypted DMs came with another key since {}:\n\
         \n    {new}\n\n\
         Compare it with the public key the user's own app shows (its security settings) over \
         another way than this mesh: in person, by phone. Pin it only if the two are the same.\n",
        key.pinned,
        utc_time(key.pinned_at),
        utc_time(seen),
    )
}

/// Unix seconds as `2025-06-01 14:03:22 UTC`; a time outside the years -9999 to 9999 (only a
/// damaged database holds one) as `Unix time <seconds>`.
pub(crate) fn utc_time(unix: i64) -> String {
    match jiff::Timestamp::from_second(unix) {
        Ok(t) => {
            let t = jiff::tz::TimeZone::UTC.to_datetime(t);
            format!(
                "{:04}-{:02}-{:02} {:02}:{:02}:{:02} UTC",
                t.year(),
                t.month(),
                t.day(),
                t.hour(),
                t.minute(),
                t.second()
            )
        }
        Err(_) => format!("Unix time {unix}"),
    }
}

/// How long ago `at` was, coarsely: `just now`, `42 s ago`, `5 min ago`, `3 h ago`, `2 d ago`.
/// A time in the future (clock changes) counts as just now.
pub(crate) fn ago(now: i64, at: i64) -> String {
    let s = now.saturating_sub(at);
    match s {
        i64::MIN..=0 => "just now".into(),
        1..=59 => format!("{s} s ago"),
        60..=3599 => format!("{} min ago", s / 60),
        3600..=86_399 => format!("{} h ago", s / 3600),
        _ => format!("{} d ago", s / 86_400),
    }
}

/// `meshai mail`: one line per waiting message — id, sender, recipient, when left, until
/// when, tries — and its text indented below.
pub(crate) fn mail(waiting: &[Mail], now: i64) -> String {
    if waiting.is_empty() {
        return "no messages waiting\n".to_string();
    }
    let mut out = String::new();
    for m in waiting {
        let key = if m.recipient_key.is_some() {
            ", sealed with its key"
        } else {
            ""
        };
        out.push_str(&format!(
            "#{} from {} ({}) to {} ({}{key}), left {}, expires {}, {} tries\n    {}\n",
            m.id,
            printable(&m.sender_name),
            m.sender,
            printable(&m.recipient_name),
            m.recipient,
            ago(now, m.created_at),
            utc_time(m.expires_at),
            m.attempts,
            printable(&m.text),
        ));
    }
    out
}

/// One packet as `meshai chat` shows it: part number (of `total`, `?` while a streamed
/// answer is not complete), size in characters and bytes, and when the radio would send it
/// relative to the first part.
pub(crate) fn packet_line(
    index: usize,
    total: Option<usize>,
    text: &str,
    offset: Duration,
) -> String {
    format!(
        "[{}/{} {:>4} chars {:>3} B  +{:.1} s] {}",
        index + 1,
        total.map_or("?".to_string(), |n| n.to_string()),
        text.chars().count(),
        text.len(),
        offset.as_secs_f64(),
        printable(text)
    )
}

/// Longest node name shown in the stats table; longer ones end with `…`.
const NAME_WIDTH: usize = 20;

/// A name cut to `width` characters, for a table cell.
fn cell(text: &str, width: usize) -> String {
    let text = printable(text);
    if text.chars().count() <= width {
        return text;
    }
    let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// The `meshai stats` table, one row per node, with a header; `now` is Unix seconds.
pub(crate) fn stats_table(rows: &[NodeStats], now: i64) -> String {
    if rows.is_empty() {
        return "no nodes stored yet\n".into();
    }
    let names: Vec<String> = rows
        .iter()
        .map(|r| cell(r.long_name.as_deref().unwrap_or(""), NAME_WIDTH))
        .collect();
    let w = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .max("name".len());
    let mut out = format!(
        "{:<9}  {:<w$}  {:>8}  {:<11}  {:>7}  {:>9}  {:>10}  {:>14}\n",
        "node",
        "name",
        "messages",
        "last seen",
        "summary",
        "llm calls",
        "prompt tok",
        "completion tok"
    );
    for (r, name) in rows.iter().zip(&names) {
        let seen = r.last_seen.map_or_else(|| "never".into(), |t| ago(now, t));
        // `{:<w$}` pads by characters, so a name with wide or combining characters may shift
        // its row a little; the columns after it are still separated by two spaces.
        out.push_str(&format!(
            "{:<9}  {:<w$}  {:>8}  {:<11}  {:>7}  {:>9}  {:>10}  {:>14}\n",
            r.node.to_string(),
            name,
            r.messages,
            seen,
            r.summary_chars,
            r.llm_calls,
            r.prompt_tokens,
            r.completion_tokens
        ));
    }
    out
}

/// `meshai stats`' channel lines: the daemon's last reading and what the airtime policy did
/// since that daemon started.
pub fn channel(record: Option<&AirtimeRecord>, now: i64) -> String {
    let Some(r) = record else {
        return "channel: no reading stored yet (the daemon saves the node's, about one a minute)\n"
            .into();
    };
    let mut out = format!("channel: {:.1} % busy", r.channel_utilization);
    if let Some(tx) = r.air_util_tx {
        out.push_str(&format!(", our sending {tx:.1} % of the last hour"));
    }
    match (r.region.as_deref(), r.duty_cycle) {
        (Some(region), Some(limit)) => out.push_str(&format!(" ({region}: limit {limit:.0} %)")),
        (Some(region), None) => out.push_str(&format!(" ({region}: no limit)")),
        (None, Some(limit)) => out.push_str(&format!(" (limit {limit:.0} %)")),
        (None, None) => {}
    }
    out.push_str(&format!(", read {}\n", ago(now, r.read_at)));
    out.push_str(&format!(
        "airtime policy since {}: {} answers shortened, {} held ({} s waited in all)\n",
        utc_time(r.started_at),
        r.shortened,
        r.held,
        r.waited_secs
    ));
    out
}

/// The `meshai history` listing: a heading, the summary if any, then one line per message,
/// oldest first.
pub fn history(
    node: &str,
    messages: &[StoredMessage],
    summary: Option<&Summary>,
    now: i64,
) -> String {
    let mut out = format!("history of {node}: last {} messages\n", messages.len());
    match summary {
        Some(s) => out.push_str(&format!(
            "summary ({} chars, updated {}, {}): {}\n",
            s.text.chars().count(),
            utc_time(s.updated_at),
            ago(now, s.updated_at),
            printable(&s.text)
        )),
        None => out.push_str("summary: none yet\n"),
    }
    for m in messages {
        out.push_str(&format!(
            "{}  {:<9}  {}\n",
            utc_time(m.at),
            m.role.as_str(),
            printable(&m.text)
        ));
    }
    out
}

/// The `meshai history` lines of the facts a correction replaced, oldest first: when, what,
/// and by what. Empty when none was.
pub(crate) fn replaced_facts(retired: &[RetiredFact], now: i64) -> String {
    let mut out = String::new();
    for r in retired {
        let by = r.replaced_by.as_deref().map_or_else(
            || "a statement not kept since".to_string(),
            |b| format!("\u{201c}{}\u{201d}", printable(b)),
        );
        out.push_str(&format!(
            "replaced {} ({}): \u{201c}{}\u{201d} by {by}\n",
            utc_time(r.retired_at),
            ago(now, r.retired_at),
            printable(&r.text),
        ));
    }
    out
}

#[cfg(test)]
mod tests;
