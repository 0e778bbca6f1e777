//! One connection's life: the handshake, then the ready loop that reads frames, writes the
//! outbox's texts, sends heartbeats and notices a silent node.

use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use meshtastic::protobufs::{FromRadio, MeshPacket, ToRadio, from_radio};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc::error::TrySendError;
use tokio::time::{Instant, MissedTickBehavior};
use tokio_util::codec::Framed;

use super::{End, Link, VIEW_EVERY};
use crate::clock;
use crate::node::NodeId;
use crate::radio::DownReason;
use crate::radio::codec::{CodecError, FrameCodec};
use crate::radio::inbound::Verdict;
use crate::radio::session::{Handshake, new_nonce};
use crate::radio::transport::Connection;
use crate::radio::{
    ChannelMetrics, ChannelReading, Inbound, LinkEvent, LinkState, LocalNode, LoraRegion, Outgoing,
    ReadingSource, node_status, packet, telemetry,
};

/// How long a probe may go unanswered before the node counts as silent.
pub(super) const PROBE_TIMEOUT: Duration = Duration::from_secs(30);
/// A write that takes longer than this means the node stopped reading.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the link waits for the outbox to take an event before dropping it. The
/// outbox is always responsive, so this only breaks a would-be deadlock.
const EVENT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long the goodbye (`ToRadio.disconnect`) may take on close.
const GOODBYE_TIMEOUT: Duration = Duration::from_secs(1);

type Frames<S> = Framed<S, FrameCodec>;

/// Why a write did not go out.
enum WriteError {
    /// The message cannot be framed; only that message is lost, the link is fine.
    TooLarge(usize),
    /// The link is broken.
    Link(DownReason),
}

/// Frames and writes one message, bounded by `WRITE_TIMEOUT`.
async fn write<S>(frames: &mut Frames<S>, msg: &ToRadio) -> Result<(), WriteError>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let bytes = Bytes::from(packet::encode(msg));
    match tokio::time::timeout(WRITE_TIMEOUT, frames.send(bytes)).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(CodecError::TooLarge(n))) => Err(WriteError::TooLarge(n)),
        Ok(Err(CodecError::Io(e))) => Err(WriteError::Link(DownReason::Write {
            kind: e.kind(),
            error: e.to_string(),
        })),
        Err(_) => Err(WriteError::Link(DownReason::WriteTimeout)),
    }
}

/// Writes a message the link cannot do without (want_config, heartbeat).
async fn write_or_end<S>(frames: &mut Frames<S>, msg: &ToRadio) -> Result<(), End>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    match write(frames, msg).await {
        Ok(()) => Ok(()),
        Err(WriteError::TooLarge(n)) => Err(End::Lost(DownReason::ControlTooLarge(n))),
        Err(WriteError::Link(reason)) => Err(End::Lost(reason)),
    }
}

/// Turns a read result into a payload, or the reason the connection ended.
fn frame_or_end(frame: Option<Result<Bytes, CodecError>>) -> Result<Bytes, End> {
    match frame {
        Some(Ok(payload)) => Ok(payload),
        Some(Err(e)) => Err(End::Lost(DownReason::Read {
            kind: match &e {
                CodecError::Io(io) => Some(io.kind()),
                CodecError::TooLarge(_) => None,
            },
            error: e.to_string(),
        })),
        None => Err(End::Lost(DownReason::ClosedByNode)),
    }
}

/// Parses a frame; an undecodable one is logged and skipped.
fn decode(payload: &[u8]) -> Option<FromRadio> {
    match packet::decode_from_radio(payload) {
        Ok(msg) => Some(msg),
        Err(e) => {
            tracing::debug!(error = %e, len = payload.len(), "undecodable frame skipped");
            None
        }
    }
}

