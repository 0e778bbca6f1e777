//! The courier: what the bot sends on its own — the messages left with `!tell`, the watches'
//! alerts (`watches`; their conditions are `mesh::watch`) and the drop folder's bulletins
//! (`bulletins`). It delivers the messages left with `!tell` (`commands::tell`, kept in the
//! store's `mail`). A message goes when its recipient is **heard live** after it was left —
//! a broadcast our radio heard as it happened (`MeshView`'s `heard_live`: not a replay, not a
//! handshake's node info, not kept from an earlier run) or a DM the intake took — as a DM
//! "From Alice: …", sealed with the recipient's pinned key where there is one, as far as an
//! answer to that node would go, its parts held until their ACKs (`ReplyRequest::receipt`).
//! When the ACKs come the sender is told "Delivered to Carol at 14:02", in the sender's
//! language, and the message is deleted. A delivery that fails waits for a later hearing
//! ([`core::RETRY_AFTER_SECS`], [`core::MAX_ATTEMPTS`]); one past its expiry is deleted
//! and its sender told. While the airtime policy holds replies, nothing is delivered.
//!
//! It wakes when the mesh view changes (at most every 2 s), when the channel's reading does,
//! when the intake reports a DM, and once a minute for expiry. Its decisions are `core`'s.

pub(super) mod bulletins;
mod core;
mod watches;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tracing::{debug, info, warn};

use self::core::{MAX_ATTEMPTS, Outcome, Step};
use super::reply::Destination;
use super::shared::Shared;
use crate::airtime::Decision;
use crate::clock::{Zone, unix_now};
use crate::lang::{Say, fill, say};
use crate::node::NodeId;
use crate::radio::{HopFields, MeshView};
use crate::store::Mail;

/// How often the courier looks without being woken: expiry needs no hearing.
const TICK: Duration = Duration::from_secs(60);

/// How long a DM counts as the latest live hearing of its sender, for the courier's memory
/// (bounded: older ones are dropped at each round).
const DM_KEPT_SECS: i64 = 3600;

/// Runs until the responder stops; `dms`: the nodes whose DMs the intake took.
pub(super) async fn run(shared: Arc<Shared>, mut dms: mpsc::Receiver<(NodeId, i64)>) {
    let mut mesh = shared.mesh.clone();
    let mut channel = shared.channel.clone();
    let (mut mesh_open, mut channel_open) = (true, true);
    let mut heard: HashMap<NodeId, i64> = HashMap::new();
    let mut busy: HashSet<i64> = HashSet::new();
    let (done_tx, mut done) = mpsc::channel::<i64>(core::IN_FLIGHT.max(1) * 2);
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut poll = tokio::time::interval(bulletins::POLL);
    poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut files = bulletins::Seen::new();
    loop {
        tokio::select! {
            () = shared.stop.cancelled() => return,
            changed = mesh.changed(), if mesh_open => mesh_open = changed.is_ok(),
            // A calmer reading releases what the airtime policy held.
            changed = channel.changed(), if channel_open => channel_open = changed.is_ok(),
            Some((node, at)) = dms.recv() => {
                let e = heard.entry(node).or_insert(at);
                *e = (*e).max(at);
            }
            Some(id) = done.recv() => { busy.remove(&id); }
            _ = tick.tick() => {}
            _ = poll.tick(), if shared.settings.bulletins.dir.is_some() => {
                // The folder only: nothing else changes that often.
                if !held_back(&shared) {
                    let view = shared.mesh.borrow().clone();
                    bulletins::round(&shared, &view, &mut files, unix_now()).await;
                }
                continue;
            }
        }
        let now = unix_now();
        heard.retain(|_, at| now - *at < DM_KEPT_SECS);
        round(&shared, &heard, &mut busy, &done_tx, now).await;
        // While the airtime policy holds replies, watches wait too: what held is looked at
        // again once the channel calms down.
        if !held_back(&shared) {
            let view = shared.mesh.borrow().clone();
            watches::round(&shared, &view, now).await;
        }
    }
}

/// One look at the waiting messages: expiries, and deliveries to nodes heard since.
async fn round(
    shared: &Arc<Shared>,
    heard: &HashMap<NodeId, i64>,
    busy: &mut HashSet<i64>,
    done: &mpsc::Sender<i64>,
    now: i64,
) {
    if !shared.settings.mail.enabled {
        return;
    }
    let waiting = match shared.store.waiting_mail().await {
        Ok(w) => w,
        Err(e) => {
            debug!(error = %e, "could not read the waiting mail");
            return;
        }
    };
    if waiting.is_empty() {
        return;
    }
    let view = shared.mesh.borrow().clone();
    let live = |n: NodeId| {
        let radio = view.node(n).and_then(|v| v.heard_live);
        radio.max(heard.get(&n).copied())
    };
    let hold = held_back(shared);
    for step in core::due(&waiting, live, now, hold, busy) {
        match step {
            Step::Expire(m) => {
                info!(from = %m.sender, to = %m.recipient, mail = m.id, "message expired undelivered");
                if matches!(shared.store.drop_mail(m.id).await, Ok(true)) {
                    let days = ((m.expires_at - m.created_at) / 86_400).max(1).to_string();
                    let values = [("name", m.recipient_name.as_str()), ("n", days.as_str())];
                    tell_sender(shared, &view, &m, Say::MailExpired, &values).await;
                }
            }
            Step::Deliver(m, to) => {
                busy.insert(m.id);
                let (shared, done) = (shared.clone(), done.clone());
                let view = view.clone();
                shared.tracker.clone().spawn(async move {
                    let id = m.id;
                    deliver(&shared, &view, m, to).await;
                    let _ = done.send(id).await;
                });
            }
        }
    }
}

