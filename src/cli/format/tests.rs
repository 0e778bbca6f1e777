//! The layouts as exact text: times, packet lines, the stats table, channel lines, the history listing.

use super::*;
use crate::node::NodeId;
use crate::store::Role;

#[test]
fn utc_times() {
    let check = |unix: i64, want: &str| assert_eq!(utc_time(unix), want, "{unix}");
    check(0, "1970-01-01 00:00:00 UTC");
    check(951_782_400, "2000-02-29 00:00:00 UTC");
    check(1_748_786_602, "2025-06-01 14:03:22 UTC");
    check(4_107_542_399, "2100-02-28 23:59:59 UTC");
    check(-1, "1969-12-31 23:59:59 UTC");
    check(i64::MAX, "Unix time 9223372036854775807");
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
    assert!(channel(Some(&us), 1_000_000).starts_with("channel: 31.5 % busy (US: no limit), read"));
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
            prompt: None,
        },
        StoredMessage {
            id: 2,
            role: Role::Assistant,
            text: "hi".into(),
            at: 61,
            prompt: None,
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
fn replaced_facts_say_what_by_what_and_when() {
    let retired = [
        RetiredFact {
            text: "My callsign is SP9QRZ.".into(),
            at: 0,
            retired_at: 60,
            replaced_by: Some("My callsign is SP2KWT now.".into()),
        },
        RetiredFact {
            text: "My radio is a\nHeltec.".into(),
            at: 0,
            retired_at: 3600,
            replaced_by: None,
        },
    ];
    let want = "\
replaced 1970-01-01 00:01:00 UTC (1 h ago): \u{201c}My callsign is SP9QRZ.\u{201d} by \u{201c}My callsign is SP2KWT now.\u{201d}
replaced 1970-01-01 01:00:00 UTC (1 min ago): \u{201c}My radio is a Heltec.\u{201d} by a statement not kept since
";
    assert_eq!(replaced_facts(&retired, 3660), want);
    assert_eq!(replaced_facts(&[], 0), "");
}

#[test]
fn key_lines() {
    use crate::node::PublicKey;
    let (old, new) = (PublicKey([0; 32]), PublicKey([0xff; 32]));
    let node = NodeId(0xa1b2c3d4);
    let cases = [
        (
            KeyAccepted::Pinned { old, new },
            format!(
                "!a1b2c3d4: now trusting its new key {} (was {})\n",
                "/".repeat(42) + "8=",
                "A".repeat(43) + "="
            ),
        ),
        (
            KeyAccepted::NothingPending { pinned: old },
            format!(
                "!a1b2c3d4: no other key seen; it is trusted with {}=, nothing to change\n",
                "A".repeat(43)
            ),
        ),
        (
            KeyAccepted::NotPki,
            "!a1b2c3d4 has never sent an encrypted (PKI) DM: no key to trust\n".to_string(),
        ),
        (
            KeyAccepted::Mismatch {
                given: old,
                pending: Some(new),
                pinned: old,
            },
            format!(
                "!a1b2c3d4: not pinned: the new key its DMs came with is {new}, not {old} (that \
                 is the key pinned already); compare the keys with the user again\n"
            ),
        ),
        (
            KeyAccepted::Mismatch {
                given: new,
                pending: None,
                pinned: old,
            },
            format!(
                "!a1b2c3d4: not pinned: no other key seen; it is trusted with {old}, not {new}\n"
            ),
        ),
    ];
    for (k, want) in cases {
        assert_eq!(key_accepted(node, &k), want, "{k:?}");
    }
}

#[test]
fn the_waiting_mail_is_listed_with_its_text_for_the_operator() {
    let m = Mail {
        id: 3,
        sender: NodeId(0x0a11_0001),
        sender_name: "Ann\nSmith".into(),
        recipient: NodeId(0x0a11_0002),
        recipient_name: "Carol Jones".into(),
        recipient_key: Some(PublicKey([1; 32])),
        text: "see you\tat 6".into(),
        sender_lang: crate::lang::Lang::En,
        created_at: 1_748_786_602 - 7200,
        expires_at: 1_748_786_602 + 86_400,
        tried_at: None,
        attempts: 1,
    };
    assert_eq!(
        mail(&[m], 1_748_786_602),
        "#3 from Ann Smith (!0a110001) to Carol Jones (!0a110002, sealed with its key), left \
         2 h ago, expires 2025-06-02 14:03:22 UTC, 1 tries\n    see you at 6\n"
    );
    assert_eq!(mail(&[], 0), "no messages waiting\n");
}
