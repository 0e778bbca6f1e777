//! `!status`: the bot's health in one reply — uptime, the radio link, the model, how many of
//! the asking node's messages are held (only when the DM may use its memory), a damaged
//! memory store, a key table that cannot be read (trust fails closed), how often another
//! client took the node, the LLM server that answered last (with fallbacks), the knowledge
//! folder's documents and passages (when one is set), how many nodes the mesh view holds (with
//! `[mesh]` on), the channel's line, and for an admin the counters (only when the identity
//! rules grant the admin part) and the queue (turns waiting by standing, the oldest wait, replies in the
//! outbox). It asks identity for the bot's state, not the node's memory: a PKI DM the memory
//! is closed to still gets it (without the count of held messages), a DM the policy does not
//! trust for commands does not.

use std::sync::atomic::Ordering;

use super::context::{Roster, Status};
use super::{Caller, Command};
use crate::lang::{Lang, Say};
use crate::node::{NodeId, Standing};
use crate::radio::{ActivitySnapshot, DownReason, LinkState};
use crate::responder::counters::Counters;
use crate::responder::identity::{Grant, Scope};
use crate::responder::schedule::turns::QueueStatus;
use crate::store::{Damage, Embedded, KnowledgeIndex};

pub(super) const STATUS: Command = Command {
    words: &["status"],
    scope: Scope::Status,
    help: Some(Say::HelpStatus),
    takes: super::Takes::Nothing,
    args: "",
    usage: None,
    answer: answer!(answer),
};

/// `!status` is the operator's: in English, as the logs and `meshai check` are.
async fn answer(ctx: &(impl Status + Roster), caller: Caller, _: &str, _: Lang) -> String {
    text(ctx, caller.node(), caller.grant).await
}

/// The `!status` text for `node`, within `grant`.
async fn text(ctx: &(impl Status + Roster), node: NodeId, grant: Grant) -> String {
    let uptime = uptime(ctx.uptime().as_secs());
    let mesh = ctx.mesh();
    let radio = if mesh.radio {
        radio_word(&ctx.link())
    } else {
        "none (meshai chat)"
    };
    // One aggregate query (per-node counts), not the node's whole history.
    let stats = ctx.node_stats().await.unwrap_or_default();
    let mine = stats
        .iter()
        .find(|s| s.node == node)
        .map_or(0, |s| s.messages);
    let mut text = format!("meshai up {uptime}, radio {radio}, model {}.", ctx.model());
    if grant.memory {
        text.push_str(&format!(" I hold {mine} messages of ours."));
    }
    if let Some(line) = damage_line(ctx.damage()) {
        text.push(' ');
        text.push_str(line);
    }
    if !ctx.keys_readable() {
        text.push(' ');
        text.push_str(KEYS_UNREADABLE);
    }
    if let Some(line) = takeover_line(&ctx.activity(), crate::clock::unix_now()) {
        text.push(' ');
        text.push_str(&line);
    }
    if ctx.llm_servers() > 1
        && let Some(server) = ctx.llm_answered_last()
    {
        text.push_str(&format!(" LLM: {server}."));
    }
    if ctx.knowledge().dir.is_some() {
        text.push(' ');
        let embedded = ctx.knowledge_embedded().await.and_then(Result::ok);
        text.push_str(&knowledge_line(
            ctx.knowledge_index().await.ok().as_ref(),
            embedded,
        ));
    }
    if mesh.enabled && mesh.radio {
        text.push_str(&mesh_line(ctx.view().len()));
    }
    if let Some(line) = ctx.airtime_line() {
        text.push(' ');
        text.push_str(&line);
    }
    if grant.admin && ctx.is_admin(node) {
        if ctx.licensed() {
            text.push(' ');
            text.push_str(LICENSED);
        }
        text.push_str(&admin_line(ctx.counters(), stats.len()));
        text.push_str(&queue_line(&ctx.queue(), ctx.outbox(), ctx.counters()));
    }
    text
}

/// What the knowledge folder's index holds (`None`: the store could not say), and with an
/// embedding model how many passages have their vector.
fn knowledge_line(index: Option<&KnowledgeIndex>, embedded: Option<Embedded>) -> String {
    match index {
        None => "Notes: unknown.".to_string(),
        Some(i) if i.last.is_none() => "Notes: not indexed yet.".to_string(),
        Some(i) => {
            let meaning = match embedded {
                Some(e) => format!(" ({} by meaning)", e.embedded),
                None => String::new(),
            };
            format!(
                "Notes: {} {}, {} passages{meaning}.",
                i.documents,
                if i.documents == 1 { "doc" } else { "docs" },
                i.passages
            )
        }
    }
}

/// The line while the key table cannot be read (trust fails closed; the log and `meshai
/// check` say how to repair it).
const KEYS_UNREADABLE: &str =
    "Key table unreadable: no DM proven, answering without memory; operator: see meshai check.";

/// For an admin while our node is in licensed (ham) mode.
const LICENSED: &str =
    "Node in licensed mode: PKI off, no DM proven, require_pki and pins cannot work.";

