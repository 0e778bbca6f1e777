//! TODO(skeleton): filled in by the radio work.

// Temporary stub until the link lands.
use std::time::Duration;
use tokio::sync::{mpsc, watch};
pub struct Radio {
    outbox: super::OutboxHandle,
    state: watch::Receiver<super::LinkState>,
}
impl Radio {
    pub fn spawn(_cfg: super::RadioConfig, _inbound: mpsc::Sender<super::Inbound>) -> Radio {
        todo!()
    }
    pub fn outbox(&self) -> super::OutboxHandle {
        self.outbox.clone()
    }
    pub fn state(&self) -> watch::Receiver<super::LinkState> {
        self.state.clone()
    }
    pub async fn close(self, _d: Duration) {}
}
