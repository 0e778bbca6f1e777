//! Text layout for the operator commands: times, the packet lines of `meshai chat`, the
//! `meshai stats` table and channel lines, and the `meshai history` listing. Pure functions,
//! no I/O.
//!
//! Times are shown in UTC (with "ago" where it helps): the standard library has no time zone
//! database, and local time is not worth a dependency or unsafe code here.

use std::time::Duration;

use crate::memory::store::{AirtimeRecord, Expired, NodeStats, StoredMessage, Summary};
use crate::radio::Transport;

/// How a transport is named in messages: `serial /dev/ttyUSB0`, `tcp 192.168.1.50:4403`.
pub fn transport(t: &Transport) -> String {
    match t {
        Transport::Serial { path, .. } => format!("serial {path}"),
        Transport::Tcp { host, port } if host.contains(':') => format!("tcp [{host}]:{port}"),
        Transport::Tcp { host, port } => format!("tcp {host}:{port}"),
    }
}

/// Replaces control characters (newlines, escape sequences) so text that came from the radio
/// or the LLM cannot reshape or recolour the operator's terminal.
pub fn printable(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// What `meshai forget --older-than DAYS` removed, one line.
pub fn expired(e: &Expired, days: u32) -> String {
    if e.is_empty() {
        return format!("nothing older than {days} days to forget\n");
    }
    format!(
        "forgot {} messages ({} exchanges) older than {days} days and {} nodes silent for longer\n",
        e.messages, e.exchanges, e.nodes
    )
}

/// Unix seconds as `2025-06-01 14:03:22 UTC`.
pub fn utc_time(unix: i64) -> String {
    let days = unix.div_euclid(86_400);
    let secs = unix.rem_euclid(86_400);
    let (y, m, d) = crate::localtime::civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

/// How long ago `at` was, coarsely: `just now`, `42 s ago`, `5 min ago`, `3 h ago`, `2 d ago`.
/// A time in the future (clock changes) counts as just now.
pub fn ago(now: i64, at: i64) -> String {
    let s = now.saturating_sub(at);
    match s {
        i64::MIN..=0 => "just now".into(),
        1..=59 => format!("{s} s ago"),
        60..=3599 => format!("{} min ago", s / 60),
        3600..=86_399 => format!("{} h ago", s / 3600),
        _ => format!("{} d ago", s / 86_400),
    }
}

/// One packet as `meshai chat` shows it: part number (of `total`, `?` while a streamed
/// answer is not complete), size in characters and bytes, and when the radio would send it
/// relative to the first part.
pub fn packet_line(index: usize, total: Option<usize>, text: &str, offset: Duration) -> String {
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
pub fn stats_table(rows: &[NodeStats], now: i64) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::store::Role;
    use crate::node::NodeId;

    #[test]
    fn utc_times() {
        let check = |unix: i64, want: &str| assert_eq!(utc_time(unix), want, "{unix}");
        check(0, "1970-01-01 00:00:00 UTC");
        check(951_782_400, "2000-02-29 00:00:00 UTC");
        check(1_748_786_602, "2025-06-01 14:03:22 UTC");
        check(4_107_542_399, "2100-02-28 23:59:59 UTC");
        check(-1, "1969-12-31 23:59:59 UTC");
    }

    #[test]
    fn ago_is_coarse() {
        let check = |delta: i64, want: &str| assert_eq!(ago(1_000_000, 1_000_000 - delta), want);
        check(-5, "just now");
        check(0, "just now");
        check(42, "42 s ago");
        check(60, "1 min ago");
        check(3599, "59 min ago");
        check(7200, "2 h ago");
        check(3 * 86_400 + 5, "3 d ago");
    }

    #[test]
    fn packet_lines_show_size_and_pacing() {
        let check = |i, n, text: &str, ms: u64, want: &str| {
            assert_eq!(
                packet_line(i, Some(n), text, Duration::from_millis(ms)),
                want,
                "{text:?}"
            );
        };
        check(0, 1, "hi", 0, "[1/1    2 chars   2 B  +0.0 s] hi");
        check(
            1,
            2,
            "café é 2/2",
            2000,
            "[2/2   10 chars  12 B  +2.0 s] café é 2/2",
        );
        let long = "x".repeat(148);
        check(
            0,
            2,
            &long,
            0,
            &format!("[1/2  148 chars 148 B  +0.0 s] {long}"),
        );
        check(
            0,
            1,
            "a\u{1b}[31mb\nc",
            0,
            "[1/1    9 chars   9 B  +0.0 s] a [31mb c",
        );
    }

    #[test]
    fn stats_table_layout() {
        let rows = [
            NodeStats {
                node: NodeId(0xa1b2c3d4),
                long_name: Some("Alice Base".into()),
                messages: 12,
                last_seen: Some(1_000_000 - 300),
                summary_chars: 230,
                llm_calls: 6,
                prompt_tokens: 1200,
                completion_tokens: 300,
            },
            NodeStats {
                node: NodeId(7),
                long_name: None,
                messages: 0,
                last_seen: None,
                summary_chars: 0,
                llm_calls: 0,
                prompt_tokens: 0,
                completion_tokens: 0,
            },
        ];
        let want = "\
node       name        messages  last seen    summary  llm calls  prompt tok  completion tok
!a1b2c3d4  Alice Base        12  5 min ago        230          6        1200             300
!00000007                     0  never              0          0           0               0
";
        assert_eq!(stats_table(&rows, 1_000_000), want);
        assert_eq!(stats_table(&[], 0), "no nodes stored yet\n");
    }

    #[test]
    fn channel_lines() {
        let r = AirtimeRecord {
            started_at: 1_000_000 - 7200,
            read_at: 1_000_000 - 90,
            channel_utilization: 31.46,
            air_util_tx: Some(4.2),
            region: Some("EU_868".into()),
            duty_cycle: Some(10.0),
            shortened: 3,
            held: 1,
            waited_secs: 95,
        };
        assert_eq!(
            channel(Some(&r), 1_000_000),
            "channel: 31.5 % busy, our sending 4.2 % of the last hour (EU_868: limit 10 %), read 1 min ago\n\
             airtime policy since 1970-01-12 11:46:40 UTC: 3 answers shortened, 1 held (95 s waited in all)\n"
        );
        let us = AirtimeRecord {
            air_util_tx: None,
            region: Some("US".into()),
            duty_cycle: None,
            ..r.clone()
        };
        assert!(
            channel(Some(&us), 1_000_000).starts_with("channel: 31.5 % busy (US: no limit), read")
        );
        assert!(channel(None, 0).starts_with("channel: no reading stored yet"));
    }

    #[test]
    fn long_names_are_cut() {
        assert_eq!(cell("short", 20), "short");
        assert_eq!(cell("a very long node name here", 10), "a very lo…");
        assert_eq!(cell("tab\there", 20), "tab here");
    }

    #[test]
    fn history_listing() {
        let messages = [
            StoredMessage {
                id: 1,
                role: Role::User,
                text: "hello\nthere".into(),
                at: 0,
            },
            StoredMessage {
                id: 2,
                role: Role::Assistant,
                text: "hi".into(),
                at: 61,
            },
        ];
        let summary = Summary {
            text: "likes radios".into(),
            through_id: 1,
            updated_at: 60,
        };
        let want = "\
history of !00000007: last 2 messages
summary (12 chars, updated 1970-01-01 00:01:00 UTC, 1 min ago): likes radios
1970-01-01 00:00:00 UTC  user       hello there
1970-01-01 00:01:01 UTC  assistant  hi
";
        assert_eq!(history("!00000007", &messages, Some(&summary), 120), want);
        assert!(history("!00000007", &[], None, 0).contains("summary: none yet"));
    }

    #[test]
    fn transports() {
        let tcp = |h: &str| Transport::Tcp {
            host: h.into(),
            port: 4403,
        };
        assert_eq!(transport(&tcp("10.0.0.2")), "tcp 10.0.0.2:4403");
        assert_eq!(transport(&tcp("fd00::1")), "tcp [fd00::1]:4403");
        let serial = Transport::Serial {
            path: "/dev/ttyUSB0".into(),
            baud: 115_200,
        };
        assert_eq!(transport(&serial), "serial /dev/ttyUSB0");
    }
}
