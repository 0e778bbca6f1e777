//! The link supervisor task and the [`Radio`] handle the daemon holds.
//!
//! The supervisor loops forever: connect → handshake → ready (read, write, heartbeat,
//! watch for silence) → down → wait the backoff → connect again, until closed. It publishes
//! each state on a `watch` channel and logs each change once; a node that stays
//! unreachable for hours produces one warning, not one a minute. When another client keeps
//! taking a TCP node (`takeover`), the wait is long instead, the state says so
//! (`DownReason::TakenOver`) and the log explains it once. A second `watch` channel
//! carries our node's latest channel numbers and its region ([`ChannelState`]); they outlive
//! a reconnect, since they are about the channel, not the link. A third carries the mesh
//! view ([`MeshView`]), at most every 2 s; it outlives a reconnect too, each handshake's node
//! DB taken into it.
//!
//! Invariants:
//! - The reader never waits on the rest of the daemon: DMs go out with `try_send`.
//! - A text is written only in the link generation the outbox decided it for.
//! - Only the outbox decides what to send; the link writes what it is given plus its own
//!   handshake, heartbeats and probes.
//!
//! `serve` holds the per-connection logic, generic over any byte stream so the tests can
//! drive it through `tokio::io::duplex` with paused time.

mod serve;
#[cfg(test)]
mod tests;

use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::{CancellationToken, DropGuard};

use super::activity::LinkActivity;
use super::backoff::Backoff;
use super::inbound::DmFilter;
use super::outbox::{self, OutboxHandle, OutboxTask};
use super::takeover::{Retry, Takeover};
use super::transport::Connection;
use super::view::MeshView;
use super::{ChannelState, DownReason, Inbound, LinkEvent, LinkState, Outgoing, RadioConfig};
use crate::node::NodeId;

/// Room for the node's answers on their way to the outbox (queue status, ACKs, NAKs).
const EVENTS_CAPACITY: usize = 64;
/// Room for the outbox's writes; the outbox paces them, so a few suffice.
const WRITES_CAPACITY: usize = 16;
/// The mesh view is published at most this often: a busy mesh's telemetry must not copy it
/// for every packet.
pub(super) const VIEW_EVERY: Duration = Duration::from_secs(2);

/// The running radio link: the supervisor task plus the outbox it feeds.
#[derive(Debug)]
pub struct Radio {
    outbox: OutboxHandle,
    outbox_task: OutboxTask,
    state: watch::Receiver<LinkState>,
    channel: watch::Receiver<ChannelState>,
    mesh: watch::Receiver<Arc<MeshView>>,
    activity: Arc<LinkActivity>,
    /// Cancels the link when the handle is dropped without `close`.
    cancel: DropGuard,
    link: JoinHandle<()>,
}

impl Radio {
    /// Starts the link and outbox tasks. DMs/broadcasts go to `inbound`; the reader never
    /// waits on it: it uses `try_send` and, when full, logs a warning and drops (the radio
    /// would drop anyway).
    pub fn spawn(cfg: RadioConfig, inbound: mpsc::Sender<Inbound>) -> Radio {
        Self::spawn_seeded(cfg, inbound, MeshView::new())
    }

    /// [`Radio::spawn`] with the mesh view kept from an earlier run (`store::mesh`): what
    /// the node's handshake and broadcasts then say is taken in on top of it.
    pub(crate) fn spawn_seeded(
        cfg: RadioConfig,
        inbound: mpsc::Sender<Inbound>,
        seed: MeshView,
    ) -> Radio {
        let target = cfg.transport.clone();
        let connector = move || {
            let target = target.clone();
            async move { target.connect().await }
        };
        Self::spawn_with(cfg, inbound, connector, seed)
    }

    /// [`Radio::spawn_seeded`] with another way to open connections (tests use in-memory
    /// pipes).
    pub(crate) fn spawn_with<C, F>(
        cfg: RadioConfig,
        inbound: mpsc::Sender<Inbound>,
        connector: C,
        seed: MeshView,
    ) -> Radio
    where
        C: FnMut() -> F + Send + 'static,
        F: Future<Output = io::Result<Connection>> + Send + 'static,
    {
        let (state_tx, state_rx) = watch::channel(LinkState::Connecting);
        let (channel_tx, channel_rx) = watch::channel(ChannelState::default());
        let (mesh_tx, mesh_rx) = watch::channel(Arc::new(seed));
        let (events_tx, events_rx) = mpsc::channel(EVENTS_CAPACITY);
        let (writes_tx, writes_rx) = mpsc::channel(WRITES_CAPACITY);
        let (outbox, outbox_task) = outbox::spawn(&cfg, state_rx.clone(), events_rx, writes_tx);
        let cancel = CancellationToken::new();
        let link = Link::new(
            cfg,
            connector,
            Channels {
                state: state_tx,
                channel: channel_tx,
                mesh: mesh_tx,
                inbound,
                events: events_tx,
                writes: writes_rx,
            },
            cancel.clone(),
        );
        Radio {
            outbox,
            outbox_task,
            state: state_rx,
            channel: channel_rx,
            mesh: mesh_rx,
            activity: link.activity.clone(),
            cancel: cancel.drop_guard(),
            link: tokio::spawn(link.run()),
        }
    }

