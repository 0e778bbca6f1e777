//! Opening the byte stream to the node: a USB serial port or a TCP socket.
//!
//! The rest of the link only sees a [`Connection`]: something to read and write frames on.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;

use super::{DownReason, Transport};

/// Bytes written before the handshake on serial, like the Python client: a run of START2
/// wakes a sleeping device without looking like the start of a frame.
const SERIAL_WAKE: [u8; 32] = [super::codec::START2; 32];
/// Pause after the wake-up bytes, as the Python client does.
const SERIAL_WAKE_PAUSE: std::time::Duration = std::time::Duration::from_millis(100);

/// A byte stream to the node.
pub trait Stream: AsyncRead + AsyncWrite + Send + Unpin {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin> Stream for T {}

/// How the connection was made; serial links carry log text between frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnKind {
    Serial,
    Tcp,
}

/// An open connection to the node.
pub struct Connection {
    io: Box<dyn Stream>,
    pub kind: ConnKind,
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

/// Opens the serial port or TCP connection. On serial, the wake-up bytes are already
/// written when this returns.
pub async fn connect(t: &Transport) -> io::Result<Connection> {
    match t {
        Transport::Serial { path, baud } => {
            use tokio_serial::SerialPortBuilderExt;
            let mut port = tokio_serial::new(path, *baud).open_native_async()?;
            port.write_all(&SERIAL_WAKE).await?;
            port.flush().await?;
            // Like the Python client: give the woken device a moment before the handshake.
            tokio::time::sleep(SERIAL_WAKE_PAUSE).await;
            Ok(Connection::new(port, ConnKind::Serial))
        }
        Transport::Tcp { host, port } => {
            let stream = TcpStream::connect((host.as_str(), *port)).await?;
            stream.set_nodelay(true)?;
            Ok(Connection::new(stream, ConnKind::Tcp))
        }
    }
}

/// Where the link is going, for messages: `/dev/ttyUSB0` or `host:port`.
pub fn describe(t: &Transport) -> String {
    match t {
        Transport::Serial { path, .. } => path.clone(),
        Transport::Tcp { host, port } => format!("{host}:{port}"),
    }
}

/// Why a connection did not open, for `LinkState::Down`: the line [`explain`] gives, and the
/// kind the advice reads. serialport reports a port another program holds (its exclusive
/// lock) as "no device", `NotFound`, though the device is there: that is `ResourceBusy` here.
pub fn failure(t: &Transport, e: &io::Error) -> DownReason {
    let kind = match (t, e.kind()) {
        (Transport::Serial { path, .. }, io::ErrorKind::NotFound)
            if std::path::Path::new(path).exists() =>
        {
            io::ErrorKind::ResourceBusy
        }
        (_, kind) => kind,
    };
    DownReason::Connect {
        serial: matches!(t, Transport::Serial { .. }),
        kind,
        message: explain(t, e),
    }
}

/// A one-line explanation of a connect error, with a hint for the usual causes.
pub fn explain(t: &Transport, e: &io::Error) -> String {
    let target = describe(t);
    let hint = match (t, e.kind()) {
        (Transport::Serial { .. }, io::ErrorKind::PermissionDenied) => {
            " (add the daemon's user to the dialout group)"
        }
        (Transport::Serial { .. }, io::ErrorKind::NotFound) => {
            // serialport also reports a port locked by another program as "no device".
            " (no such device, or in use by another program: is the node plugged in? see /dev/serial/by-id)"
        }
        (Transport::Serial { .. }, io::ErrorKind::ResourceBusy | io::ErrorKind::WouldBlock) => {
            " (the port is in use by another program)"
        }
        (Transport::Tcp { .. }, io::ErrorKind::ConnectionRefused) => {
            " (connection refused: is the node's network API enabled on port 4403?)"
        }
        (Transport::Tcp { .. }, io::ErrorKind::TimedOut) => " (no answer from the node)",
        _ => "",
    };
    format!("cannot connect to {target}: {e}{hint}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[test]
    fn explains_common_errors() {
        let tty = Transport::Serial {
            path: "/dev/ttyUSB0".into(),
            baud: 115_200,
        };
        let tcp = Transport::Tcp {
            host: "meshnode".into(),
            port: 4403,
        };
        let cases = [
            (&tty, io::ErrorKind::PermissionDenied, "dialout"),
            (&tty, io::ErrorKind::NotFound, "no such device"),
            (&tcp, io::ErrorKind::ConnectionRefused, "meshnode:4403"),
            (&tcp, io::ErrorKind::ConnectionRefused, "refused"),
            (
                &tcp,
                io::ErrorKind::Other,
                "cannot connect to meshnode:4403",
            ),
        ];
        for (t, kind, want) in cases {
            let got = explain(t, &io::Error::from(kind));
            assert!(got.contains(want), "{got:?} lacks {want:?}");
        }
    }

    #[test]
    fn failures_carry_the_kind_the_advice_reads() {
        let serial = |path: &str| Transport::Serial {
            path: path.into(),
            baud: 115_200,
        };
        let tcp = Transport::Tcp {
            host: "meshnode".into(),
            port: 4403,
        };
        let locked = io::Error::new(io::ErrorKind::NotFound, "Device or resource busy");
        let cases = [
            // A device that is there but "not found": another program holds it.
            (
                serial("/dev/null"),
                &locked,
                true,
                io::ErrorKind::ResourceBusy,
            ),
            (
                serial("/dev/meshai-test-no-such-tty"),
                &locked,
                true,
                io::ErrorKind::NotFound,
            ),
            (tcp.clone(), &locked, false, io::ErrorKind::NotFound),
        ];
        for (t, e, want_serial, want_kind) in cases {
            let got = failure(&t, e);
            let want = DownReason::Connect {
                serial: want_serial,
                kind: want_kind,
                message: explain(&t, e),
            };
            assert_eq!(got, want, "{t:?}");
        }
        let refused = io::Error::from(io::ErrorKind::ConnectionRefused);
        assert_eq!(
            failure(&tcp, &refused).io_kind(),
            Some(io::ErrorKind::ConnectionRefused)
        );
    }

    #[tokio::test]
    async fn tcp_connects_to_a_local_listener() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let t = Transport::Tcp {
            host: "127.0.0.1".into(),
            port,
        };
        let (conn, accepted) = tokio::join!(connect(&t), listener.accept());
        let mut conn = conn.unwrap();
        let (mut server, _) = accepted.unwrap();
        assert_eq!(conn.kind, ConnKind::Tcp);
        conn.write_all(b"ping").await.unwrap();
        let mut buf = [0u8; 4];
        server.read_exact(&mut buf).await.unwrap();
        assert_eq!(&buf, b"ping");
    }

    #[tokio::test]
    async fn missing_serial_device_is_not_found() {
        let t = Transport::Serial {
            path: "/dev/meshai-test-no-such-tty".into(),
            baud: 115_200,
        };
        let err = connect(&t).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound, "{err}");
    }
}
