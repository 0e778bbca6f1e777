//! `SimNode`: an in-process Meshtastic node that speaks the stream API like firmware 2.7,
//! over TCP on 127.0.0.1 port 0 or over any stream (a pty for the serial path).
//!
//! Like a node's TCP API it serves one client: a new connection force-closes the previous
//! one (`kicked` counts them), as `APIServerPort::runOnce` does with the firmware's default
//! `MESHTASTIC_TCP_API_MAX_CLIENTS` = 1.
//!
//! It is an honest, independent implementation of the firmware side (it never uses
//! `meshai::radio`): `frame` does the framing, `firmware` decides every answer without I/O,
//! `packets` builds the protobufs, `session` moves the bytes. This file is the test-facing
//! handle: setup, scripting, injection, the record and waiting on it.

pub mod firmware;
pub mod frame;
pub mod packets;
mod session;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use meshtastic::protobufs::{MeshPacket, SharedContact, from_radio, telemetry};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio_serial::SerialPort;
use tokio_util::sync::CancellationToken;

// The vocabulary the daemon tests use, re-exported; not every test binary uses all of it.
#[allow(unused_imports)]
pub use firmware::{
    AckPlan, RATE_LIMIT_EXCEEDED, ReceivedToRadio, SentText, SimConfig, SimLog, SimPeer,
};
#[allow(unused_imports)]
pub use packets::{BROADCAST, MeshPacketSpec};

use firmware::Firmware;
use session::Shared;

/// Injected packets remembered for [`SimNode::inject_duplicate`].
const INJECTED_MAX: usize = 256;

/// The simulated node. Dropping it stops the listener, the session and pending ACK timers.
pub struct SimNode {
    shared: Arc<Shared>,
    /// Set when started with [`SimNode::start`].
    addr: Option<SocketAddr>,
    /// Recent injected packets, for re-sending one as a duplicate.
    injected: std::sync::Mutex<std::collections::VecDeque<MeshPacket>>,
}

/// The serial side of a pty-attached sim: the daemon opens `path`; `slave` keeps the pty
/// alive between the daemon's opens (without it the master sees a hang-up).
pub struct SimPty {
    pub path: String,
    pub slave: tokio_serial::SerialStream,
}

impl SimNode {
    fn new(cfg: SimConfig, addr: Option<SocketAddr>, stop: CancellationToken) -> SimNode {
        SimNode {
            shared: Shared::new(Firmware::new(cfg), stop),
            addr,
            injected: Default::default(),
        }
    }

    /// Starts a node listening on 127.0.0.1, port chosen by the OS.
    pub async fn start(cfg: SimConfig) -> SimNode {
        SimNode::start_on(cfg, 0).await
    }

    /// Starts a node listening on 127.0.0.1:`port` (0: chosen by the OS).
    pub async fn start_on(cfg: SimConfig, port: u16) -> SimNode {
        let listener = TcpListener::bind(("127.0.0.1", port))
            .await
            .expect("sim: bind 127.0.0.1");
        let addr = listener.local_addr().expect("sim: local address");
        let sim = SimNode::new(cfg, Some(addr), CancellationToken::new());
        tokio::spawn(session::accept_loop(sim.shared.clone(), listener));
        sim
    }

    /// Starts a node serving one stream (e.g. a pty master); no TCP listener.
    pub fn attach<S>(cfg: SimConfig, stream: S) -> SimNode
    where
        S: AsyncRead + AsyncWrite + Send + Unpin + 'static,
    {
        let sim = SimNode::new(cfg, None, CancellationToken::new());
        sim.serve(stream);
        sim
    }

    /// Starts a node on the master side of a fresh pty pair (unix); the daemon opens `path`.
    pub fn start_pty(cfg: SimConfig) -> (SimNode, SimPty) {
        let (master, slave) = tokio_serial::SerialStream::pair().expect("sim: open a pty pair");
        let path = slave.name().expect("sim: the pty slave has a path");
        (SimNode::attach(cfg, master), SimPty { path, slave })
    }

    /// Serves another stream; it force-closes the current client, as a new connection does.
    pub fn serve<S>(&self, stream: S)
    where
        S: AsyncRead + AsyncWrite + Send + Unpin + 'static,
    {
        session::serve(&self.shared, stream);
    }

