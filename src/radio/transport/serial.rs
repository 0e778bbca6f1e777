//! A USB serial link (`[radio] serial`, `baud`): the device opened with tokio-serial, woken
//! with a run of START2 bytes like the Python client does, and what its open errors mean.

use std::io;

use tokio::io::AsyncWriteExt;

use super::{ConnKind, Connection};
use crate::radio::codec::START2;

/// The baud rate Meshtastic's serial API runs at, unless `[radio] baud` says otherwise.
pub(crate) const BAUD: u32 = 115_200;

/// Bytes written before the handshake, like the Python client: a run of START2 wakes a
/// sleeping device without looking like the start of a frame.
const WAKE: [u8; 32] = [START2; 32];

/// Pause after the wake-up bytes, as the Python client does.
const WAKE_PAUSE: std::time::Duration = std::time::Duration::from_millis(100);

/// A serial device, e.g. `/dev/ttyUSB0`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Serial {
    pub(crate) path: String,
    pub(crate) baud: u32,
}

impl Serial {
    /// Opens the port and writes the wake-up bytes.
    pub(super) async fn connect(&self) -> io::Result<Connection> {
        use tokio_serial::SerialPortBuilderExt;
        let mut port = tokio_serial::new(&self.path, self.baud).open_native_async()?;
        port.write_all(&WAKE).await?;
        port.flush().await?;
        // Like the Python client: give the woken device a moment before the handshake.
        tokio::time::sleep(WAKE_PAUSE).await;
        Ok(Connection::new(port, ConnKind::Serial))
    }

    /// What went wrong, as the advice reads it: serialport reports a port another program
    /// holds (its exclusive lock) as "no device", `NotFound`, though the device is there.
    pub(super) fn error_kind(&self, e: &io::Error) -> io::ErrorKind {
        match e.kind() {
            io::ErrorKind::NotFound if std::path::Path::new(&self.path).exists() => {
                io::ErrorKind::ResourceBusy
            }
            kind => kind,
        }
    }

    /// A hint for the usual causes of an open error.
    pub(super) fn hint(kind: io::ErrorKind) -> &'static str {
        match kind {
            io::ErrorKind::PermissionDenied => " (add the daemon's user to the dialout group)",
            // serialport also reports a port locked by another program as "no device".
            io::ErrorKind::NotFound => {
                " (no such device, or in use by another program: is the node plugged in? see /dev/serial/by-id)"
            }
            io::ErrorKind::ResourceBusy | io::ErrorKind::WouldBlock => {
                " (the port is in use by another program)"
            }
            _ => "",
        }
    }
}
