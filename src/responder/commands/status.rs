//! `!status`: the bot's health in one reply — uptime, the radio link, the model, how many of
//! the asking node's messages are held (only when the DM may use its memory), a damaged
//! memory store, the LLM server that answered last (with fallbacks), the channel's line, and
//! for an admin the counters (only when the identity rules grant the admin part).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::memory::store::Damage;
use crate::node::NodeId;
use crate::radio::LinkState;
use crate::responder::identity::Grant;
use crate::responder::{Counters, Shared, airtime};

/// The `!status` text for `node`, within `grant`.
pub(super) async fn text(shared: &Arc<Shared>, node: NodeId, grant: Grant) -> String {
    let uptime = uptime(shared.started.elapsed().as_secs());
    let radio = match &*shared.link.borrow() {
        LinkState::Ready { .. } => "ok",
        _ => "reconnecting",
    };
    // One aggregate query (per-node counts), not the node's whole history.
    let stats = shared.store.stats().await.unwrap_or_default();
    let mine = stats
        .iter()
        .find(|s| s.node == node)
        .map_or(0, |s| s.messages);
    let mut text = format!(
        "meshai up {uptime}, radio {radio}, model {}.",
        shared.settings.model
    );
    if grant.memory {
        text.push_str(&format!(" I hold {mine} messages of ours."));
    }
    if let Some(line) = damage_line(shared.store.damage()) {
        text.push(' ');
        text.push_str(line);
    }
    if shared.llm.len() > 1
        && let Some(server) = shared.llm.last_answered()
    {
        text.push_str(&format!(" LLM: {server}."));
    }
    let channel = *shared.channel.borrow();
    let now = tokio::time::Instant::now();
    if let Some(line) =
        airtime::status_line(&shared.settings.airtime, &channel, &shared.airtime, now)
    {
        text.push(' ');
        text.push_str(&line);
    }
    if grant.admin && shared.settings.access.admins.contains(&node) {
        text.push_str(&admin_line(&shared.counters, stats.len()));
    }
    text
}

/// The short line for a damaged memory store.
fn damage_line(damage: Option<Damage>) -> Option<&'static str> {
    Some(match damage? {
        Damage::File => "Memory store damaged: answering without memory.",
        Damage::Index => "Memory search index damaged: older chats not searched.",
    })
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
         summaries {} started, {} saved, {} yielded, {} failed, {} at the cap.",
        c.dms.load(Ordering::Relaxed),
        c.replies.load(Ordering::Relaxed),
        c.notices.load(Ordering::Relaxed),
        c.llm_failures.load(Ordering::Relaxed),
        c.summaries_started.load(Ordering::Relaxed),
        c.summaries.load(Ordering::Relaxed),
        c.summaries_cancelled.load(Ordering::Relaxed),
        c.summary_failures.load(Ordering::Relaxed),
        c.folds_at_cap.load(Ordering::Relaxed),
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
    fn a_damaged_store_gets_a_short_line() {
        assert_eq!(damage_line(None), None);
        for d in [Damage::File, Damage::Index] {
            let line = damage_line(Some(d)).unwrap_or_default();
            assert!(!line.is_empty() && line.len() <= 60, "{line}");
        }
    }

    #[test]
    fn the_admin_line_counts_and_averages_the_calls() {
        let c = Counters::default();
        assert_eq!(
            admin_line(&c, 0),
            " Admin: 0 nodes, 0 DMs, 0 replies, 0 notices, 0 LLM fails, avg 0 ms, \
             summaries 0 started, 0 saved, 0 yielded, 0 failed, 0 at the cap."
        );
        c.dms.store(7, Ordering::Relaxed);
        c.replies.store(5, Ordering::Relaxed);
        c.llm_calls.store(4, Ordering::Relaxed);
        c.llm_ms_total.store(4_100, Ordering::Relaxed);
        c.summaries_started.store(3, Ordering::Relaxed);
        c.summaries.store(2, Ordering::Relaxed);
        c.folds_at_cap.store(1, Ordering::Relaxed);
        assert_eq!(
            admin_line(&c, 3),
            " Admin: 3 nodes, 7 DMs, 5 replies, 0 notices, 0 LLM fails, avg 1025 ms, \
             summaries 3 started, 2 saved, 0 yielded, 0 failed, 1 at the cap."
        );
    }
}