    /// Where to connect: give it to the daemon as `[radio] tcp`.
    #[track_caller]
    pub fn addr(&self) -> SocketAddr {
        self.addr
            .expect("sim: started with attach, it has no TCP address")
    }

    pub fn node_num(&self) -> u32 {
        self.shared.lock().fw.cfg.node_num
    }

    /// The node's config as it is now (the `set_*` calls change it).
    pub fn config(&self) -> SimConfig {
        self.shared.lock().fw.cfg.clone()
    }

    // Scripting.

    /// Queues the answer for the next `want_ack` text the node accepts (default: `Ack`).
    pub fn push_ack_plan(&self, plan: AckPlan) {
        self.shared.update(|st| st.fw.ack_plans.push_back(plan));
    }

    /// Queues answers for the next texts, in order.
    pub fn push_ack_plans(&self, plans: impl IntoIterator<Item = AckPlan>) {
        self.shared.update(|st| st.fw.ack_plans.extend(plans));
    }

    /// Sets `QueueStatus.free` for the next answers (0 = the TX queue is full).
    pub fn set_queue_free(&self, free: u32) {
        self.shared.update(|st| st.fw.cfg.queue_free = free);
    }

    pub fn set_ack_delay(&self, delay: Duration) {
        self.shared.update(|st| st.fw.cfg.ack_delay = delay);
    }

    /// From now on texts to `node` get no answer at all (it walked out of range), as for the
    /// config's `never_ack`; a text already accepted keeps its answer.
    pub fn stop_acking(&self, node: u32) {
        self.shared.update(|st| {
            if !st.fw.cfg.never_ack.contains(&node) {
                st.fw.cfg.never_ack.push(node);
            }
        });
    }

    /// Texts to `node` are answered again (it came back into range).
    pub fn resume_acking(&self, node: u32) {
        self.shared
            .update(|st| st.fw.cfg.never_ack.retain(|&n| n != node));
    }

    /// Texts sent `pki_encrypted` to `to` get a Routing NAK `reason` (34 PKI_FAILED, 35
    /// PKI_UNKNOWN_PUBKEY, 39 PKI_SEND_FAIL_PUBLIC_KEY), as from a node that cannot
    /// encrypt for it.
    pub fn nak_pki_to(&self, to: u32, reason: i32) {
        self.shared.update(|st| st.fw.pki_naks.push((to, reason)));
    }

    /// PKI_UNKNOWN_PUBKEY NAKs go on after a contact with the key is added (a node that
    /// evicts it again at once).
    pub fn keep_pki_naks(&self) {
        self.shared.update(|st| st.fw.keep_pki_naks = true);
    }

    /// The contacts the client added to our node (`AdminMessage.add_contact`), in order.
    pub fn contacts(&self) -> Vec<SharedContact> {
        self.shared.lock().fw.log.contacts.clone()
    }

    /// Whether heartbeats get a `queueStatus` (firmware ≥ 2.7.5) or silence (older).
    pub fn set_answer_heartbeats(&self, answer: bool) {
        self.shared
            .update(|st| st.fw.cfg.answer_heartbeats = answer);
    }

    /// Changes the names the next handshake reports for our node.
    pub fn set_names(&self, long_name: &str, short_name: &str) {
        self.shared.update(|st| {
            st.fw.cfg.long_name = long_name.to_string();
            st.fw.cfg.short_name = short_name.to_string();
        });
    }

    /// Puts our node in licensed (ham) mode or out of it, from the next handshake on: its
    /// own `User.is_licensed`, and it then refuses PKI-only texts (`PKI_FAILED`), as a
    /// licensed node never uses PKI.
    pub fn set_licensed(&self, licensed: bool) {
        self.shared.update(|st| st.fw.cfg.licensed = licensed);
    }

    // Injection towards the client. Mesh packets wait until the client has finished its
    // handshake (and across reconnects), as in the firmware's queue to the phone.

    /// A text DM from `from` to our node on channel 0; returns the packet id used.
    pub fn inject_dm(&self, from: u32, text: &str, id: Option<u32>) -> u32 {
        self.inject_text(MeshPacketSpec {
            id,
            ..MeshPacketSpec::text(from, text)
        })
    }

    /// A PKI DM from `from` with its public `key`; returns the packet id used.
    pub fn inject_pki_dm(&self, from: u32, text: &str, key: [u8; 32]) -> u32 {
        self.inject_text(MeshPacketSpec::pki(from, text, key))
    }