impl<C, F> Link<C>
where
    C: FnMut() -> F + Send + 'static,
    F: Future<Output = io::Result<Connection>> + Send + 'static,
{
    /// Runs one connection until it ends.
    pub(super) async fn serve<S>(&mut self, io: S) -> End
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        let mut frames = Framed::new(io, FrameCodec::new());
        let end = match self.handshake(&mut frames).await {
            Ok(()) => self.ready(&mut frames).await,
            Err(end) => end,
        };
        if end == End::Closed {
            // Best effort: tells a serial node the session is over.
            if tokio::time::timeout(
                GOODBYE_TIMEOUT,
                frames.send(Bytes::from(packet::encode(&packet::disconnect()))),
            )
            .await
            .is_err()
            {
                tracing::debug!("goodbye timed out");
            }
        }
        end
    }

    /// Sends `want_config` with a fresh nonce and reads until the node is configured.
    async fn handshake<S>(&mut self, frames: &mut Frames<S>) -> Result<(), End>
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        self.set_state(LinkState::Handshaking);
        let nonce = new_nonce(&mut rand::rng());
        write_or_end(frames, &packet::want_config(nonce)).await?;
        let deadline = tokio::time::sleep(self.cfg.handshake_timeout);
        tokio::pin!(deadline);
        let mut hs = Handshake::new(nonce);
        // The status message the node reports (firmware 2.8 only; `node_status`).
        let mut status = None;
        let (local, db) = loop {
            tokio::select! {
                _ = self.cancel.cancelled() => return Err(End::Closed),
                _ = &mut deadline => return Err(End::Lost(DownReason::HandshakeTimeout)),
                frame = frames.next() => {
                    let payload = frame_or_end(frame)?;
                    let Some(msg) = decode(&payload) else { continue };
                    if matches!(msg.payload_variant, Some(from_radio::PayloadVariant::ModuleConfig(_))) {
                        status = node_status::reported(&payload).or(status);
                    }
                    if matches!(msg.payload_variant, Some(from_radio::PayloadVariant::Rebooted(_))) {
                        // Seen on a serial port opened just as the node boots: whatever we
                        // wrote before is lost, so ask again; the outbox learns that the
                        // node's queue is gone.
                        tracing::info!("the node reports it just rebooted");
                        self.forward_to_outbox(LinkEvent::Rebooted).await;
                        write_or_end(frames, &packet::want_config(hs.nonce())).await?;
                        continue;
                    }
                    if let Some(done) = hs.on_message(&msg) {
                        break done;
                    }
                }
                w = self.ch.writes.recv(), if self.writes_open => self.discard(w),
            }
        };
        self.generation += 1;
        self.filter.set_local(local.num);
        self.me = Some(local.num);
        self.view.absorb(db);
        self.publish_view();
        let region = hs.region();
        self.ch.channel.send_modify(|c| c.region = region);
        if let Some(m) = hs.own_metrics() {
            self.publish_reading(m, ReadingSource::Handshake);
        }
        self.backoff.on_ready(Instant::now().into_std());
        self.takeover.on_ready(Instant::now().into_std());
        self.activity.ready(true);
        self.activity.frame();
        self.log_ready(&local, region);
        self.advertise(frames, local.num, status.as_deref()).await?;
        self.failures = 0;
        self.last_warned = None;
        self.set_state(LinkState::Ready {
            generation: self.generation,
            local: Arc::new(local),
        });
        Ok(())
    }

    /// Says in the log that the link is ready, with what the handshake told of our node.
    fn log_ready(&self, local: &LocalNode, region: Option<LoraRegion>) {
        tracing::info!(
            generation = self.generation,
            node = %local.num,
            name = %local.names.long_name,
            firmware = %local.firmware_version,
            hop_limit = local.hop_limit,
            region = region.map_or("unknown", |r| r.name),
            duty_cycle = ?region.and_then(|r| r.duty_cycle),
            known_nodes = local.known_nodes,
            failed_attempts = self.failures,
            "radio link ready"
        );
        if local.licensed {
            tracing::warn!(
                node = %local.num,
                "our node is in licensed (ham) mode: PKI is off on it, so no DM can be proven \
                 — [access] require_pki and pinned keys cannot work; DMs from nodes that used \
                 PKI are answered without memory and run no command but !help \
                 (docs/security.md, \"Licensed nodes\"); to use PKI again turn licensed mode \
                 off on the node, or let those users start afresh with `meshai forget`"
            );
        }
    }

    /// Keeps our node's status message (firmware 2.8) equal to `[radio] node_status`, given
    /// the one it reported (`have`) at the handshake just done.
    async fn advertise<S>(
        &mut self,
        frames: &mut Frames<S>,
        me: NodeId,
        have: Option<&str>,
    ) -> Result<(), End>
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        match node_status::step(self.cfg.node_status.as_deref(), have) {
            node_status::Step::Keep => Ok(()),
            node_status::Step::Set(status) => {
                tracing::info!(%status, was = have.unwrap_or_default(), "setting our node's status message");
                write_or_end(frames, &node_status::set_packet(me, &status)).await
            }
            node_status::Step::Unsupported if self.generation == 1 => {
                tracing::warn!(
                    "[radio] node_status is set, but our node reports no status message: it \
                     needs firmware 2.8 or newer, so nothing is advertised"
                );
                Ok(())
            }
            node_status::Step::Unsupported => Ok(()),
        }
    }

    /// The ready loop: reads frames, writes, heartbeats, probes a silent node.
    async fn ready<S>(&mut self, frames: &mut Frames<S>) -> End
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        let every = self.cfg.heartbeat_interval;
        let mut heartbeat = tokio::time::interval_at(Instant::now() + every, every);
        heartbeat.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let mut last_rx = Instant::now();
        let mut probe_sent: Option<Instant> = None;
        loop {
            let silent_at = match probe_sent {
                Some(at) => at + PROBE_TIMEOUT,
                None => last_rx + self.cfg.silence_timeout,
            };
            let (view_due, view_dirty) = (self.view_due(), self.view_dirty);
            let step = tokio::select! {
                _ = self.cancel.cancelled() => Err(End::Closed),
                frame = frames.next() => match frame_or_end(frame) {
                    Ok(payload) => {
                        last_rx = Instant::now();
                        probe_sent = None;
                        self.activity.frame();
                        self.on_frame(&payload).await
                    }
                    Err(end) => Err(end),
                },
                w = self.ch.writes.recv(), if self.writes_open => self.on_write(frames, w).await,
                _ = heartbeat.tick() => write_or_end(frames, &packet::heartbeat()).await,
                _ = tokio::time::sleep_until(view_due), if view_dirty => {
                    self.publish_view();
                    Ok(())
                }
                _ = tokio::time::sleep_until(silent_at) => {
                    if probe_sent.is_some() {
                        Err(End::Lost(DownReason::Silent))
                    } else {
                        tracing::debug!(silent_for = ?self.cfg.silence_timeout, "no frame from the node; probing");
                        probe_sent = Some(Instant::now());
                        write_or_end(frames, &packet::heartbeat()).await
                    }
                }
            };
            if let Err(end) = step {
                return end;
            }
        }
    }

    /// Writes what the outbox asked for, if it still applies.
    async fn on_write<S>(&mut self, frames: &mut Frames<S>, w: Option<Outgoing>) -> Result<(), End>
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        let msg = match w {
            None => {
                self.writes_open = false;
                return Ok(());
            }
            Some(Outgoing::Probe) => packet::heartbeat(),
            Some(Outgoing::Text(t)) if t.generation != self.generation => {
                tracing::debug!(
                    id = t.id,
                    generation = t.generation,
                    "text for an older link dropped"
                );
                return Ok(());
            }
            Some(Outgoing::Text(t)) => {
                tracing::debug!(id = t.id, to = %t.to, channel = t.channel, "writing text");
                packet::text_packet(&t)
            }
            Some(Outgoing::Contact(c)) => match self.me {
                Some(me) if c.generation == self.generation => {
                    tracing::info!(node = %c.node, "handing our node a key it lost");
                    let node = self.view.node(c.node);
                    let names = node.and_then(|n| n.names.as_ref());
                    packet::contact_packet(me, &c, names, node.and_then(|n| n.hardware))
                }
                _ => {
                    tracing::debug!(node = %c.node, "contact for an older link dropped");
                    return Ok(());
                }
            },
        };
        match write(frames, &msg).await {
            Ok(()) => Ok(()),
            Err(WriteError::TooLarge(n)) => {
                tracing::warn!(bytes = n, "packet too large to frame; dropped");
                Ok(())
            }
            Err(WriteError::Link(reason)) => Err(End::Lost(reason)),
        }
    }

    /// Handles one frame from the ready node.
    async fn on_frame(&mut self, payload: &[u8]) -> Result<(), End> {
        use from_radio::PayloadVariant as V;
        let Some(msg) = decode(payload) else {
            return Ok(());
        };
        match msg.payload_variant {
            Some(V::Packet(p)) => self.on_packet(&p, packet::xeddsa_signed(payload)).await,
            Some(V::QueueStatus(q)) => {
                self.forward_to_outbox(LinkEvent::QueueStatus {
                    res: q.res,
                    free: q.free,
                    maxlen: q.maxlen,
                    mesh_packet_id: q.mesh_packet_id,
                })
                .await;
            }
            Some(V::Rebooted(_)) => {
                // The outbox must know before the link goes down: the node's queue is gone.
                self.forward_to_outbox(LinkEvent::Rebooted).await;
                return Err(End::Rebooted);
            }
            Some(V::NodeInfo(n)) => {
                self.view.update_from_node_info(&n);
                self.view_changed();
            }
            Some(V::ClientNotification(n)) => {
                tracing::info!(message = %n.message, level = n.level, "node notification");
            }
            Some(V::LogRecord(r)) => tracing::trace!(message = %r.message, "node log record"),
            other => tracing::trace!(?other, "frame ignored"),
        }
        Ok(())
    }

    /// Routes one mesh packet: ACK/NAK to the outbox, what nodes broadcast to the mesh view,
    /// texts through the filter to the daemon.
    async fn on_packet(&mut self, p: &MeshPacket, signed: bool) {
        if let Some(ev) = packet::routing_event(p) {
            self.forward_to_outbox(ev).await;
            return;
        }
        if self.view.on_packet(p, clock::unix_now()) {
            self.view_changed();
        }
        if packet::node_info_user(p).is_some() || packet::position_report(p).is_some() {
            return;
        }
        if let Some(me) = self.me
            && let Some((metrics, source)) = telemetry::own_telemetry(p, me)
        {
            self.publish_reading(metrics, source);
            return;
        }
        let verdict = self.filter.accept(
            p,
            signed,
            Instant::now().into_std(),
            &self.view,
            SystemTime::now(),
        );
        let msg = match verdict {
            Verdict::Dm(m) => {
                tracing::debug!(from = %m.from, id = m.packet_id, text = %m.text, "dm received");
                Inbound::Dm(m)
            }
            Verdict::Broadcast(m) => {
                tracing::debug!(from = %m.from, channel = m.channel, text = %m.text, "broadcast received");
                Inbound::Broadcast(m)
            }
            Verdict::Skip(reason) => {
                tracing::trace!(?reason, from = %NodeId(p.from), id = p.id, "packet skipped");
                return;
            }
        };
        match self.ch.inbound.try_send(msg) {
            Ok(()) => {}
            Err(TrySendError::Full(msg)) => {
                let from = match &msg {
                    Inbound::Dm(m) | Inbound::Broadcast(m) => m.from,
                };
                tracing::warn!(%from, "daemon is behind; incoming message dropped");
            }
            Err(TrySendError::Closed(_)) => tracing::debug!("nobody takes incoming messages"),
        }
    }

    /// The view changed: published now, unless it was less than [`VIEW_EVERY`] ago (then
    /// the ready loop publishes it when that is over).
    fn view_changed(&mut self) {
        self.view_dirty = true;
        if self
            .view_published
            .is_none_or(|at| at.elapsed() >= VIEW_EVERY)
        {
            self.publish_view();
        }
    }

    /// When the changed view may be published.
    fn view_due(&self) -> Instant {
        self.view_published
            .map_or_else(Instant::now, |at| at + VIEW_EVERY)
    }

    /// Publishes a copy of the view (never waits on anyone).
    fn publish_view(&mut self) {
        self.view_dirty = false;
        self.view_published = Some(Instant::now());
        self.activity.mesh_nodes(self.view.len());
        self.ch.mesh.send_replace(Arc::new(self.view.clone()));
    }

    /// Publishes a new reading of our node's channel numbers (never waits on anyone).
    fn publish_reading(&mut self, metrics: ChannelMetrics, source: ReadingSource) {
        self.view.set_channel(metrics, clock::unix_now());
        self.view_changed();
        tracing::trace!(
            channel_utilization = metrics.channel_utilization,
            air_util_tx = ?metrics.air_util_tx,
            ?source,
            "channel reading"
        );
        let at = Instant::now().into_std();
        self.ch.channel.send_modify(|c| {
            c.reading = Some(ChannelReading {
                metrics,
                at,
                source,
            });
            c.readings += 1;
        });
    }

    async fn forward_to_outbox(&mut self, ev: LinkEvent) {
        match tokio::time::timeout(EVENT_TIMEOUT, self.ch.events.send(ev)).await {
            Ok(Ok(())) => {}
            Ok(Err(_)) => tracing::trace!("outbox gone; event dropped"),
            Err(_) => tracing::warn!("outbox not taking events; event dropped"),
        }
    }
}
