//! Channel mentions (`[channels] answer_mentions`): public questions, public answers.
//!
//! A channel message's `from` is never proven (anyone with the channel key writes any), and
//! the answer is a broadcast every holder of the key reads. So a mention is answered from
//! public things only: the channel's own short [`Thread`] (its last few mentions and our
//! answers, in RAM only, gone after [`THREAD_IDLE`]), the sender's node name and the local
//! time, and the public passages of the knowledge folder (never a private one). Never a
//! node's summary, facts, retrieval or history, and nothing is stored: no message under the
//! sender, no answer, no `nodes` row. Commands are DM-only: a mention that is one gets a line
//! pointing to DMs, at most once per channel per [`COMMAND_HINT_EVERY`].
//!
//! Each listed channel has its own worker (not the sender's node worker) and its own rate
//! limit (`[limits] node_messages` per `node_window_secs`, per channel), shared by standing:
//! never-heard ids may use only half of it ([`fresh_share`]), so the nodes that completed an
//! exchange with us (known, by the id they claim) keep room a crowd of fresh ids cannot take;
//! over it, mentions are dropped without a word (a notice would cost the whole channel
//! airtime), counted in the info line at most once a minute. A known sender's mention also
//! waits at the LLM gate as a known node's turn, ahead of new ones. A mention's
//! turn is the same as a DM's (`turn`), with the channel's thread for its memory
//! (`turn::Memory::Channel`): nothing calls the store, and a node's memory is only read where
//! a `DmDest` is (`worker`, `commands`). The types say so: [`MentionCtx`] holds no store, nor
//! does the turn's `TurnCtx`; a turn reaches a node's memory only through `Memory::Node`,
//! which only a node's worker builds.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{Instrument, debug, info, info_span, warn};

use crate::clock::Zone;
use crate::config::{AccessConfig, ChannelsConfig, ContextConfig, LimitsConfig, MqttPolicy};
use crate::mesh::Units;
use crate::node::Standing;
use crate::radio::TextMessage;
use crate::responder::commands::{self, Parsed};
use crate::responder::counters::{Cause, Counters};
use crate::responder::language::Languages;
use crate::responder::reply::{Destination, Outbound};
use crate::responder::schedule::gate::{Admitted, LlmGate};
use crate::responder::schedule::ratelimit::{Decision, RateLimiter};
use crate::responder::schedule::turns::Joining;
use crate::responder::sender::SenderIntro;
use crate::responder::turn::{self, Memory, THREAD_IDLE, Thread, TurnCtx, Wants};

/// What the mention path may touch: the channels' and access settings, the LLM gate (a place
/// for the sender's turn), the counters, where answers go, the languages, what "who is
/// asking" says, and the turns ([`TurnCtx`], which holds nothing of the store). No store: a
/// mention sees no DM memory and keeps nothing.
pub(super) struct MentionCtx {
    pub(super) channels: ChannelsConfig,
    pub(super) access: AccessConfig,
    /// The per-channel rate limit and queue.
    pub(super) limits: LimitsConfig,
    pub(super) gate: LlmGate,
    pub(super) counters: Arc<Counters>,
    pub(super) out: Outbound,
    pub(super) languages: Arc<Languages>,
    /// What the "who is asking" line says (of it, a mention gets the name and the time).
    pub(super) context: ContextConfig,
    pub(super) zone: Arc<Zone>,
    pub(super) units: Units,
    pub(super) turns: Arc<TurnCtx>,
    pub(super) tracker: TaskTracker,
    pub(super) stop: CancellationToken,
}

/// At most one "commands are DM-only" line per channel this often.
pub(crate) const COMMAND_HINT_EVERY: Duration = Duration::from_secs(10 * 60);

/// The answer to a command in a mention.
pub(crate) const DM_ONLY: &str = "Commands work only in a direct message to me.";

/// The text after the mention word when mention mode applies to this broadcast (`text` on
/// `channel`).
pub(crate) fn mention(channels: &ChannelsConfig, channel: u32, text: &str) -> Option<String> {
    if !channels.answer_mentions || !channels.channels.contains(&channel) {
        return None;
    }
    let lower = text.to_lowercase();
    if !lower.starts_with(&channels.mention) {
        return None;
    }
    let rest = text.get(channels.mention.len()..)?;
    let rest = rest.trim_start_matches([',', ':', ' ']).trim();
    (!rest.is_empty()).then(|| rest.to_string())
}

/// The share of a channel's `node_messages` that never-heard ids may use; known nodes have
/// the rest to themselves (and may use this share too).
pub(crate) fn fresh_share(node_messages: u32) -> u32 {
    (node_messages / 2).max(1)
}

/// The intake's side: one worker per channel and the per-channel rate limits by standing.
pub(super) struct Mentions {
    ctx: Arc<MentionCtx>,
    workers: HashMap<u32, mpsc::Sender<(TextMessage, Standing)>>,
    /// Never-heard ids' mentions (and known ones' beyond their own room), per channel.
    fresh: RateLimiter<u32>,
    /// Known nodes' room, per channel, which fresh ids cannot take.
    earned: RateLimiter<u32>,
}

impl Mentions {
    pub(super) fn new(ctx: Arc<MentionCtx>) -> Mentions {
        let limits = &ctx.limits;
        let fresh = fresh_share(limits.node_messages);
        let earned = limits.node_messages.saturating_sub(fresh).max(1);
        Mentions {
            workers: HashMap::new(),
            fresh: RateLimiter::new(fresh, limits.node_window),
            earned: RateLimiter::new(earned, limits.node_window),
            ctx,
        }
    }