    /// Any packet, fully described; returns the packet id used.
    pub fn inject_text(&self, spec: MeshPacketSpec) -> u32 {
        let p = self.shared.update(|st| {
            let id = st.fw.fresh_id();
            let p = spec.build(st.fw.cfg.node_num, id);
            st.deliver(packets::packet(p.clone()));
            p
        });
        let id = p.id;
        self.remember(p);
        id
    }

    /// A NODEINFO_APP broadcast announcing `num`'s names; returns the packet id used.
    pub fn inject_nodeinfo(&self, num: u32, long_name: &str, short_name: &str) -> u32 {
        let p = self.shared.update(|st| {
            let p = packets::nodeinfo_packet(num, st.fw.fresh_id(), long_name, short_name);
            st.deliver(packets::packet(p.clone()));
            p
        });
        let id = p.id;
        self.remember(p);
        id
    }

    /// A POSITION_APP broadcast from `num` (degrees × 1e7); returns the packet id used.
    pub fn inject_position(&self, num: u32, latitude_i: i32, longitude_i: i32) -> u32 {
        let p = self.shared.update(|st| {
            let p = packets::position_packet(num, st.fw.fresh_id(), latitude_i, longitude_i);
            st.deliver(packets::packet(p.clone()));
            p
        });
        let id = p.id;
        self.remember(p);
        id
    }

    /// A POSITION_APP broadcast from `num` that our radio heard `ago` seconds back (its
    /// `rx_time`): fresh at 0, or one queued while no client was attached; returns its id.
    pub fn inject_position_heard(
        &self,
        num: u32,
        latitude_i: i32,
        longitude_i: i32,
        ago: u32,
    ) -> u32 {
        let p = self.shared.update(|st| {
            let p = MeshPacket {
                rx_time: packets::wall_clock_ago(ago),
                ..packets::position_packet(num, st.fw.fresh_id(), latitude_i, longitude_i)
            };
            st.deliver(packets::packet(p.clone()));
            p
        });
        p.id
    }

    /// A TELEMETRY_APP `device_metrics` packet from our node, as the firmware sends its
    /// client every minute; returns the packet id used.
    pub fn inject_telemetry(&self, channel_utilization: f32, air_util_tx: f32) -> u32 {
        let metrics = packets::device_metrics(channel_utilization, air_util_tx);
        self.inject_own_telemetry(telemetry::Variant::DeviceMetrics(metrics))
    }

    /// A TELEMETRY_APP `local_stats` packet from our node (every 15 minutes in the firmware).
    pub fn inject_local_stats(&self, channel_utilization: f32, air_util_tx: f32) -> u32 {
        let stats = packets::local_stats(channel_utilization, air_util_tx);
        self.inject_own_telemetry(telemetry::Variant::LocalStats(stats))
    }

    /// A TELEMETRY_APP `environment_metrics` broadcast from another node `num` (a weather
    /// node), relayed once; returns the packet id used.
    pub fn inject_environment(
        &self,
        num: u32,
        temperature: f32,
        humidity: f32,
        pressure: f32,
    ) -> u32 {
        let env = meshtastic::protobufs::EnvironmentMetrics {
            temperature: Some(temperature),
            relative_humidity: Some(humidity),
            barometric_pressure: Some(pressure),
            ..Default::default()
        };
        self.inject_peer_telemetry(num, telemetry::Variant::EnvironmentMetrics(env))
    }

    /// A TELEMETRY_APP `device_metrics` broadcast from another node `num`: its battery and
    /// voltage; returns the packet id used.
    pub fn inject_battery(&self, num: u32, level: u32, voltage: f32) -> u32 {
        let metrics = meshtastic::protobufs::DeviceMetrics {
            battery_level: Some(level),
            voltage: Some(voltage),
            channel_utilization: Some(12.0),
            air_util_tx: Some(0.8),
            uptime_seconds: Some(7200),
        };
        self.inject_peer_telemetry(num, telemetry::Variant::DeviceMetrics(metrics))
    }

    fn inject_peer_telemetry(&self, num: u32, variant: telemetry::Variant) -> u32 {
        let p = self.shared.update(|st| {
            let p = packets::peer_telemetry_packet(num, st.fw.fresh_id(), 1, variant);
            st.deliver(packets::packet(p.clone()));
            p
        });
        p.id
    }