    /// The handle for queueing replies.
    pub fn outbox(&self) -> OutboxHandle {
        self.outbox.clone()
    }

    /// The link state; each change is also logged once by the link.
    pub fn state(&self) -> watch::Receiver<LinkState> {
        self.state.clone()
    }

    /// Our node's latest channel numbers and its region's duty-cycle limit.
    pub fn channel(&self) -> watch::Receiver<ChannelState> {
        self.channel.clone()
    }

    /// The mesh as our node hears it (published at most every 2 s).
    pub fn mesh(&self) -> watch::Receiver<Arc<MeshView>> {
        self.mesh.clone()
    }

    /// The link's counters: last frame, ready since, takeovers.
    pub(crate) fn activity(&self) -> Arc<LinkActivity> {
        self.activity.clone()
    }

    /// Stops new replies, lets the outbox drain for up to `drain`, then closes the link;
    /// the state ends as `Closed`.
    pub async fn close(self, drain: Duration) {
        let Radio {
            outbox_task,
            cancel,
            link,
            ..
        } = self;
        outbox_task.drain_and_stop(drain).await;
        cancel.disarm().cancel();
        if let Err(e) = link.await {
            tracing::error!(error = %e, "radio link task failed");
        }
    }
}

/// The channels the link talks through.
struct Channels {
    state: watch::Sender<LinkState>,
    /// Our node's channel numbers and region, for the airtime policy.
    channel: watch::Sender<ChannelState>,
    /// The mesh view, for the answers about the mesh.
    mesh: watch::Sender<Arc<MeshView>>,
    /// To the responder: DMs and broadcasts, never awaited.
    inbound: mpsc::Sender<Inbound>,
    /// To the outbox: queue status and routing answers.
    events: mpsc::Sender<LinkEvent>,
    /// From the outbox: texts and probes to write.
    writes: mpsc::Receiver<Outgoing>,
}

/// How one connection ended.
#[derive(Debug, PartialEq, Eq)]
enum End {
    /// The close signal: stop for good.
    Closed,
    /// Lost the node; retry after the backoff.
    Lost(DownReason),
    /// The node rebooted: retry right away (minimum delay), it is not the link's fault.
    Rebooted,
}

/// The supervisor's state across connections.
struct Link<C> {
    cfg: RadioConfig,
    connector: C,
    ch: Channels,
    /// False once the outbox dropped its sender, so `recv` is no longer polled.
    writes_open: bool,
    cancel: CancellationToken,
    /// Lives across reconnects so its dedup memory does too.
    filter: DmFilter,
    /// The mesh as our node hears it: each handshake's node DB taken in, then updated by
    /// the broadcasts that follow; published on `ch.mesh` at most every [`VIEW_EVERY`].
    view: MeshView,
    /// The view changed since it was last published.
    view_dirty: bool,
    /// When it was last published.
    view_published: Option<Instant>,
    /// Our node number, from the last handshake: whose telemetry is ours.
    me: Option<NodeId>,
    backoff: Backoff,
    /// Whether another client keeps taking the node (TCP only).
    takeover: Takeover,
    /// Counters for the status file and `!status`.
    activity: Arc<LinkActivity>,
    /// Grows by one with each successful handshake.
    generation: u64,
    /// Failed attempts since the link was last ready, for the log.
    failures: u32,
    /// The last down reason logged as a warning; repeats of it are logged at debug.
    last_warned: Option<DownReason>,
}

