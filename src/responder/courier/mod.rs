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

use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{debug, info, warn};

use self::core::{MAX_ATTEMPTS, Outcome, Step};
use super::language::Languages;
use super::reply::{Destination, Outbound};
use super::schedule::gate::LlmGate;
use super::shared::licensed;
use crate::airtime::{AirtimeConfig, Decision};
use crate::chunk::ChunkLimits;
use crate::clock::{Zone, unix_now};
use crate::config::{BulletinsConfig, MailConfig};
use crate::lang::{Say, fill, say};
use crate::mesh::MeshConfig;
use crate::node::NodeId;
use crate::radio::{ChannelState, HopFields, LinkState, MeshView};
use crate::store::{Mail, Store};

/// What the courier may touch: the store (the waiting mail, the watches, the bulletins'
/// subscribers), the radio's watches (the mesh view, the channel's reading, the link: whether
/// our node is licensed), the LLM gate's keys and standings (how a message to a node is
/// sealed and ranked), where messages go, the languages, and its settings.
pub(super) struct CourierCtx {
    pub(super) store: Store,
    pub(super) mesh: watch::Receiver<Arc<MeshView>>,
    pub(super) channel: watch::Receiver<ChannelState>,
    pub(super) link: watch::Receiver<LinkState>,
    pub(super) gate: LlmGate,
    pub(super) out: Outbound,
    pub(super) languages: Arc<Languages>,
    pub(super) mail: MailConfig,
    pub(super) bulletins: BulletinsConfig,
    /// `[mesh]`, for the watches (hidden nodes, units).
    pub(super) mesh_config: MeshConfig,
    /// Whether the airtime policy holds replies now (then nothing is sent).
    pub(super) airtime: AirtimeConfig,
    pub(super) chunk: ChunkLimits,
    /// For a receipt's local time.
    pub(super) zone: Arc<Zone>,
    pub(super) tracker: TaskTracker,
    pub(super) stop: CancellationToken,
}

/// How often the courier looks without being woken: expiry needs no hearing.
const TICK: Duration = Duration::from_secs(60);

/// How long a DM counts as the latest live hearing of its sender, for the courier's memory
/// (bounded: older ones are dropped at each round).
const DM_KEPT_SECS: i64 = 3600;

/// Runs until the responder stops; `dms`: the nodes whose DMs the intake took.
pub(super) async fn run(ctx: Arc<CourierCtx>, mut dms: mpsc::Receiver<(NodeId, i64)>) {
    let mut mesh = ctx.mesh.clone();
    let mut channel = ctx.channel.clone();
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
            () = ctx.stop.cancelled() => return,
            changed = mesh.changed(), if mesh_open => mesh_open = changed.is_ok(),
            // A calmer reading releases what the airtime policy held.
            changed = channel.changed(), if channel_open => channel_open = changed.is_ok(),
            Some((node, at)) = dms.recv() => {
                let e = heard.entry(node).or_insert(at);
                *e = (*e).max(at);
            }
            Some(id) = done.recv() => { busy.remove(&id); }
            _ = tick.tick() => {}
            _ = poll.tick(), if ctx.bulletins.dir.is_some() => {
                // The folder only: nothing else changes that often.
                if !held_back(&ctx) {
                    let view = ctx.mesh.borrow().clone();
                    bulletins::round(&ctx, &view, &mut files, unix_now()).await;
                }
                continue;
            }
        }
        let now = unix_now();
        heard.retain(|_, at| now - *at < DM_KEPT_SECS);
        round(&ctx, &heard, &mut busy, &done_tx, now).await;
        // While the airtime policy holds replies, watches wait too: what held is looked at
        // again once the channel calms down.
        if !held_back(&ctx) {
            let view = ctx.mesh.borrow().clone();
            watches::round(&ctx, &view, now).await;
        }
    }
}

