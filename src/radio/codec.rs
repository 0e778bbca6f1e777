//! Stream framing between the host and the node: `0x94 0xC3`, a big-endian u16 length,
//! then that many bytes of protobuf (`ToRadio` towards the node, `FromRadio` back).
//!
//! Sans-IO: [`FrameCodec`] only looks at the bytes it is given. Decoding follows the
//! firmware (`StreamAPI.cpp`) and the Python client (`stream_interface.py`): bytes before a
//! start marker are the node's log text and are skipped; a length above [`MAX_PAYLOAD`]
//! means we locked onto a false start, so the scan resumes one byte later; any other length
//! is trusted and the payload is never scanned for markers, because a payload that contains
//! `94 C3` (UTF-8 "—é", random ids, ciphertext) is perfectly normal.

use bytes::{Buf, BufMut, Bytes, BytesMut};
use tokio_util::codec::{Decoder, Encoder};

/// First byte of every frame.
pub(crate) const START1: u8 = 0x94;
/// Second byte of every frame.
pub(crate) const START2: u8 = 0xC3;
/// Start marker plus the two length bytes.
pub const HEADER_LEN: usize = 4;
/// Largest payload either side accepts (`MAX_TO_FROM_RADIO_SIZE` in the firmware).
pub const MAX_PAYLOAD: usize = 512;

/// The longest log line kept for tracing; the rest of a longer line is dropped.
const MAX_LOG_LINE: usize = 256;

/// Why a frame could not be encoded or the stream could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CodecError {
    /// A payload longer than the node accepts; the caller built something wrong.
    #[error("frame payload of {0} bytes exceeds the {MAX_PAYLOAD}-byte limit")]
    TooLarge(usize),
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
}

/// The frame codec. Holds only the partial log line it is skipping over.
#[derive(Debug, Default)]
pub struct FrameCodec {
    /// Bytes of the log line being skipped, so a whole line can be traced once it ends.
    /// Bounded by `MAX_LOG_LINE`: a stream of garbage without newlines cannot grow it.
    log_line: Vec<u8>,
}

impl FrameCodec {
    pub fn new() -> Self {
        FrameCodec::default()
    }

    /// Records skipped bytes as log text and traces each completed line.
    fn skip_log(&mut self, bytes: &[u8]) {
        for &b in bytes {
            match b {
                b'\n' | b'\r' if !self.log_line.is_empty() => {
                    tracing::trace!(
                        line = %String::from_utf8_lossy(&self.log_line),
                        "node log"
                    );
                    self.log_line.clear();
                }
                b'\n' | b'\r' => {}
                _ if self.log_line.len() < MAX_LOG_LINE => self.log_line.push(b),
                _ => {}
            }
        }
    }

    fn encode_payload(&mut self, payload: &[u8], dst: &mut BytesMut) -> Result<(), CodecError> {
        let len = u16::try_from(payload.len())
            .ok()
            .filter(|&n| usize::from(n) <= MAX_PAYLOAD)
            .ok_or(CodecError::TooLarge(payload.len()))?;
        dst.reserve(HEADER_LEN + payload.len());
        dst.put_u8(START1);
        dst.put_u8(START2);
        dst.put_u16(len);
        dst.put_slice(payload);
        Ok(())
    }
}

impl Decoder for FrameCodec {
    type Item = Bytes;
    type Error = CodecError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>, CodecError> {
        loop {
            // Everything before the next START1 is log text: drop it now so garbage never
            // piles up in the read buffer.
            let Some(start) = src.iter().position(|&b| b == START1) else {
                let all = src.split();
                self.skip_log(&all);
                return Ok(None);
            };
            if start > 0 {
                let skipped = src.split_to(start);
                self.skip_log(&skipped);
            }
            let Some(&second) = src.get(1) else {
                return Ok(None);
            };
            if second != START2 {
                // A lone START1 is just a log byte; resume the scan right after it.
                let skipped = src.split_to(1);
                self.skip_log(&skipped);
                continue;
            }
            let (Some(&hi), Some(&lo)) = (src.get(2), src.get(3)) else {
                return Ok(None);
            };
            let len = usize::from(u16::from_be_bytes([hi, lo]));
            if len > MAX_PAYLOAD {
                // A false start: drop only the START1, since a real frame may begin
                // inside what looked like the length.
                tracing::trace!(len, "frame length over the limit, resyncing");
                src.advance(1);
                continue;
            }
            // A real frame is coming, so any partial log line has ended.
            self.skip_log(b"\n");
            let total = HEADER_LEN + len;
            if src.len() < total {
                // `total` is at most 516, so this never reserves more than one frame.
                src.reserve(total - src.len());
                return Ok(None);
            }
            src.advance(HEADER_LEN);
            return Ok(Some(src.split_to(len).freeze()));
        }
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>, CodecError> {
        // A partial frame or log text at the end of the stream is not an error: the node
        // went away mid-write, and the link handles that as an ordinary disconnect.
        let frame = self.decode(src)?;
        if frame.is_none() {
            src.clear();
            self.skip_log(b"\n");
        }
        Ok(frame)
    }
}

impl Encoder<&[u8]> for FrameCodec {
    type Error = CodecError;

    fn encode(&mut self, payload: &[u8], dst: &mut BytesMut) -> Result<(), CodecError> {
        self.encode_payload(payload, dst)
    }
}

impl Encoder<Bytes> for FrameCodec {
    type Error = CodecError;

    fn encode(&mut self, payload: Bytes, dst: &mut BytesMut) -> Result<(), CodecError> {
        self.encode_payload(&payload, dst)
    }
}

#[cfg(test)]
pub(crate) mod tests;
