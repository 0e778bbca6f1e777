//! Another API client of the simulated node, like the phone app over WiFi: it connects, asks
//! for the config, reads whatever comes, and when the node closes it (because another client
//! connected) takes the node back after a short pause, again and again, until dropped.
//!
//! Its `want_config_id` nonces carry [`NONCE_TAG`] in the high half, so a test can tell its
//! connections from the daemon's in the node's record.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use meshtastic::protobufs::{ToRadio, to_radio};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::task::JoinHandle;

use super::sim_node::frame;

/// The high half of every nonce the rival sends.
pub const NONCE_TAG: u32 = 0x7A7A_0000;

/// Whether a `want_config_id` nonce is the rival's.
pub fn is_rivals(nonce: u32) -> bool {
    nonce & 0xFFFF_0000 == NONCE_TAG
}

/// The running rival; dropping it stops it (its connection closes).
pub struct Rival {
    connections: Arc<AtomicU32>,
    task: JoinHandle<()>,
}

impl Rival {
    /// Connects to `addr` now, and again `pause` after each time the node closes it.
    pub fn start(addr: SocketAddr, pause: Duration) -> Rival {
        let connections = Arc::new(AtomicU32::new(0));
        let count = connections.clone();
        let task = tokio::spawn(async move {
            loop {
                if let Ok(mut stream) = TcpStream::connect(addr).await {
                    let n = count.fetch_add(1, Ordering::Relaxed) + 1;
                    let _ = stream.set_nodelay(true);
                    let want = ToRadio {
                        payload_variant: Some(to_radio::PayloadVariant::WantConfigId(
                            NONCE_TAG | (n & 0xFFFF),
                        )),
                    };
                    if stream.write_all(&frame::encode(&want)).await.is_ok() {
                        let mut buf = [0u8; 1024];
                        while matches!(stream.read(&mut buf).await, Ok(n) if n > 0) {}
                    }
                }
                tokio::time::sleep(pause).await;
            }
        });
        Rival { connections, task }
    }

    /// How many times it connected.
    pub fn connections(&self) -> u32 {
        self.connections.load(Ordering::Relaxed)
    }
}

impl Drop for Rival {
    fn drop(&mut self) {
        self.task.abort();
    }
}