/// Delivers `m` to `to` and tells its sender what came of it.
async fn deliver(shared: &Arc<Shared>, view: &MeshView, m: Mail, to: NodeId) {
    let key = (!shared.licensed())
        .then(|| m.recipient_key.or_else(|| shared.gate.key(to)))
        .flatten();
    let Some(dest) = Destination::node(to, key, shared.gate.standing(to, None), hops_to(view, to))
    else {
        return;
    };
    let lang = shared.languages.of(to);
    let text = format!(
        "{}{}",
        fill(say(lang, Say::MailFrom), &[("name", &m.sender_name)]),
        m.text
    );
    info!(from = %m.sender, to = %to, mail = m.id, "delivering a message to a node heard now");
    let Some(report) = shared.out.deliver(dest.with_receipt(), &text).await else {
        return;
    };
    let Ok(report) = report.await else { return };
    let now = unix_now();
    let time = clock_time(&shared.settings.zone, now);
    let values = [("name", m.recipient_name.as_str()), ("time", time.as_str())];
    match Outcome::of(&report.parts) {
        Outcome::Delivered | Outcome::Sent
            if !matches!(shared.store.drop_mail(m.id).await, Ok(true)) =>
        {
            // Cancelled while it went: its sender has been told already.
        }
        Outcome::Delivered => {
            info!(to = %to, mail = m.id, "message delivered");
            tell_sender(shared, view, &m, Say::MailDelivered, &values).await;
        }
        Outcome::Sent => {
            info!(to = %to, mail = m.id, "message sent, its receipt did not come");
            tell_sender(shared, view, &m, Say::MailSentNoReceipt, &values).await;
        }
        Outcome::Failed => {
            let tries = match shared.store.mail_tried(m.id, now).await {
                Ok(n) => n,
                Err(e) => {
                    warn!(mail = m.id, error = %e, "could not note a failed delivery");
                    return;
                }
            };
            if tries >= MAX_ATTEMPTS || core::hopeless(&report.parts) {
                warn!(to = %to, mail = m.id, tries, "message given up");
                if matches!(shared.store.drop_mail(m.id).await, Ok(true)) {
                    let n = tries.to_string();
                    tell_sender(
                        shared,
                        view,
                        &m,
                        Say::MailFailed,
                        &[("name", &m.recipient_name), ("n", &n)],
                    )
                    .await;
                }
            } else {
                info!(to = %to, mail = m.id, tries, "message not delivered: tried again when the node is heard");
            }
        }
    }
}

/// Whether the airtime policy holds replies now (a very busy channel, the duty cycle).
fn held_back(shared: &Shared) -> bool {
    let now = tokio::time::Instant::now().into_std();
    let decision = shared
        .settings
        .airtime
        .decide(&shared.channel.borrow(), now);
    matches!(decision, Decision::Hold { .. })
}

/// How far a message to `node` goes: as far as an answer to it would, by the hops it was
/// last heard at; unknown, as our node's limit allows (capped by `[radio] reply_hops`).
fn hops_to(view: &MeshView, node: NodeId) -> HopFields {
    view.node(node)
        .and_then(|n| n.hops_away)
        .map_or_else(HopFields::default, HopFields::away)
}

/// Tells `m`'s sender `what`, in the language it left the message in.
async fn tell_sender(
    shared: &Arc<Shared>,
    view: &MeshView,
    m: &Mail,
    what: Say,
    values: &[(&str, &str)],
) {
    tell(
        shared,
        view,
        m.sender,
        &fill(say(m.sender_lang, what), values),
    )
    .await;
}

/// Sends `node` the bot's own `text` (a receipt, a watch): sealed as its replies are (PKI where
/// the bot keeps its key), at its standing, as far as an answer to it would go.
async fn tell(shared: &Arc<Shared>, view: &MeshView, node: NodeId, text: &str) {
    let key = (!shared.licensed())
        .then(|| shared.gate.key(node))
        .flatten();
    let Some(dest) = Destination::node(
        node,
        key,
        shared.gate.standing(node, None),
        hops_to(view, node),
    ) else {
        return;
    };
    shared
        .out
        .send(dest, None, text, shared.settings.chunk)
        .await;
}

/// `unix` as the local time of day, "14:02".
fn clock_time(zone: &Zone, unix: i64) -> String {
    let local = unix + i64::from(zone.offset_at(unix));
    let secs = local.rem_euclid(86_400);
    format!("{:02}:{:02}", secs / 3600, secs % 3600 / 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_receipt_tells_the_local_time_of_day() {
        // 2026-12-03 14:02:30 UTC.
        let at = 1_796_306_550;
        assert_eq!(clock_time(&Zone::fixed(0), at), "14:02");
        assert_eq!(clock_time(&Zone::fixed(3600), at), "15:02");
        assert_eq!(clock_time(&Zone::fixed(-15 * 3600), at), "23:02");
    }
}
