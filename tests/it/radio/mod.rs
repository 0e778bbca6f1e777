//! The daemon's radio (`meshai::radio::Radio`) against the simulated node: issue 2's "done
//! when" list, one test (or one table) per item.
//!
//! - `inbound`: what comes in: DMs with their details, and every filter rule with a positive
//!   control after it.
//! - `link`: reconnects, reboots, heartbeats and the serial transport over a pty.
//! - `outbox`: what goes out: pacing, waiting for ACKs, replies that outlive a reconnect, and
//!   the fields of a sent packet.
//! - `naks`: every routing answer's path, and a full TX queue.
//! - `shared`: a TCP node another client keeps taking: the link yields instead of fighting
//!   (issue 18).
//!
//! Everything but the pty test runs in paused time: the radio and the sim only wait on tokio
//! timers and loopback TCP with `TCP_NODELAY`, so 45 s ACK timeouts cost no real time.

mod inbound;
mod link;
mod naks;
mod outbox;
mod shared;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use meshai::node::{NodeId, Standing};
use meshai::radio::{
    Inbound, LinkState, LocalNode, Radio, RadioConfig, ReplyReport, ReplyRequest, TextMessage,
    Transport,
};
use tokio::sync::{mpsc, oneshot, watch};

use crate::support::sim_node::{SimConfig, SimNode, SimPeer};

/// Our node, as the sim reports it by default.
const ME: u32 = 0x1234_5678;
/// Peers the sim's node DB knows by name.
const ALICE: u32 = 0x0A0B_0C0D;
const BOB: u32 = 0x0B0B_0B0B;
/// Nodes the sim's node DB does not know.
const CAROL: u32 = 0x0C0C_0C0C;
const DAVE: u32 = 0x0D0D_0D0D;
const ERIN: u32 = 0x0E0E_0E0E;

/// The standing of the replies these tests queue: proven, so every part is held until its
/// ACK, like any part to a node that ACKs (parts to ids that never ACKed, as forged ones, are
/// `tests/it/flood.rs`'s subject).
const HELD: Standing = Standing::Proven;

/// How long a paused-time test waits for something that must happen. Paused time only jumps
/// ahead when nothing else can run, so this is reached only when the awaited event never comes.
const WAIT: Duration = Duration::from_secs(3600);

/// Room for inbound messages; the tests read them as they come.
const INBOUND_QUEUE: usize = 32;

/// The sim as most tests want it: two named peers and two secondary channels.
fn sim_config() -> SimConfig {
    SimConfig {
        peers: vec![
            SimPeer::new(ALICE, "Peer Alice", "ALI"),
            SimPeer::new(BOB, "Peer Bob", "BOB"),
        ],
        secondary_channels: vec!["Ops".into(), "Wx".into()],
        ..SimConfig::default()
    }
}

/// The radio's defaults (2 s gap, 45 s ACK timeout, 300 s heartbeat and duty-cycle pause),
/// pointed at the sim's TCP port.
fn tcp_config(sim: &SimNode) -> RadioConfig {
    RadioConfig::new(Transport::tcp("127.0.0.1", sim.addr().port()))
}

/// A one-channel reply request on channel 0.
fn reply(to: u32, parts: &[&str]) -> ReplyRequest {
    ReplyRequest {
        to: NodeId(to),
        channel: 0,
        reply_to: None,
        parts: parts.iter().map(|p| p.to_string()).collect(),
        pki: false,
        asked: Default::default(),
        receipt: false,
        pinned: None,
    }
}

/// Awaits `f` for at most `within`; panics with `what` if it does not finish.
async fn within<T>(within: Duration, what: &str, f: impl Future<Output = T>) -> T {
    match tokio::time::timeout(within, f).await {
        Ok(v) => v,
        Err(_) => panic!("{within:?} passed without {what}"),
    }
}

/// A simulated node with the daemon's radio attached to it.
struct Rig {
    sim: SimNode,
    radio: Radio,
    inbound: mpsc::Receiver<Inbound>,
    state: watch::Receiver<LinkState>,
}

impl Rig {
    /// Starts the sim and a radio with the default config; waits for the first handshake.
    async fn start(cfg: SimConfig) -> Rig {
        Rig::start_with(cfg, |_| {}).await
    }

    /// Like [`Rig::start`], with the radio config changed by `tweak` first.
    async fn start_with(cfg: SimConfig, tweak: impl FnOnce(&mut RadioConfig)) -> Rig {
        let sim = SimNode::start(cfg).await;
        let mut radio_cfg = tcp_config(&sim);
        tweak(&mut radio_cfg);
        let mut rig = Rig::attach(sim, radio_cfg);
        rig.ready(1).await;
        rig
    }

    /// Starts a radio on an existing sim; does not wait for anything.
    fn attach(sim: SimNode, cfg: RadioConfig) -> Rig {
        let (tx, inbound) = mpsc::channel(INBOUND_QUEUE);
        let radio = Radio::spawn(cfg, tx);
        let state = radio.state();
        Rig {
            sim,
            radio,
            inbound,
            state,
        }
    }

    /// Waits until the link is Ready with `generation`; panics on a later one.
    async fn ready(&mut self, generation: u64) -> Arc<LocalNode> {
        let what = format!("link generation {generation}");
        let reached =
            |s: &LinkState| matches!(s, LinkState::Ready { generation: g, .. } if *g >= generation);
        let state = within(WAIT, &what, self.state.wait_for(reached))
            .await
            .expect("the link task is running")
            .clone();
        match state {
            LinkState::Ready {
                generation: g,
                local,
            } => {
                assert_eq!(g, generation, "the link skipped or repeated a generation");
                local
            }
            other => unreachable!("wait_for returned {other:?}"),
        }
    }

    /// Waits until the link is Down; returns the reason.
    async fn down(&mut self) -> String {
        let down = |s: &LinkState| matches!(s, LinkState::Down { .. });
        let state = within(WAIT, "link down", self.state.wait_for(down))
            .await
            .expect("the link task is running")
            .clone();
        match state {
            LinkState::Down { reason, .. } => reason.to_string(),
            other => unreachable!("wait_for returned {other:?}"),
        }
    }

    /// The next inbound event.
    async fn next(&mut self) -> Inbound {
        within(WAIT, "an inbound message", self.inbound.recv())
            .await
            .expect("the radio is running")
    }

    /// The next inbound event, which must be a DM.
    async fn dm(&mut self) -> TextMessage {
        match self.next().await {
            Inbound::Dm(m) => m,
            other => panic!("expected a DM, got {other:?}"),
        }
    }

    /// Injects a DM from `from` and checks it comes through with that text; returns it.
    async fn dm_round_trip(&mut self, from: u32, text: &str) -> TextMessage {
        let id = self.sim.inject_dm(from, text, None);
        let m = self.dm().await;
        assert_eq!(
            (m.from, m.packet_id, m.text.as_str()),
            (NodeId(from), id, text)
        );
        m
    }

    /// Queues a reply; the receiver gets its report.
    async fn send(&self, req: ReplyRequest) -> oneshot::Receiver<ReplyReport> {
        self.radio
            .outbox()
            .send(req, HELD)
            .await
            .expect("the outbox takes replies")
    }
}

/// Waits for a reply's report.
async fn report(rx: oneshot::Receiver<ReplyReport>) -> ReplyReport {
    within(WAIT, "a reply report", rx)
        .await
        .expect("the outbox reports every reply")
}
