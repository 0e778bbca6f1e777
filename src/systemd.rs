//! systemd integration (`Type=notify`): `READY=1` once the database is open and the radio is
//! configured, `STATUS=` lines on link changes, `WATCHDOG=1` from the main loop, `STOPPING=1`.
//! Every call is a no-op when `NOTIFY_SOCKET` is not set (not run by systemd).

use std::time::Duration;

use sd_notify::NotifyState;
use tracing::debug;

/// What systemd asked of us, read once at start.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Systemd {
    /// Ping interval: half of `WatchdogSec=`, when the watchdog is on for this process.
    pub(crate) watchdog_every: Option<Duration>,
}

impl Systemd {
    pub(crate) fn from_env() -> Self {
        let mut usec = 0;
        let watchdog_every = sd_notify::watchdog_enabled(false, &mut usec)
            .then(|| Duration::from_micros(usec / 2))
            .filter(|d| !d.is_zero());
        Systemd { watchdog_every }
    }

    fn send(&self, states: &[NotifyState]) {
        if let Err(e) = sd_notify::notify(false, states) {
            debug!(error = %e, "sd_notify failed");
        }
    }

    pub(crate) fn ready(&self, status: &str) {
        self.send(&[NotifyState::Ready, NotifyState::Status(status)]);
    }

    pub(crate) fn status(&self, status: &str) {
        self.send(&[NotifyState::Status(status)]);
    }

    pub(crate) fn watchdog(&self) {
        self.send(&[NotifyState::Watchdog]);
    }

    pub(crate) fn stopping(&self) {
        self.send(&[NotifyState::Stopping]);
    }
}
