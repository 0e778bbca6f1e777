//! Why the radio link went down: a typed [`DownReason`] from the transport and the link,
//! through `LinkState::Down`, to `meshai check`'s advice, which matches on the variant and the
//! I/O error kind, never on the text. Its `Display` is the text the log and systemd's status
//! show.

use std::fmt;
use std::io;

/// Why the link went down.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DownReason {
    /// The serial port or TCP connection did not open. `kind` is what went wrong as the
    /// advice reads it (see `Transport::failure`); `message` is the line as logged, with a
    /// hint for the usual causes.
    Connect {
        serial: bool,
        kind: io::ErrorKind,
        message: String,
    },
    /// Opening the connection took longer than the handshake timeout.
    ConnectTimeout { target: String },
    /// The node took the connection but did not finish the config download in time.
    HandshakeTimeout,
    /// Reading failed: an I/O error (`kind`), or a frame the codec refused (`kind` is `None`).
    Read {
        kind: Option<io::ErrorKind>,
        error: String,
    },
    /// Writing failed with an I/O error.
    Write { kind: io::ErrorKind, error: String },
    /// A write took longer than its timeout: the node stopped reading.
    WriteTimeout,
    /// A message the link cannot do without (want_config, heartbeat) was too large to frame.
    ControlTooLarge(usize),
    /// The node closed the connection.
    ClosedByNode,
    /// The node closed the connection again soon after the last time: another client keeps
    /// taking its one TCP API slot, and the link waits long before taking it back
    /// (`radio::takeover`).
    TakenOver,
    /// The node answered neither frames nor a probe for too long.
    Silent,
    /// The node said it rebooted; the link reconnects at once.
    Rebooted,
}

impl DownReason {
    /// The I/O error kind behind a failed open, read or write.
    pub(crate) fn io_kind(&self) -> Option<io::ErrorKind> {
        match self {
            DownReason::Connect { kind, .. } | DownReason::Write { kind, .. } => Some(*kind),
            DownReason::Read { kind, .. } => *kind,
            _ => None,
        }
    }
}

impl fmt::Display for DownReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DownReason::Connect { message, .. } => f.write_str(message),
            DownReason::ConnectTimeout { target } => {
                write!(f, "cannot connect to {target}: timed out")
            }
            DownReason::HandshakeTimeout => f.write_str("handshake timed out"),
            DownReason::Read { error, .. } => write!(f, "read failed: {error}"),
            DownReason::Write { error, .. } => write!(f, "write failed: {error}"),
            DownReason::WriteTimeout => f.write_str("write timed out"),
            DownReason::ControlTooLarge(n) => write!(f, "control message of {n} bytes"),
            DownReason::ClosedByNode => f.write_str("node closed the connection"),
            DownReason::TakenOver => {
                f.write_str("node closed the connection again: another client keeps taking its API")
            }
            DownReason::Silent => f.write_str("radio silent"),
            DownReason::Rebooted => f.write_str("node rebooted"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_as_logged() {
        let cases = [
            (
                DownReason::Connect {
                    serial: false,
                    kind: io::ErrorKind::ConnectionRefused,
                    message: "cannot connect to meshnode:4403: refused".into(),
                },
                "cannot connect to meshnode:4403: refused",
            ),
            (
                DownReason::ConnectTimeout {
                    target: "/dev/ttyUSB0".into(),
                },
                "cannot connect to /dev/ttyUSB0: timed out",
            ),
            (DownReason::HandshakeTimeout, "handshake timed out"),
            (
                DownReason::Read {
                    kind: Some(io::ErrorKind::ConnectionReset),
                    error: "i/o error: reset".into(),
                },
                "read failed: i/o error: reset",
            ),
            (
                DownReason::Write {
                    kind: io::ErrorKind::BrokenPipe,
                    error: "broken pipe".into(),
                },
                "write failed: broken pipe",
            ),
            (DownReason::WriteTimeout, "write timed out"),
            (
                DownReason::ControlTooLarge(600),
                "control message of 600 bytes",
            ),
            (DownReason::ClosedByNode, "node closed the connection"),
            (
                DownReason::TakenOver,
                "node closed the connection again: another client keeps taking its API",
            ),
            (DownReason::Silent, "radio silent"),
            (DownReason::Rebooted, "node rebooted"),
        ];
        for (reason, want) in cases {
            assert_eq!(reason.to_string(), want, "{reason:?}");
        }
    }

    #[test]
    fn io_kinds() {
        let read = |kind| DownReason::Read {
            kind,
            error: String::new(),
        };
        assert_eq!(
            read(Some(io::ErrorKind::TimedOut)).io_kind(),
            Some(io::ErrorKind::TimedOut)
        );
        assert_eq!(read(None).io_kind(), None);
        assert_eq!(DownReason::Silent.io_kind(), None);
    }
}