    fn inject_own_telemetry(&self, variant: telemetry::Variant) -> u32 {
        let p = self.shared.update(|st| {
            let p = packets::telemetry_packet(st.fw.cfg.node_num, st.fw.fresh_id(), variant);
            st.deliver(packets::packet(p.clone()));
            p
        });
        p.id
    }

    /// Changes the channel numbers the next handshake reports in our node info.
    pub fn set_device_metrics(&self, metrics: Option<(f32, f32)>) {
        self.shared.update(|st| st.fw.cfg.device_metrics = metrics);
    }

    /// Sends an injected packet again, same `from` and `id`, as if heard over a longer path.
    #[track_caller]
    pub fn inject_duplicate(&self, id: u32) {
        let found = self
            .injected
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .rev()
            .find(|p| p.id == id)
            .cloned();
        let mut p = found.unwrap_or_else(|| panic!("sim: no injected packet with id {id:#x}"));
        p.hop_limit = p.hop_limit.saturating_sub(1);
        self.shared.update(|st| st.deliver(packets::packet(p)));
    }

    /// Raw bytes (log text, garbage) written now to the current client; false if none.
    pub fn inject_raw(&self, bytes: &[u8]) -> bool {
        self.shared.update(|st| st.write_raw(bytes.to_vec()))
    }

    /// Tells the client the node rebooted: `FromRadio.rebooted`, the session is unconfigured
    /// until the next handshake, and the rate limiter and seen ids are forgotten.
    pub fn send_rebooted(&self) -> bool {
        self.shared.update(rebooted)
    }

    /// Like [`SimNode::send_rebooted`], but only while nothing waits in the queue to the
    /// client (false otherwise, and nothing happens). A reboot loses that queue: an ACK in it
    /// would be lost, and the client, rightly, would send its part again, which went out
    /// already. A soak that wants no duplicates reboots so.
    pub fn send_rebooted_if_quiet(&self) -> bool {
        self.shared
            .update(|st| st.to_phone.is_empty() && rebooted(st))
    }

    /// Reboots without telling the client, as a node powered from a USB port that was
    /// unplugged: the connection closes, the TX queue is lost, and only the next handshake's
    /// `reboot_count` shows it.
    pub fn reboot_silently(&self) {
        self.shared.update(|st| {
            st.fw.reboot();
            st.to_phone.clear();
            st.close_session();
        });
    }

    /// Cuts the connection right after accepting the next text, before its `queueStatus`:
    /// the client cannot know the node has it. Its ACK waits for the next connection.
    pub fn cut_after_next_text(&self) {
        self.shared.update(|st| st.fw.cut_after_next_text = true);
    }

    /// Closes the current client's connection now; the next connection is served as usual.
    pub fn drop_connection(&self) {
        self.shared.update(|st| st.close_session());
    }

    fn remember(&self, p: MeshPacket) {
        let mut injected = self.injected.lock().unwrap_or_else(|e| e.into_inner());
        if injected.len() >= INJECTED_MAX {
            injected.pop_front();
        }
        injected.push_back(p);
    }

    // The record.

    /// A snapshot of everything the node saw.
    pub fn log(&self) -> SimLog {
        self.shared.lock().fw.log.clone()
    }

    /// The texts the node sent (not those a reboot lost).
    pub fn texts(&self) -> Vec<SentText> {
        self.shared.lock().fw.log.texts.clone()
    }

    /// The texts a reboot took out of the node's queue before they went out.
    pub fn lost_in_reboot(&self) -> Vec<SentText> {
        self.shared.lock().fw.log.lost_in_reboot.clone()
    }

    pub fn to_radio(&self) -> Vec<ReceivedToRadio> {
        self.shared.lock().fw.log.to_radio.clone()
    }

    pub fn handshakes(&self) -> usize {
        self.shared.lock().fw.log.handshakes()
    }

    pub fn heartbeats(&self) -> u32 {
        self.shared.lock().fw.log.heartbeats
    }

    pub fn connections(&self) -> u32 {
        self.shared.lock().fw.log.connections
    }

    /// Clients force-closed because a newer one connected.
    pub fn kicked(&self) -> u32 {
        self.shared.lock().fw.log.kicked
    }

    pub fn rate_limit_refusals(&self) -> u32 {
        self.shared.lock().fw.log.rate_limit_refusals
    }