    /// Takes a channel broadcast: a mention goes to its channel's worker, the rest is not
    /// read.
    pub(super) fn take(&mut self, msg: TextMessage) {
        let ctx = &self.ctx;
        let channel = msg.channel;
        let Some(text) = mention(&ctx.channels, channel, &msg.text) else {
            debug!(node = %msg.from, channel, "channel message not answered");
            return;
        };
        if !ctx.access.permits(msg.from) {
            debug!(node = %msg.from, "mention not answered: access list");
            return;
        }
        if msg.via_mqtt && ctx.access.mqtt == MqttPolicy::Ignore {
            // Broker access must not buy the bot's airtime (`[access] mqtt = "ignore"`).
            debug!(node = %msg.from, channel, "mention not answered: came through MQTT");
            return;
        }
        // A mention's `from` proves nothing: its standing is what that id earned, at most known.
        let standing = ctx.gate.standing(msg.from, None);
        let now = Instant::now();
        let room = standing > Standing::New && self.earned.check(channel, now) == Decision::Answer;
        if !room && self.fresh.check(channel, now) != Decision::Answer {
            debug!(channel, %standing, "mention rate limit reached: not answered");
            ctx.counters.tally.note(Cause::MentionLimit, 1);
            return;
        }
        let msg = (TextMessage { text, ..msg }, standing);
        let msg = match self.workers.get(&channel) {
            None => msg,
            Some(tx) => match tx.try_send(msg) {
                Ok(()) => return,
                Err(mpsc::error::TrySendError::Full(_)) => {
                    warn!(
                        channel,
                        "too many mentions waiting on this channel; one not answered"
                    );
                    return;
                }
                // The worker retired after being idle: start a new one.
                Err(mpsc::error::TrySendError::Closed(msg)) => msg,
            },
        };
        let (tx, rx) = mpsc::channel(ctx.limits.node_queue);
        // A fresh channel has room for one.
        let _ = tx.try_send(msg);
        self.workers.insert(channel, tx);
        let span = info_span!("mention", channel);
        ctx.tracker.spawn(worker(ctx.clone(), rx).instrument(span));
    }
}

/// A channel's worker: its mentions in order, until shutdown or [`THREAD_IDLE`] without one
/// (the thread is forgotten by then anyway).
async fn worker(ctx: Arc<MentionCtx>, mut rx: mpsc::Receiver<(TextMessage, Standing)>) {
    let mut thread = Thread::default();
    let mut hinted: Option<Instant> = None;
    loop {
        let msg = tokio::select! {
            _ = ctx.stop.cancelled() => break,
            msg = tokio::time::timeout(THREAD_IDLE, rx.recv()) => match msg {
                Ok(Some(next)) => next,
                Ok(None) => break,
                Err(_) => {
                    debug!("mention worker retired after being idle");
                    break;
                }
            },
        };
        tokio::select! {
            _ = ctx.stop.cancelled() => break,
            _ = handle(&ctx, msg, &mut thread, &mut hinted) => {}
        }
    }
    // Mentions still queued are not answered, and nothing of them is kept.
    rx.close();
}

async fn handle(
    ctx: &MentionCtx,
    (msg, standing): (TextMessage, Standing),
    thread: &mut Thread,
    hinted: &mut Option<Instant>,
) {
    info!(node = %msg.from, chars = msg.text.chars().count(), "mention received");
    debug!(text = %msg.text, "mention text");
    if commands::parse(&msg.text) != Parsed::Text {
        let now = Instant::now();
        if hinted.is_some_and(|t| now.saturating_duration_since(t) < COMMAND_HINT_EVERY) {
            debug!("a command in a mention: already told the channel");
            return;
        }
        *hinted = Some(now);
        info!("a command in a mention: pointing to DMs");
        ctx.out
            .notice(Destination::mention(&msg), msg.packet_id, DM_ONLY)
            .await;
        return;
    }
    // A mention waits as its sender's turn at the standing it earned (at most known: a
    // channel message proves nothing), behind proven DMs.
    let outbox = ctx.out.holders();
    let turn = match ctx.gate.admit(msg.from, standing, &outbox, Joining::Alone) {
        Ok(Admitted::Turn { turn, .. }) => turn,
        Ok(Admitted::Joined) => return,
        Err(why) => {
            debug!(?why, "a mention found no room: not answered");
            ctx.counters.tally.note(Cause::NoRoom, 1);
            return;
        }
    };
    // Every mention says who is asking and when: the thread mixes senders. Only the name
    // (its header) and the local time (a note, unless the documents answer it), and nothing
    // is stored.
    // A mention is spoken to in its own language: a channel mixes people and languages.
    let lang = ctx.languages.of_text(&msg.text);
    let intro = SenderIntro::of(
        &ctx.zone,
        &public_message(&msg),
        &public_context(&ctx.context),
        ctx.units,
        lang,
    );
    let memory = Memory::Channel {
        dest: Destination::mention(&msg),
        thread,
    };
    turn::run(&ctx.turns, &msg, &[], turn, Wants::Text, intro, memory).await;
}

/// What the model may know of a mention's sender: its name, as the mesh announces it, and
/// when the mention came; nothing of how it reached us.
fn public_message(msg: &TextMessage) -> TextMessage {
    TextMessage {
        hops: None,
        snr: None,
        position: None,
        local_position: None,
        ..msg.clone()
    }
}

/// The "who is asking" items a mention may carry: the name and the local time only.
fn public_context(c: &ContextConfig) -> ContextConfig {
    ContextConfig {
        names: c.names,
        time: c.time,
        hops: false,
        snr: false,
        distance: false,
        time_zone: c.time_zone,
    }
}

#[cfg(test)]
mod tests;