/// How many nodes the mesh view holds (ours too).
fn mesh_line(nodes: usize) -> String {
    format!(
        " Mesh: {}.",
        crate::text::count(nodes as u64, "node", "nodes")
    )
}

/// The short line for a damaged memory store.
fn damage_line(damage: Option<Damage>) -> Option<&'static str> {
    Some(match damage? {
        Damage::File => "Memory store damaged: answering without memory.",
        Damage::Index => "Memory search index damaged: older chats not searched.",
    })
}

/// How the link is, in a word or three.
fn radio_word(link: &LinkState) -> &'static str {
    match link {
        LinkState::Ready { .. } => "ok",
        LinkState::Down {
            reason: DownReason::TakenOver,
            ..
        } => "yielding to another client",
        _ => "reconnecting",
    }
}

/// How often another client took the node's API since start, and when last (at `now`, Unix
/// seconds); `None` when it never did.
fn takeover_line(act: &ActivitySnapshot, now: i64) -> Option<String> {
    if act.takeovers == 0 {
        return None;
    }
    let times = match act.takeovers {
        1 => "once".to_string(),
        n => format!("{n} times"),
    };
    let ago = act.last_takeover.map_or(String::new(), |at| {
        let mins = now.saturating_sub(at).max(0) / 60;
        match mins {
            0 => ", just now".to_string(),
            1..=119 => format!(", last {mins} min ago"),
            _ => format!(", last {} h ago", mins / 60),
        }
    });
    Some(format!("Another client took the node {times}{ago}."))
}

/// The queue for an admin: turns waiting by standing and the oldest wait, the replies the
/// outbox holds, and since start by standing the messages answered together with an earlier
/// one (combined) and those refused for want of a place, then those displaced and late.
fn queue_line(q: &QueueStatus, outbox: [usize; 3], c: &Counters) -> String {
    let by_standing = Standing::ALL
        .iter()
        .rev()
        .map(|s| format!("{} {}", q.waiting[s.index()], s))
        .collect::<Vec<_>>()
        .join(", ");
    let oldest = q
        .oldest
        .map(|d| format!(", oldest {}s", d.as_secs()))
        .unwrap_or_default();
    let by = |counts: &[std::sync::atomic::AtomicU64; 3]| {
        let n = Counters::by_standing(counts);
        Standing::ALL
            .iter()
            .rev()
            .map(|s| n[s.index()].to_string())
            .collect::<Vec<_>>()
            .join("/")
    };
    format!(
        " Queue: {} waiting ({by_standing}){oldest}; outbox {}; since start \
         (proven/known/new): combined {}, refused {}; {} displaced, {} late.",
        q.waiting.iter().sum::<usize>(),
        outbox.iter().sum::<usize>(),
        by(&c.combined),
        by(&c.refused),
        c.turns_displaced.load(Ordering::Relaxed),
        c.turns_expired.load(Ordering::Relaxed),
    )
}

/// Uptime as days, hours and minutes: `2d3h14m`.
fn uptime(secs: u64) -> String {
    format!(
        "{}d{}h{}m",
        secs / 86_400,
        secs % 86_400 / 3600,
        secs % 3600 / 60
    )
}

