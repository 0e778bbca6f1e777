//! The simulated node's I/O: accepting clients, one session per stream, and the queue of mesh
//! packets towards the client. Only moves bytes; every decision is made by [`Firmware`].
//!
//! Like the firmware (`MESHTASTIC_TCP_API_MAX_CLIENTS` = 1), a new client force-closes the old
//! one (counted in `SimLog::kicked`), and mesh packets for the client
//! (injected traffic, ACKs) wait in a bounded queue until a session has finished its handshake;
//! the oldest is dropped when the queue is full.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use meshtastic::Message;
use meshtastic::protobufs::FromRadio;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::{Notify, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::firmware::{Action, Firmware};
use super::frame::{self, Deframer, Piece};
use super::packets;

/// The firmware's queue of packets towards the client holds this many.
const TO_PHONE_MAX: usize = 32;
/// Bound on bytes-to-write chunks per session (handshake answers, statuses, raw injections).
const IMMEDIATE_MAX: usize = 4096;
/// Firmware-like log lines written between frames when `log_text` is on. One contains
/// "—é" (`e2 80 94 c3 a9`): a start-byte pair inside log text, as a logged message can have.
const LOG_LINES: &[&str] = &[
    "INFO  | ??:??:?? {n} [Router] Routing sniffing (id=0x{n:08x} fr=0x00 to=0x00)\r\n",
    "DEBUG | ??:??:?? {n} [SerialConsole] FromRadio=STATE_SEND_PACKETS\r\n",
    "INFO  | ??:??:?? {n} [Router] Received text msg msg=caf—é ok\r\n",
    "DEBUG | ??:??:?? {n} [Power] Battery: usbPower=1, isCharging=1\r\n",
];

/// State shared by the handle, the sessions and the timers. The lock is never held across
/// an `.await`.
pub struct Shared {
    state: Mutex<State>,
    /// Bumped after every change to the record, so waiters re-check without polling.
    pub changed: watch::Sender<u64>,
    /// Cancelled when the `SimNode` is dropped: ends the listener, sessions and timers.
    pub stop: CancellationToken,
}

pub struct State {
    pub fw: Firmware,
    /// Mesh packets waiting for a ready session (the firmware's `toPhoneQueue`).
    pub to_phone: VecDeque<FromRadio>,
    /// The one client being served.
    pub session: Option<Slot>,
    next_session: u64,
    /// Counter for the log lines' fake uptime.
    log_counter: u32,
}

/// The current session as the other parts see it.
pub struct Slot {
    id: u64,
    /// True after the handshake answer: mesh packets may flow.
    pub ready: bool,
    /// Bytes to write before any queued mesh packet.
    immediate: VecDeque<Vec<u8>>,
    wake: Arc<Notify>,
    cancel: CancellationToken,
}

impl Shared {
    pub fn new(fw: Firmware, stop: CancellationToken) -> Arc<Self> {
        Arc::new(Shared {
            state: Mutex::new(State {
                fw,
                to_phone: VecDeque::new(),
                session: None,
                next_session: 0,
                log_counter: 0,
            }),
            changed: watch::Sender::new(0),
            stop,
        })
    }

    /// Locks the state; a panic elsewhere must not hide the record from the test.
    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Tells waiters something changed.
    pub fn bump(&self) {
        self.changed.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// Runs `f` on the state, then wakes the writer and the waiters.
    pub fn update<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        let r = {
            let mut st = self.lock();
            let r = f(&mut st);
            if let Some(s) = &st.session {
                s.wake.notify_one();
            }
            r
        };
        self.bump();
        r
    }
}

impl State {
    /// Queues a mesh packet for the client, dropping the oldest when full as the firmware does.
    pub fn deliver(&mut self, msg: FromRadio) {
        if self.to_phone.len() >= TO_PHONE_MAX {
            tracing::warn!("sim: queue to the client is full, dropping the oldest packet");
            self.to_phone.pop_front();
            self.fw.log.to_client_dropped += 1;
        }
        self.to_phone.push_back(msg);
    }

    /// Queues raw bytes on the current session; false when nobody is connected.
    pub fn write_raw(&mut self, bytes: Vec<u8>) -> bool {
        let Some(s) = self.session.as_mut() else {
            return false;
        };
        if s.immediate.len() >= IMMEDIATE_MAX {
            tracing::warn!("sim: client is not reading, dropping output");
            return true;
        }
        s.immediate.push_back(bytes);
        true
    }

    /// Queues a frame on the current session, after a log line when `log_text` is on.
    pub fn write_frame(&mut self, msg: &impl Message) -> bool {
        let bytes = self.framed(msg);
        self.write_raw(bytes)
    }

    /// True while session `id` is the one being served.
    fn is_current(&self, id: u64) -> bool {
        self.session.as_ref().is_some_and(|s| s.id == id)
    }

    /// Ends the current session, if any.
    pub fn close_session(&mut self) {
        if let Some(s) = self.session.take() {
            s.cancel.cancel();
        }
    }

    fn framed(&mut self, msg: &impl Message) -> Vec<u8> {
        let mut out = Vec::new();
        if self.fw.cfg.log_text {
            self.log_counter = self.log_counter.wrapping_add(1);
            let n = self.log_counter;
            let line = LOG_LINES
                .get(n as usize % LOG_LINES.len())
                .copied()
                .unwrap_or_default();
            let line = line
                .replace("{n:08x}", &format!("{n:08x}"))
                .replace("{n}", &n.to_string());
            out.extend_from_slice(line.as_bytes());
        }
        out.extend_from_slice(&frame::encode(msg));
        out
    }

    /// Takes what session `id` should write next; `None` when it is no longer current.
    fn take_output(&mut self, id: u64) -> Option<Vec<u8>> {
        if !self.is_current(id) {
            return None;
        }
        let ready = self.session.as_ref().is_some_and(|s| s.ready);
        let queued: Vec<FromRadio> = if ready {
            self.to_phone.drain(..).collect()
        } else {
            Vec::new()
        };
        let mut out: Vec<u8> = Vec::new();
        if let Some(s) = self.session.as_mut() {
            out.extend(s.immediate.drain(..).flatten());
        }
        for msg in &queued {
            out.extend(self.framed(msg));
        }
        Some(out)
    }
}

/// Accepts clients until the sim stops; each new one replaces the previous.
pub async fn accept_loop(shared: Arc<Shared>, listener: TcpListener) {
    loop {
        let accepted = tokio::select! {
            _ = shared.stop.cancelled() => return,
            a = listener.accept() => a,
        };
        match accepted {
            Ok((stream, _peer)) => {
                let _ = stream.set_nodelay(true);
                serve(&shared, stream);
            }
            Err(e) => {
                tracing::warn!(error = %e, "sim: accept failed");
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }
}

/// Makes `stream` the current session (ending the previous one) and serves it on a task.
pub fn serve<S>(shared: &Arc<Shared>, stream: S)
where
    S: AsyncRead + AsyncWrite + Send + Unpin + 'static,
{
    let wake = Arc::new(Notify::new());
    let cancel = shared.stop.child_token();
    let id = shared.update(|st| {
        if st.session.is_some() {
            st.fw.log.kicked += 1;
        }
        st.close_session();
        st.next_session += 1;
        st.fw.log.connections += 1;
        st.session = Some(Slot {
            id: st.next_session,
            ready: false,
            immediate: VecDeque::new(),
            wake: wake.clone(),
            cancel: cancel.clone(),
        });
        st.next_session
    });
    let shared = shared.clone();
    tokio::spawn(async move {
        let (rd, wr) = tokio::io::split(stream);
        tokio::select! {
            _ = cancel.cancelled() => {}
            _ = read_loop(&shared, id, rd) => {}
            _ = write_loop(&shared, id, wr, &wake) => {}
        }
        shared.update(|st| {
            if st.is_current(id) {
                st.close_session();
            }
        });
    });
}

async fn read_loop<R: AsyncRead + Unpin>(shared: &Arc<Shared>, id: u64, mut rd: R) {
    let mut deframer = Deframer::default();
    let mut buf = [0u8; 1024];
    loop {
        let n = match rd.read(&mut buf).await {
            Ok(0) => return,
            Ok(n) => n,
            Err(e) => {
                tracing::debug!(error = %e, "sim: read failed, session ends");
                return;
            }
        };
        deframer.push(buf.get(..n).unwrap_or_default());
        while let Some(piece) = deframer.next_piece() {
            match piece {
                Piece::Stray(n) => shared.update(|st| st.fw.log.stray_bytes += n),
                Piece::Frame(payload) => handle_frame(shared, id, &payload),
            }
        }
    }
}

fn handle_frame(shared: &Arc<Shared>, id: u64, payload: &[u8]) {
    let now = Instant::now();
    let later = shared.update(|st| {
        if !st.is_current(id) {
            return Vec::new();
        }
        let mut later = Vec::new();
        for action in st.fw.on_frame(payload, now) {
            match action {
                Action::Reply(msg) => {
                    st.write_frame(&msg);
                }
                Action::ReplyStatus(status) => {
                    st.write_frame(&packets::status_config(&status));
                }
                Action::Ready => {
                    if let Some(s) = st.session.as_mut() {
                        s.ready = true;
                    }
                }
                Action::Deliver {
                    after,
                    msg,
                    answers,
                } if after.is_zero() => {
                    if st.fw.take_answer(answers) {
                        st.deliver(msg);
                    }
                }
                Action::Deliver {
                    after,
                    msg,
                    answers,
                } => later.push((after, msg, answers)),
                Action::Close => st.close_session(),
            }
        }
        later
    });
    for (after, msg, answers) in later {
        let shared = shared.clone();
        tokio::spawn(async move {
            tokio::select! {
                _ = shared.stop.cancelled() => {}
                _ = tokio::time::sleep(after) => shared.update(|st| {
                    if st.fw.take_answer(answers) {
                        st.deliver(msg);
                    }
                }),
            }
        });
    }
}

async fn write_loop<W: AsyncWrite + Unpin>(
    shared: &Arc<Shared>,
    id: u64,
    mut wr: W,
    wake: &Notify,
) {
    loop {
        let Some(out) = shared.lock().take_output(id) else {
            return;
        };
        if out.is_empty() {
            wake.notified().await;
            continue;
        }
        if let Err(e) = wr.write_all(&out).await {
            tracing::debug!(error = %e, "sim: write failed, session ends");
            return;
        }
        if let Err(e) = wr.flush().await {
            tracing::debug!(error = %e, "sim: flush failed, session ends");
            return;
        }
    }
}
