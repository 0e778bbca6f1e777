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
pub const START1: u8 = 0x94;
/// Second byte of every frame.
pub const START2: u8 = 0xC3;
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
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    pub(crate) fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    pub(crate) const WANT_CONFIG: &str = "94c3000618f8acd19101";
    pub(crate) const HEARTBEAT: &str = "94c300023a00";
    pub(crate) const DM_WITH_MARKER: &str =
        "94c3002712250d44332211150d0c0b0a220e0801120a70696e6720e28094c3a93577770000480350017803";

    /// Feeds `input` in chunks of `chunk` bytes (0 = all at once), then signals EOF, and
    /// returns every payload decoded plus what stayed in the buffer before EOF.
    fn decode_all(input: &[u8], chunk: usize) -> (Vec<Vec<u8>>, usize) {
        let mut codec = FrameCodec::new();
        let mut buf = BytesMut::new();
        let mut out = Vec::new();
        let step = if chunk == 0 {
            input.len().max(1)
        } else {
            chunk
        };
        for piece in input.chunks(step) {
            buf.extend_from_slice(piece);
            while let Some(frame) = codec.decode(&mut buf).unwrap() {
                out.push(frame.to_vec());
            }
            assert!(
                buf.len() <= HEADER_LEN + MAX_PAYLOAD,
                "buffer grew to {}",
                buf.len()
            );
        }
        let left = buf.len();
        while let Some(frame) = codec.decode_eof(&mut buf).unwrap() {
            out.push(frame.to_vec());
        }
        assert!(buf.is_empty());
        (out, left)
    }

    fn frame(payload: &[u8]) -> Vec<u8> {
        let mut buf = BytesMut::new();
        FrameCodec::new().encode(payload, &mut buf).unwrap();
        buf.to_vec()
    }

    #[test]
    fn decodes_table() {
        let wc = hex(WANT_CONFIG);
        let hb = hex(HEARTBEAT);
        let dm = hex(DM_WITH_MARKER);
        let max = vec![0xAB; MAX_PAYLOAD];
        let marker_payload = vec![0x94, 0xC3, 0x94, 0xC3, 0x00, 0x01];

        let mut garbage_between = b"INFO  | ??:??:?? 3 [Router] boot\r\n".to_vec();
        garbage_between.extend(&wc);
        garbage_between.extend(b"DEBUG | no newline yet \x94 lone start ");
        garbage_between.extend(&hb);

        let mut bogus_len = vec![0x94, 0xC3, 0x02, 0x01];
        bogus_len.extend(&hb);

        let mut bogus_len_hiding_frame = vec![0x94, 0xC3];
        bogus_len_hiding_frame.extend(&hb);

        let mut lone_start = vec![0x94, 0x41, 0x94, 0x94];
        lone_start.extend(&hb);

        /// Name, input bytes, the payloads it must decode to.
        type Case = (&'static str, Vec<u8>, Vec<Vec<u8>>);
        let cases: Vec<Case> = vec![
            ("want_config vector", wc.clone(), vec![wc[4..].to_vec()]),
            ("heartbeat vector", hb.clone(), vec![hb[4..].to_vec()]),
            ("dm containing 94 c3", dm.clone(), vec![dm[4..].to_vec()]),
            (
                "log text between frames",
                garbage_between,
                vec![wc[4..].to_vec(), hb[4..].to_vec()],
            ),
            (
                "length over 512 then a frame",
                bogus_len,
                vec![hb[4..].to_vec()],
            ),
            (
                "false start whose length is a frame",
                bogus_len_hiding_frame,
                vec![hb[4..].to_vec()],
            ),
            (
                "0x94 not followed by 0xc3",
                lone_start,
                vec![hb[4..].to_vec()],
            ),
            ("zero-length frame", vec![0x94, 0xC3, 0, 0], vec![vec![]]),
            ("max 512-byte frame", frame(&max), vec![max.clone()]),
            (
                "markers inside a payload",
                frame(&marker_payload),
                vec![marker_payload.clone()],
            ),
            ("only log text", b"hello\nworld".to_vec(), vec![]),
            ("truncated frame at eof", hex("94c3000618f8"), vec![]),
            ("empty input", vec![], vec![]),
        ];
        for (name, input, want) in cases {
            for chunk in [0, 1, 3] {
                let (got, _) = decode_all(&input, chunk);
                assert_eq!(got, want, "{name}, chunk {chunk}");
            }
        }
    }

    #[test]
    fn encodes_vectors_byte_exact() {
        for vector in [WANT_CONFIG, HEARTBEAT, DM_WITH_MARKER] {
            let bytes = hex(vector);
            assert_eq!(frame(&bytes[4..]), bytes, "{vector}");
            let mut buf = BytesMut::new();
            FrameCodec::new()
                .encode(Bytes::copy_from_slice(&bytes[4..]), &mut buf)
                .unwrap();
            assert_eq!(buf.to_vec(), bytes, "{vector} as Bytes");
        }
    }

    #[test]
    fn encode_rejects_oversized_payload() {
        let mut buf = BytesMut::new();
        let err = FrameCodec::new().encode(&[0u8; MAX_PAYLOAD + 1][..], &mut buf);
        assert!(matches!(err, Err(CodecError::TooLarge(513))));
        assert!(buf.is_empty());
    }

    #[test]
    fn log_garbage_is_discarded_as_it_arrives() {
        let mut codec = FrameCodec::new();
        let mut buf = BytesMut::new();
        for _ in 0..1000 {
            buf.extend_from_slice(b"log text without any start marker at all ");
            assert!(codec.decode(&mut buf).unwrap().is_none());
            assert!(buf.is_empty());
        }
        assert!(codec.log_line.len() <= MAX_LOG_LINE);
    }

    proptest! {
        #[test]
        fn random_garbage_without_start1_then_frame_is_recovered(
            garbage in proptest::collection::vec(any::<u8>().prop_filter("no START1", |b| *b != START1), 0..2000),
            payload in proptest::collection::vec(any::<u8>(), 0..=MAX_PAYLOAD),
            chunk in 0usize..64,
        ) {
            let mut input = garbage;
            input.extend(frame(&payload));
            let (got, _) = decode_all(&input, chunk);
            prop_assert_eq!(got, vec![payload]);
        }

        /// Arbitrary garbage may swallow the first frames (a false start with a plausible
        /// length eats up to 516 bytes), but the codec must resync within a few frames.
        #[test]
        fn random_garbage_then_frames_resyncs(
            garbage in proptest::collection::vec(any::<u8>(), 0..2000),
            chunk in 0usize..64,
        ) {
            let payload = vec![0x11u8; 200];
            let mut input = garbage;
            // A false start inside the garbage can run at most 516 bytes into the frames,
            // which ends inside the third 204-byte frame: the fourth and fifth must survive.
            for _ in 0..5 {
                input.extend(frame(&payload));
            }
            let (got, _) = decode_all(&input, chunk);
            prop_assert!(got.len() >= 2);
            prop_assert!(got.iter().rev().take(2).all(|p| *p == payload), "last frames lost: {:?}", got.len());
        }
    }
}
