//! Self-tests of the test doubles, driven by raw clients written here with their own tiny
//! framing, so a bug in the sim's framing cannot hide behind the same bug in the client.
//!
//! - `node`: the simulated node over TCP and a pty.
//! - `llm`: the fake OpenAI server, over `reqwest` and a raw socket.

mod llm;
mod node;

use std::time::Duration;

use meshtastic::Message;
use meshtastic::protobufs::{FromRadio, ToRadio, from_radio};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// How long a raw client waits for something that must come.
const WAIT: Duration = Duration::from_secs(5);

/// A client speaking the stream framing by hand: write `0x94 0xC3 len` + `ToRadio`, read
/// `FromRadio` frames and keep whatever came between them.
struct RawClient<S> {
    stream: S,
    /// Read and not yet parsed.
    buf: Vec<u8>,
    /// Bytes seen outside frames (log text).
    stray: Vec<u8>,
}

impl<S: AsyncRead + AsyncWrite + Unpin> RawClient<S> {
    fn new(stream: S) -> Self {
        RawClient {
            stream,
            buf: Vec::new(),
            stray: Vec::new(),
        }
    }

    async fn send(&mut self, msg: ToRadio) {
        let body = msg.encode_to_vec();
        let len = u16::try_from(body.len()).unwrap().to_be_bytes();
        let frame = [&[0x94, 0xC3], &len[..], &body].concat();
        self.send_raw(&frame).await;
    }

    async fn send_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).await.unwrap();
        self.stream.flush().await.unwrap();
    }

    /// The next frame in the buffer, if a whole one is there.
    fn parse(&mut self) -> Option<FromRadio> {
        loop {
            let start = self.buf.windows(2).position(|w| w == [0x94, 0xC3])?;
            self.stray.extend(self.buf.drain(..start));
            if self.buf.len() < 4 {
                return None;
            }
            let len = usize::from(u16::from_be_bytes([self.buf[2], self.buf[3]]));
            if len > 512 {
                self.stray.extend(self.buf.drain(..2));
                continue;
            }
            if self.buf.len() < 4 + len {
                return None;
            }
            let frame: Vec<u8> = self.buf.drain(..4 + len).skip(4).collect();
            return Some(FromRadio::decode(frame.as_slice()).unwrap());
        }
    }

    /// Reads more bytes; `false` at end of stream.
    async fn fill(&mut self) -> bool {
        let mut chunk = [0u8; 2048];
        match self.stream.read(&mut chunk).await {
            Ok(0) | Err(_) => false,
            Ok(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                true
            }
        }
    }

    /// The next frame, or `None` when nothing comes within `within`.
    async fn try_recv(&mut self, within: Duration) -> Option<FromRadio> {
        tokio::time::timeout(within, async {
            loop {
                if let Some(m) = self.parse() {
                    return Some(m);
                }
                if !self.fill().await {
                    return None;
                }
            }
        })
        .await
        .ok()
        .flatten()
    }

    async fn recv(&mut self) -> from_radio::PayloadVariant {
        let m = self.try_recv(WAIT).await.expect("a frame from the sim");
        m.payload_variant.expect("a FromRadio with a payload")
    }

    /// Sends `want_config_id = nonce` and returns everything up to `config_complete_id`.
    async fn handshake(&mut self, nonce: u32) -> Vec<from_radio::PayloadVariant> {
        self.send(ToRadio {
            payload_variant: Some(
                meshtastic::protobufs::to_radio::PayloadVariant::WantConfigId(nonce),
            ),
        })
        .await;
        let mut got = Vec::new();
        loop {
            let m = self.recv().await;
            let done = matches!(m, from_radio::PayloadVariant::ConfigCompleteId(_));
            got.push(m);
            if done {
                return got;
            }
        }
    }

    /// True when the peer closes the stream within [`WAIT`] (frames before that are dropped).
    async fn closed(&mut self) -> bool {
        tokio::time::timeout(WAIT, async { while self.fill().await {} })
            .await
            .is_ok()
    }
}
