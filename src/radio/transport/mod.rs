//! The links to the node, and the one place that chooses among them: a USB serial port
//! (`serial.rs`) or a TCP socket (`tcp.rs`). The rest of the daemon holds a [`Transport`] and
//! asks it (to connect, for its address, what an error means, whether a new client takes the
//! node over, which node the status file names); the link only sees a [`Connection`],
//! something to read and write frames on.
//!
//! A new kind of link is a file here with its type, a variant of [`Transport`] with its arm in
//! each method below (and in [`Target`], if the status file is to name it), and its keys in
//! `[radio]` (`config::raw::validate`'s `transport`). Nothing outside this folder matches on
//! the kinds.

pub(crate) mod serial;
pub mod tcp;
#[cfg(test)]
mod tests;

use std::fmt;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

pub(crate) use serial::Serial;
pub use tcp::Tcp;

use super::DownReason;

/// How to reach the node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A USB serial device, e.g. `/dev/ttyUSB0`.
    Serial(Serial),
    /// A WiFi/Ethernet node or meshtasticd, TCP port 4403 by default.
    Tcp(Tcp),
}

/// The node a transport reaches, as the status file names it (`{"serial": {"path": …}}`,
/// `{"tcp": {"host": …, "port": …}}`): what tells one node from another, without the
/// settings of the link (the baud rate).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Target {
    Serial { path: String },
    Tcp { host: String, port: u16 },
}

impl Transport {
    /// A serial device at `baud`.
    pub fn serial(path: impl Into<String>, baud: u32) -> Transport {
        Transport::Serial(Serial {
            path: path.into(),
            baud,
        })
    }

    /// A TCP node at `host` and `port`.
    pub fn tcp(host: impl Into<String>, port: u16) -> Transport {
        Transport::Tcp(Tcp {
            host: host.into(),
            port,
        })
    }

    /// Opens the serial port or TCP connection. On serial, the wake-up bytes are already
    /// written when this returns.
    pub(crate) async fn connect(&self) -> io::Result<Connection> {
        match self {
            Transport::Serial(s) => s.connect().await,
            Transport::Tcp(t) => t.connect().await,
        }
    }

    /// Where the link is going, for messages: `/dev/ttyUSB0` or `host:port`.
    pub(crate) fn address(&self) -> String {
        match self {
            Transport::Serial(s) => s.path.clone(),
            Transport::Tcp(t) => format!("{}:{}", t.host, t.port),
        }
    }

    /// The device file the link opens, if it opens one (serial): what the advice for a
    /// refused or missing device talks about.
    pub(crate) fn device(&self) -> Option<&str> {
        match self {
            Transport::Serial(s) => Some(&s.path),
            Transport::Tcp(_) => None,
        }
    }

    /// Whether a new client of the node takes it from the one it serves: the node's TCP API
    /// serves one client, and a new connection force-closes the one before. A serial port
    /// is locked instead, and a second opener is refused.
    pub(crate) fn new_client_takes_over(&self) -> bool {
        matches!(self, Transport::Tcp(_))
    }

    /// The node this transport reaches, as the status file names it.
    pub(crate) fn target(&self) -> Target {
        match self {
            Transport::Serial(s) => Target::Serial {
                path: s.path.clone(),
            },
            Transport::Tcp(t) => Target::Tcp {
                host: t.host.clone(),
                port: t.port,
            },
        }
    }

    /// Why a connection did not open, for `LinkState::Down`: the line [`Transport::explain`]
    /// gives, and the kind the advice reads (a locked serial port, which serialport calls
    /// "not found", is `ResourceBusy`).
    pub(crate) fn failure(&self, e: &io::Error) -> DownReason {
        let kind = match self {
            Transport::Serial(s) => s.error_kind(e),
            Transport::Tcp(_) => e.kind(),
        };
        DownReason::Connect {
            serial: matches!(self, Transport::Serial(_)),
            kind,
            message: self.explain(e),
        }
    }

    /// A one-line explanation of a connect error, with a hint for the usual causes.
    pub(crate) fn explain(&self, e: &io::Error) -> String {
        let hint = match self {
            Transport::Serial(_) => Serial::hint(e.kind()).to_string(),
            Transport::Tcp(t) => t.hint(e.kind()),
        };
        format!("cannot connect to {}: {e}{hint}", self.address())
    }
}

/// How a transport is named in messages: `serial /dev/ttyUSB0`, `tcp 192.168.1.50:4403`,
/// `tcp [fd00::1]:4403`.
impl fmt::Display for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Transport::Serial(s) => write!(f, "serial {}", s.path),
            Transport::Tcp(t) => write!(f, "tcp {t}"),
        }
    }
}

impl Target {
    /// Whether `t` reaches this node: the same device path, or the same host (ignoring case)
    /// and port. Names are compared as written, not resolved.
    pub(crate) fn is(&self, t: &Transport) -> bool {
        match (self, t) {
            (Target::Serial { path }, Transport::Serial(s)) => *path == s.path,
            (Target::Tcp { host, port }, Transport::Tcp(t)) => t.same(host, *port),
            _ => false,
        }
    }
}

/// A byte stream to the node.
pub(crate) trait Stream: AsyncRead + AsyncWrite + Send + Unpin {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin> Stream for T {}

/// How the connection was made; serial links carry log text between frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ConnKind {
    Serial,
    Tcp,
}

/// An open connection to the node.
pub(crate) struct Connection {
    io: Box<dyn Stream>,
    pub(crate) kind: ConnKind,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("kind", &self.kind)
            .finish()
    }
}

impl Connection {
    /// Wraps any stream, e.g. one end of `tokio::io::duplex` in tests.
    pub fn new(io: impl Stream + 'static, kind: ConnKind) -> Self {
        Connection {
            io: Box::new(io),
            kind,
        }
    }
}

impl AsyncRead for Connection {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl AsyncWrite for Connection {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}