impl<C, F> Link<C>
where
    C: FnMut() -> F + Send + 'static,
    F: Future<Output = io::Result<Connection>> + Send + 'static,
{
    fn new(cfg: RadioConfig, connector: C, ch: Channels, cancel: CancellationToken) -> Self {
        let backoff = Backoff::new(cfg.reconnect_min, cfg.reconnect_max);
        let takeover =
            Takeover::new(cfg.transport.new_client_takes_over() && cfg.yield_to_other_clients);
        // The seed the mesh channel was made with: a view kept from an earlier run.
        let view = MeshView::clone(&ch.mesh.borrow());
        Link {
            cfg,
            connector,
            ch,
            writes_open: true,
            cancel,
            filter: DmFilter::new(),
            view,
            view_dirty: false,
            view_published: None,
            me: None,
            backoff,
            takeover,
            activity: Arc::default(),
            generation: 0,
            failures: 0,
            last_warned: None,
        }
    }

    /// The supervisor loop; returns once closed.
    async fn run(mut self) {
        loop {
            let reason = match self.attempt().await {
                End::Closed => break,
                End::Lost(reason) => reason,
                End::Rebooted => {
                    self.backoff.reset();
                    DownReason::Rebooted
                }
            };
            self.activity.ready(false);
            let now = Instant::now().into_std();
            let quick = self.backoff.next_delay_random(now, &mut rand::rng());
            let retry_in = match self.takeover.on_end(&reason, now) {
                Retry::Backoff => {
                    self.go_down(reason, quick);
                    quick
                }
                Retry::Yield { delay, first } => {
                    self.yield_node(delay, first);
                    delay
                }
            };
            if !self.idle(retry_in).await {
                break;
            }
        }
        self.set_state(LinkState::Closed);
        tracing::info!("radio link closed");
    }

    /// One connection, from opening it to losing it.
    async fn attempt(&mut self) -> End {
        self.set_state(LinkState::Connecting);
        let connect = tokio::time::timeout(self.cfg.handshake_timeout, (self.connector)());
        tokio::pin!(connect);
        let conn = loop {
            tokio::select! {
                _ = self.cancel.cancelled() => return End::Closed,
                r = &mut connect => match r {
                    Ok(Ok(conn)) => break conn,
                    Ok(Err(e)) => return End::Lost(self.cfg.transport.failure(&e)),
                    Err(_) => return End::Lost(DownReason::ConnectTimeout {
                        target: self.cfg.transport.address(),
                    }),
                },
                w = self.ch.writes.recv(), if self.writes_open => self.discard(w),
            }
        };
        tracing::debug!(kind = ?conn.kind, "connected");
        self.serve(conn).await
    }

    /// Waits out the backoff; returns `false` if closed meanwhile. Writes that arrive
    /// now are dropped: the outbox times them out and resends once the link is back.
    async fn idle(&mut self, delay: Duration) -> bool {
        let wake = tokio::time::sleep(delay);
        tokio::pin!(wake);
        loop {
            tokio::select! {
                _ = self.cancel.cancelled() => return false,
                _ = &mut wake => return true,
                w = self.ch.writes.recv(), if self.writes_open => self.discard(w),
            }
        }
    }

    /// Drops a write that cannot go out because no link is ready.
    fn discard(&mut self, w: Option<Outgoing>) {
        match w {
            None => self.writes_open = false,
            Some(Outgoing::Text(t)) => {
                tracing::debug!(id = t.id, to = %t.to, "link not ready; text dropped");
            }
            Some(Outgoing::Probe) => tracing::debug!("link not ready; probe dropped"),
            Some(Outgoing::Contact(c)) => {
                tracing::debug!(node = %c.node, "link not ready; contact dropped");
            }
        }
    }

    fn set_state(&self, state: LinkState) {
        match &state {
            LinkState::Connecting | LinkState::Handshaking => tracing::debug!(?state, "radio link"),
            _ => {}
        }
        self.ch.state.send_replace(state);
    }

    /// Publishes `Down` and logs it: a warning for a new reason, debug for a repeat.
    fn go_down(&mut self, reason: DownReason, retry_in: Duration) {
        self.failures = self.failures.saturating_add(1);
        if self.last_warned.as_ref() == Some(&reason) {
            tracing::debug!(%reason, ?retry_in, attempts = self.failures, "radio link still down");
        } else {
            tracing::warn!(%reason, ?retry_in, "radio link down");
            self.last_warned = Some(reason.clone());
        }
        self.set_state(LinkState::Down { reason, retry_in });
    }

    /// Publishes `Down` for a node another client took, and says why once per episode.
    fn yield_node(&mut self, retry_in: Duration, first: bool) {
        self.failures = self.failures.saturating_add(1);
        self.activity.taken_over();
        let secs = retry_in.as_secs();
        if first {
            tracing::warn!(
                "another client took the node's API; retrying in {secs} s — use a serial link \
                 or a multi-client proxy to share it"
            );
        } else {
            tracing::debug!(
                retry_in_secs = secs,
                "another client took the node's API again"
            );
        }
        self.last_warned = Some(DownReason::TakenOver);
        self.set_state(LinkState::Down {
            reason: DownReason::TakenOver,
            retry_in,
        });
    }
}