/// What an admin sees after the status: the counters since start, and `nodes` known.
fn admin_line(c: &Counters, nodes: usize) -> String {
    let calls = c.llm_calls.load(Ordering::Relaxed);
    let avg = c
        .llm_ms_total
        .load(Ordering::Relaxed)
        .checked_div(calls)
        .unwrap_or(0);
    format!(
        " Admin: {nodes} nodes, {} DMs, {} replies, {} notices, {} LLM fails, avg {avg} ms, \
         summaries {} started, {} saved, {} yielded, {} failed, {} at the cap, {} warm-ups.",
        c.dms.load(Ordering::Relaxed),
        c.replies.load(Ordering::Relaxed),
        c.notices.load(Ordering::Relaxed),
        c.llm_failures.load(Ordering::Relaxed),
        c.summaries_started.load(Ordering::Relaxed),
        c.summaries.load(Ordering::Relaxed),
        c.summaries_cancelled.load(Ordering::Relaxed),
        c.summary_failures.load(Ordering::Relaxed),
        c.folds_at_cap.load(Ordering::Relaxed),
        c.warm_ups.load(Ordering::Relaxed),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uptime_is_days_hours_minutes() {
        let cases = [
            (0, "0d0h0m"),
            (59, "0d0h0m"),
            (3_599, "0d0h59m"),
            (86_399, "0d23h59m"),
            (2 * 86_400 + 3 * 3600 + 14 * 60 + 5, "2d3h14m"),
        ];
        for (secs, want) in cases {
            assert_eq!(uptime(secs), want, "{secs} s");
        }
    }

    #[test]
    fn the_knowledge_line_counts_documents_and_passages() {
        let index = |documents, passages, last: bool| KnowledgeIndex {
            last: last.then(|| ("/k".to_string(), 5)),
            documents,
            passages,
            ..KnowledgeIndex::default()
        };
        let vectors = Some(Embedded {
            embedded: 98,
            passages: 120,
        });
        let cases = [
            (None, None, "Notes: unknown."),
            (Some(index(0, 0, false)), None, "Notes: not indexed yet."),
            (Some(index(1, 3, true)), None, "Notes: 1 doc, 3 passages."),
            (
                Some(index(4, 120, true)),
                None,
                "Notes: 4 docs, 120 passages.",
            ),
            (
                Some(index(4, 120, true)),
                vectors,
                "Notes: 4 docs, 120 passages (98 by meaning).",
            ),
        ];
        for (i, e, want) in cases {
            assert_eq!(knowledge_line(i.as_ref(), e), want);
        }
    }

    #[test]
    fn the_mesh_line_counts_the_view() {
        assert_eq!(mesh_line(0), " Mesh: 0 nodes.");
        assert_eq!(mesh_line(1), " Mesh: 1 node.");
        assert_eq!(mesh_line(12), " Mesh: 12 nodes.");
    }

    #[test]
    fn a_damaged_store_gets_a_short_line() {
        assert_eq!(damage_line(None), None);
        for d in [Damage::File, Damage::Index] {
            let line = damage_line(Some(d)).unwrap_or_default();
            assert!(!line.is_empty() && line.len() <= 60, "{line}");
        }
    }

    #[test]
    fn the_radio_word_and_the_takeover_line() {
        let down = |reason| LinkState::Down {
            reason,
            retry_in: std::time::Duration::from_secs(60),
        };
        assert_eq!(radio_word(&LinkState::Connecting), "reconnecting");
        assert_eq!(radio_word(&down(DownReason::Silent)), "reconnecting");
        assert_eq!(
            radio_word(&down(DownReason::TakenOver)),
            "yielding to another client"
        );
        let now = 1_700_000_000;
        let act = |takeovers, last: Option<i64>| ActivitySnapshot {
            takeovers,
            last_takeover: last.map(|ago| now - ago),
            ..ActivitySnapshot::default()
        };
        let cases = [
            (act(0, None), None),
            (
                act(1, Some(20)),
                Some("Another client took the node once, just now."),
            ),
            (
                act(3, Some(12 * 60 + 5)),
                Some("Another client took the node 3 times, last 12 min ago."),
            ),
            (
                act(9, Some(5 * 3600)),
                Some("Another client took the node 9 times, last 5 h ago."),
            ),
        ];
        for (a, want) in cases {
            assert_eq!(takeover_line(&a, now).as_deref(), want, "{a:?}");
        }
    }

    #[test]
    fn the_queue_line_shows_waiting_turns_by_standing_and_the_outbox() {
        let c = Counters::default();
        let idle = QueueStatus::default();
        assert_eq!(
            queue_line(&idle, [0; 3], &c),
            " Queue: 0 waiting (0 proven, 0 known, 0 new); outbox 0; since start \
             (proven/known/new): combined 0/0/0, refused 0/0/0; 0 displaced, 0 late."
        );
        let busy = QueueStatus {
            waiting: [30, 2, 1],
            running: 1,
            oldest: Some(std::time::Duration::from_millis(95_500)),
        };
        c.refused[Standing::New.index()].store(118, Ordering::Relaxed);
        c.refused[Standing::Known.index()].store(2, Ordering::Relaxed);
        c.combined[Standing::Proven.index()].store(3, Ordering::Relaxed);
        c.combined[Standing::New.index()].store(5, Ordering::Relaxed);
        c.turns_displaced.store(1, Ordering::Relaxed);
        assert_eq!(
            queue_line(&busy, [12, 0, 1], &c),
            " Queue: 33 waiting (1 proven, 2 known, 30 new), oldest 95s; outbox 13; since \
             start (proven/known/new): combined 3/0/5, refused 0/2/118; 1 displaced, 0 late."
        );
    }

    #[test]
    fn the_admin_line_counts_and_averages_the_calls() {
        let c = Counters::default();
        assert_eq!(
            admin_line(&c, 0),
            " Admin: 0 nodes, 0 DMs, 0 replies, 0 notices, 0 LLM fails, avg 0 ms, \
             summaries 0 started, 0 saved, 0 yielded, 0 failed, 0 at the cap, 0 warm-ups."
        );
        c.dms.store(7, Ordering::Relaxed);
        c.replies.store(5, Ordering::Relaxed);
        c.llm_calls.store(4, Ordering::Relaxed);
        c.llm_ms_total.store(4_100, Ordering::Relaxed);
        c.summaries_started.store(3, Ordering::Relaxed);
        c.summaries.store(2, Ordering::Relaxed);
        c.folds_at_cap.store(1, Ordering::Relaxed);
        c.warm_ups.store(2, Ordering::Relaxed);
        assert_eq!(
            admin_line(&c, 3),
            " Admin: 3 nodes, 7 DMs, 5 replies, 0 notices, 0 LLM fails, avg 1025 ms, \
             summaries 3 started, 2 saved, 0 yielded, 0 failed, 1 at the cap, 2 warm-ups."
        );
    }
}