    /// Mesh packets for the client dropped because its queue was full.
    pub fn to_client_dropped(&self) -> u32 {
        self.shared.lock().fw.log.to_client_dropped
    }

    /// Waits until the node is idle: a client is connected past its handshake, every text
    /// has had its routing answer, and nothing waits in the queue to the client (so an ACK
    /// is not lost to a full queue if the link drops next). False after `timeout`.
    pub async fn wait_idle(&self, timeout: Duration) -> bool {
        let idle = |st: &session::State| {
            st.session.as_ref().is_some_and(|s| s.ready)
                && st.to_phone.is_empty()
                && st.fw.all_answered()
        };
        let deadline = tokio::time::Instant::now() + timeout;
        let mut changed = self.shared.changed.subscribe();
        loop {
            if idle(&self.shared.lock()) {
                return true;
            }
            // Timers (ACKs) change the state without always bumping: look again soon.
            let tick = tokio::time::Instant::now() + Duration::from_millis(20);
            let _ = tokio::time::timeout_at(tick.min(deadline), changed.changed()).await;
            if tokio::time::Instant::now() >= deadline {
                return idle(&self.shared.lock());
            }
        }
    }

    /// True while a client is connected (handshake done or not).
    pub fn is_connected(&self) -> bool {
        self.shared.lock().session.is_some()
    }

    /// True while a client is connected and has finished its handshake.
    pub fn is_ready(&self) -> bool {
        self.shared.lock().session.as_ref().is_some_and(|s| s.ready)
    }

    /// Waits until `pred` holds for the record (true) or `timeout` passes (false).
    /// Woken by every change, never by polling.
    pub async fn wait_for(&self, timeout: Duration, pred: impl Fn(&SimLog) -> bool) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        let mut changed = self.shared.changed.subscribe();
        loop {
            if pred(&self.shared.lock().fw.log) {
                return true;
            }
            match tokio::time::timeout_at(deadline, changed.changed()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) | Err(_) => return pred(&self.shared.lock().fw.log),
            }
        }
    }

    /// Waits for at least `n` accepted texts and returns them all; panics after `timeout`.
    #[track_caller]
    pub fn wait_texts(
        &self,
        n: usize,
        timeout: Duration,
    ) -> impl std::future::Future<Output = Vec<SentText>> + '_ {
        let caller = std::panic::Location::caller();
        async move {
            if !self.wait_for(timeout, |l| l.texts.len() >= n).await {
                panic!(
                    "sim: {timeout:?} passed without {n} texts (at {caller}); got {:#?}",
                    self.texts()
                );
            }
            self.texts()
        }
    }

    /// Waits for at least `n` answered handshakes; panics after `timeout`.
    pub async fn wait_handshakes(&self, n: usize, timeout: Duration) {
        let ok = self.wait_for(timeout, |l| l.handshakes() >= n).await;
        assert!(
            ok,
            "sim: {timeout:?} passed without {n} handshakes; got {}",
            self.handshakes()
        );
    }

    /// Waits for at least `n` accepted connections; panics after `timeout`.
    pub async fn wait_connections(&self, n: u32, timeout: Duration) {
        let ok = self.wait_for(timeout, |l| l.connections >= n).await;
        assert!(
            ok,
            "sim: {timeout:?} passed without {n} connections; got {}",
            self.connections()
        );
    }

    /// Waits for at least `n` keep-alive heartbeats; panics after `timeout`.
    pub async fn wait_heartbeats(&self, n: u32, timeout: Duration) {
        let ok = self.wait_for(timeout, |l| l.heartbeats >= n).await;
        assert!(
            ok,
            "sim: {timeout:?} passed without {n} heartbeats; got {}",
            self.heartbeats()
        );
    }
}

impl Drop for SimNode {
    fn drop(&mut self) {
        self.shared.stop.cancel();
    }
}

/// The node reboots and says so; the firmware's RAM is gone, the packets queued for the
/// client with it.
fn rebooted(st: &mut session::State) -> bool {
    st.fw.reboot();
    st.to_phone.clear();
    let msg = packets::from_radio(from_radio::PayloadVariant::Rebooted(true));
    let written = st.write_frame(&msg);
    if let Some(s) = st.session.as_mut() {
        s.ready = false;
    }
    written
}
