//! A TCP link (`[radio] tcp = "host[:port]"`) to a WiFi/Ethernet node or meshtasticd: the
//! address parsed, the socket opened with `TCP_NODELAY` (frames are small and the handshake
//! is a conversation), and what its connect errors mean. The node serves one API client over
//! TCP: a new connection force-closes the one before.

use std::fmt;
use std::io;

use tokio::net::TcpStream;

use super::{ConnKind, Connection};

/// The node's API port when the address names none.
pub(crate) const PORT: u16 = 4403;

/// A host (name, IPv4 or IPv6 address) and port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tcp {
    pub(crate) host: String,
    pub(crate) port: u16,
}

impl Tcp {
    /// Parses `host[:port]`, port 4403 when absent; IPv6 in brackets.
    pub fn parse(value: &str) -> Result<Tcp, String> {
        let v = value.trim();
        if v.is_empty() {
            return Err("empty address".into());
        }
        let (host, port) = if let Some(rest) = v.strip_prefix('[') {
            let (h, after) = rest
                .split_once(']')
                .ok_or("missing `]` after IPv6 address")?;
            match after.strip_prefix(':') {
                Some(p) => (h.to_string(), Some(p)),
                None if after.is_empty() => (h.to_string(), None),
                None => return Err(format!("unexpected {after:?} after `]`")),
            }
        } else if v.matches(':').count() == 1 {
            let (h, p) = v.split_once(':').ok_or("bad address")?;
            (h.to_string(), Some(p))
        } else if v.contains(':') {
            return Err("IPv6 addresses need brackets: \"[fd00::1]:4403\"".into());
        } else {
            (v.to_string(), None)
        };
        if host.is_empty() || host.contains(char::is_whitespace) || host.contains('/') {
            return Err(format!("bad host {host:?}"));
        }
        let port = match port {
            None => PORT,
            Some(p) => match p.parse::<u16>() {
                Ok(n) if n > 0 => n,
                _ => return Err(format!("bad port {p:?} (1-65535)")),
            },
        };
        Ok(Tcp { host, port })
    }

    /// Opens the connection.
    pub(super) async fn connect(&self) -> io::Result<Connection> {
        let stream = TcpStream::connect((self.host.as_str(), self.port)).await?;
        stream.set_nodelay(true)?;
        Ok(Connection::new(stream, ConnKind::Tcp))
    }

    /// Whether `other` is the same node: the same host (ignoring case) and port. Names are
    /// compared as written, not resolved.
    pub(super) fn same(&self, host: &str, port: u16) -> bool {
        self.host.eq_ignore_ascii_case(host) && self.port == port
    }

    /// A hint for the usual causes of a connect error: on the node's own port, its network
    /// API; on another, whatever should listen there (a proxy, meshtasticd, a simulated node).
    pub(super) fn hint(&self, kind: io::ErrorKind) -> String {
        match kind {
            io::ErrorKind::ConnectionRefused if self.port == PORT => {
                format!(" (connection refused: is the node's network API enabled on port {PORT}?)")
            }
            io::ErrorKind::ConnectionRefused => format!(
                " (connection refused: nothing listens on port {}; is the program that should \
                 (meshtasticd, a proxy) running? A node's own network API is on port {PORT})",
                self.port
            ),
            io::ErrorKind::TimedOut => " (no answer from the node)".to_string(),
            _ => String::new(),
        }
    }
}

/// `host:port`, an IPv6 address in brackets: `[fd00::1]:4403`.
impl fmt::Display for Tcp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}
