//! The firmware side of the stream framing: `0x94 0xC3` + big-endian u16 length + protobuf.
//!
//! Written independently of `meshai::radio::codec` on purpose, so the two cannot share a bug.
//! Like the firmware's `StreamAPI`, the deframer skips bytes outside frames (the client's
//! 32 × `0xC3` wake-up, noise), resyncs on a length over 512 and otherwise trusts the length:
//! it never scans a payload for the start bytes.

use meshtastic::Message;

/// First start byte of a frame.
pub const START1: u8 = 0x94;
/// Second start byte of a frame.
pub const START2: u8 = 0xC3;
/// Largest payload the firmware accepts (`PhoneAPI.h`); a longer length means we lost sync.
pub const MAX_PAYLOAD: usize = 512;

/// Frames one protobuf message for the wire.
pub fn encode(msg: &impl Message) -> Vec<u8> {
    let body = msg.encode_to_vec();
    let len = u16::try_from(body.len()).unwrap_or(u16::MAX);
    let mut out = Vec::with_capacity(4 + body.len());
    out.extend_from_slice(&[START1, START2]);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(&body);
    out
}

/// What the deframer found in the byte stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// A complete frame's payload (not yet decoded).
    Frame(Vec<u8>),
    /// This many bytes outside any frame were skipped.
    Stray(usize),
}

/// Incremental, sans-IO deframer: push bytes as they arrive, pull pieces out.
#[derive(Debug, Default)]
pub struct Deframer {
    /// Bytes received and not yet turned into pieces.
    buf: Vec<u8>,
}

impl Deframer {
    /// Appends bytes read from the stream.
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// Returns the next piece, or `None` until more bytes arrive.
    pub fn next_piece(&mut self) -> Option<Piece> {
        let skip = self
            .buf
            .iter()
            .position(|&b| b == START1)
            .unwrap_or(self.buf.len());
        if skip > 0 {
            self.buf.drain(..skip);
            return Some(Piece::Stray(skip));
        }
        let second = *self.buf.get(1)?;
        if second != START2 {
            self.buf.drain(..1);
            return Some(Piece::Stray(1));
        }
        let (hi, lo) = (*self.buf.get(2)?, *self.buf.get(3)?);
        let len = usize::from(u16::from_be_bytes([hi, lo]));
        if len > MAX_PAYLOAD {
            self.buf.drain(..2);
            return Some(Piece::Stray(2));
        }
        if self.buf.len() < 4 + len {
            return None;
        }
        let frame = self.buf.get(4..4 + len)?.to_vec();
        self.buf.drain(..4 + len);
        Some(Piece::Frame(frame))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshtastic::protobufs::{Heartbeat, ToRadio, to_radio};

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// Feeds `input` one byte at a time and collects every piece, merging adjacent strays.
    fn pieces(input: &[u8]) -> Vec<Piece> {
        let mut d = Deframer::default();
        let mut out: Vec<Piece> = Vec::new();
        for b in input {
            d.push(&[*b]);
            while let Some(p) = d.next_piece() {
                match (out.last_mut(), p) {
                    (Some(Piece::Stray(n)), Piece::Stray(m)) => *n += m,
                    (_, p) => out.push(p),
                }
            }
        }
        out
    }

    fn check(input: &[u8], expect: &[Piece]) {
        assert_eq!(pieces(input), expect, "input {input:02x?}");
    }

    #[test]
    fn deframes_like_the_firmware() {
        let want_config = hex("94c3000618f8acd19101");
        let heartbeat = hex("94c300023a00");
        let dm = hex(
            "94c3002712250d44332211150d0c0b0a220e0801120a70696e6720e28094c3a93577770000480350017803",
        );
        let frame = |v: &[u8]| Piece::Frame(v[4..].to_vec());
        let wake: Vec<u8> = [vec![START2; 32], want_config.clone()].concat();
        let log: Vec<u8> = [b"INFO  | 12 [Router] x\r\n".to_vec(), heartbeat.clone()].concat();
        let huge = [vec![START1, START2, 0x02, 0x01], heartbeat.clone()].concat();
        let false_start = [vec![START1, 0x00], heartbeat.clone()].concat();
        let cases: Vec<(&[u8], Vec<Piece>)> = vec![
            (&want_config, vec![frame(&want_config)]),
            (&heartbeat, vec![frame(&heartbeat)]),
            (&dm, vec![frame(&dm)]),
            (&wake, vec![Piece::Stray(32), frame(&want_config)]),
            (&log, vec![Piece::Stray(23), frame(&heartbeat)]),
            (&huge, vec![Piece::Stray(4), frame(&heartbeat)]),
            (&false_start, vec![Piece::Stray(2), frame(&heartbeat)]),
            (&heartbeat[..5], vec![]),
        ];
        for (input, expect) in cases {
            check(input, &expect);
        }
    }

    #[test]
    fn encodes_the_python_vectors() {
        let want = ToRadio {
            payload_variant: Some(to_radio::PayloadVariant::WantConfigId(0x1234_5678)),
        };
        assert_eq!(encode(&want), hex("94c3000618f8acd19101"));
        let hb = ToRadio {
            payload_variant: Some(to_radio::PayloadVariant::Heartbeat(Heartbeat { nonce: 0 })),
        };
        assert_eq!(encode(&hb), hex("94c300023a00"));
    }
}