/// One look at the waiting messages: expiries, and deliveries to nodes heard since.
async fn round(
    ctx: &Arc<CourierCtx>,
    heard: &HashMap<NodeId, i64>,
    busy: &mut HashSet<i64>,
    done: &mpsc::Sender<i64>,
    now: i64,
) {
    if !ctx.mail.enabled {
        return;
    }
    let waiting = match ctx.store.waiting_mail().await {
        Ok(w) => w,
        Err(e) => {
            debug!(error = %e, "could not read the waiting mail");
            return;
        }
    };
    if waiting.is_empty() {
        return;
    }
    let view = ctx.mesh.borrow().clone();
    let live = |n: NodeId| {
        let radio = view.node(n).and_then(|v| v.heard_live);
        radio.max(heard.get(&n).copied())
    };
    let hold = held_back(ctx);
    for step in core::due(&waiting, live, now, hold, busy) {
        match step {
            Step::Expire(m) => {
                info!(from = %m.sender, to = %m.recipient, mail = m.id, "message expired undelivered");
                if matches!(ctx.store.drop_mail(m.id).await, Ok(true)) {
                    let days = ((m.expires_at - m.created_at) / 86_400).max(1).to_string();
                    let values = [("name", m.recipient_name.as_str()), ("n", days.as_str())];
                    tell_sender(ctx, &view, &m, Say::MailExpired, &values).await;
                }
            }
            Step::Deliver(m, to) => {
                busy.insert(m.id);
                let (ctx, done) = (ctx.clone(), done.clone());
                let view = view.clone();
                ctx.tracker.clone().spawn(async move {
                    let id = m.id;
                    deliver(&ctx, &view, m, to).await;
                    let _ = done.send(id).await;
                });
            }
        }
    }
}

/// Delivers `m` to `to` and tells its sender what came of it.
async fn deliver(ctx: &Arc<CourierCtx>, view: &MeshView, m: Mail, to: NodeId) {
    let key = (!licensed(&ctx.link))
        .then(|| m.recipient_key.or_else(|| ctx.gate.key(to)))
        .flatten();
    let Some(dest) = Destination::node(to, key, ctx.gate.standing(to, None), hops_to(view, to))
    else {
        return;
    };
    let lang = ctx.languages.of(to);
    let text = format!(
        "{}{}",
        fill(say(lang, Say::MailFrom), &[("name", &m.sender_name)]),
        m.text
    );
    info!(from = %m.sender, to = %to, mail = m.id, "delivering a message to a node heard now");
    let Some(report) = ctx.out.deliver(dest.with_receipt(), &text).await else {
        return;
    };
    let Ok(report) = report.await else { return };
    let now = unix_now();
    let time = clock_time(&ctx.zone, now);
    let values = [("name", m.recipient_name.as_str()), ("time", time.as_str())];
    match Outcome::of(&report.parts) {
        Outcome::Delivered | Outcome::Sent
            if !matches!(ctx.store.drop_mail(m.id).await, Ok(true)) =>
        {
            // Cancelled while it went: its sender has been told already.
        }
        Outcome::Delivered => {
            info!(to = %to, mail = m.id, "message delivered");
            tell_sender(ctx, view, &m, Say::MailDelivered, &values).await;
        }
        Outcome::Sent => {
            info!(to = %to, mail = m.id, "message sent, its receipt did not come");
            tell_sender(ctx, view, &m, Say::MailSentNoReceipt, &values).await;
        }
        Outcome::Failed => {
            let tries = match ctx.store.mail_tried(m.id, now).await {
                Ok(n) => n,
                Err(e) => {
                    warn!(mail = m.id, error = %e, "could not note a failed delivery");
                    return;
                }
            };
            if tries >= MAX_ATTEMPTS || core::hopeless(&report.parts) {
                warn!(to = %to, mail = m.id, tries, "message given up");
                if matches!(ctx.store.drop_mail(m.id).await, Ok(true)) {
                    let n = tries.to_string();
                    tell_sender(
                        ctx,
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
fn held_back(ctx: &CourierCtx) -> bool {
    let now = tokio::time::Instant::now().into_std();
    let decision = ctx.airtime.decide(&ctx.channel.borrow(), now);
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
    ctx: &Arc<CourierCtx>,
    view: &MeshView,
    m: &Mail,
    what: Say,
    values: &[(&str, &str)],
) {
    tell(ctx, view, m.sender, &fill(say(m.sender_lang, what), values)).await;
}

/// Sends `node` the bot's own `text` (a receipt, a watch): sealed as its replies are (PKI where
/// the bot keeps its key), at its standing, as far as an answer to it would go.
async fn tell(ctx: &Arc<CourierCtx>, view: &MeshView, node: NodeId, text: &str) {
    let key = (!licensed(&ctx.link)).then(|| ctx.gate.key(node)).flatten();
    let Some(dest) = Destination::node(
        node,
        key,
        ctx.gate.standing(node, None),
        hops_to(view, node),
    ) else {
        return;
    };
    ctx.out.send(dest, None, text, ctx.chunk).await;
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
