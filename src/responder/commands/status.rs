//! `!status`: the bot's health in one reply — uptime, the radio link, the model, how many of
//! the asking node's messages are held, the LLM server that answered last (with fallbacks),
//! the channel's line, and for an admin the counters and the queue (turns waiting by
//! standing, the oldest wait, replies in the outbox).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::node::{NodeId, Standing};
use crate::radio::LinkState;
use crate::responder::schedule::QueueStatus;
use crate::responder::{Counters, Shared, airtime};

/// The `!status` text for `node`.
pub(super) async fn text(shared: &Arc<Shared>, node: NodeId) -> String {
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
        "meshai up {uptime}, radio {radio}, model {}. I hold {mine} messages of ours.",
        shared.settings.model
    );
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
    if shared.settings.access.admins.contains(&node) {
        text.push_str(&admin_line(&shared.counters, stats.len()));
        let queue = shared.gate.status();
        text.push_str(&queue_line(&queue, shared.sink.queued(), &shared.counters));
    }
    text
}

/// The queue for an admin: turns waiting by standing and the oldest wait, the replies the
/// outbox holds, and the texts not answered since start (no room, displaced, waited too long).
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
    format!(
        " Queue: {} waiting ({by_standing}){oldest}; outbox {}; not answered: {} busy, {} \
         displaced, {} late.",
        q.waiting.iter().sum::<usize>(),
        outbox.iter().sum::<usize>(),
        c.turns_refused.load(Ordering::Relaxed),
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
    fn the_queue_line_shows_waiting_turns_by_standing_and_the_outbox() {
        let c = Counters::default();
        let idle = QueueStatus::default();
        assert_eq!(
            queue_line(&idle, [0; 3], &c),
            " Queue: 0 waiting (0 proven, 0 known, 0 new); outbox 0; not answered: 0 busy, 0 \
             displaced, 0 late."
        );
        let busy = QueueStatus {
            waiting: [30, 2, 1],
            running: 1,
            oldest: Some(std::time::Duration::from_millis(95_500)),
        };
        c.turns_refused.store(118, Ordering::Relaxed);
        c.turns_displaced.store(1, Ordering::Relaxed);
        assert_eq!(
            queue_line(&busy, [12, 0, 1], &c),
            " Queue: 33 waiting (1 proven, 2 known, 30 new), oldest 95s; outbox 13; not \
             answered: 118 busy, 1 displaced, 0 late."
        );
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
