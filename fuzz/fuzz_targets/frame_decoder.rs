//! Fuzzes `meshai::radio::codec::FrameCodec`: arbitrary bytes, fed in arbitrary pieces,
//! must never panic or error, never yield a frame over 512 bytes, never let the read buffer
//! grow without bound, and must not keep the codec from decoding a valid frame that follows
//! a separator long enough to end any partial frame.

#![no_main]

use arbitrary::Arbitrary;
use bytes::{Bytes, BytesMut};
use libfuzzer_sys::fuzz_target;
use meshai::radio::codec::{FrameCodec, HEADER_LEN, MAX_PAYLOAD};
use tokio_util::codec::Decoder;

#[derive(Debug, Arbitrary)]
struct Input {
    /// What the node (or line noise) sent.
    data: Vec<u8>,
    /// Sizes of the reads the bytes arrive in, used in turn (1..=700 each); none means all
    /// at once.
    reads: Vec<u16>,
    /// The valid frame's payload after the separator, cut to `MAX_PAYLOAD`.
    payload: Vec<u8>,
    /// The separator byte; `0x94` (a start byte) is replaced by `0x00`.
    separator: u8,
}

/// A separator this long completes any partial frame (a header promises at most
/// `MAX_PAYLOAD` more bytes) and, containing no start byte, is then skipped as log text.
const SEPARATOR_LEN: usize = HEADER_LEN + MAX_PAYLOAD;

/// Feeds bytes to the codec in the input's read sizes and checks each step.
struct Feeder<'a> {
    codec: FrameCodec,
    buf: BytesMut,
    reads: &'a [u16],
    next_read: usize,
}

impl Feeder<'_> {
    fn read_size(&mut self, left: usize) -> usize {
        let size = match self.reads.get(self.next_read % self.reads.len().max(1)) {
            Some(&r) => usize::from(r) % 700 + 1,
            None => left,
        };
        self.next_read += 1;
        size.min(left).max(1)
    }

    /// Feeds all of `bytes` and returns every frame decoded along the way.
    fn feed(&mut self, mut bytes: &[u8]) -> Vec<Bytes> {
        let mut frames = Vec::new();
        while !bytes.is_empty() {
            let size = self.read_size(bytes.len());
            let (read, rest) = bytes.split_at(size);
            bytes = rest;
            self.buf.extend_from_slice(read);
            loop {
                let frame = self
                    .codec
                    .decode(&mut self.buf)
                    .expect("decode never fails");
                self.check_buffer(size);
                let Some(frame) = frame else { break };
                assert!(frame.len() <= MAX_PAYLOAD, "frame of {} bytes", frame.len());
                // Keep a copy, not the `Bytes`: a held frame pins the buffer's memory the
                // way a caller that parses and drops each frame does not.
                frames.push(Bytes::copy_from_slice(&frame));
            }
        }
        frames
    }

    fn check_buffer(&self, read: usize) {
        let bound = 4 * (HEADER_LEN + MAX_PAYLOAD) + read;
        assert!(
            self.buf.len() <= HEADER_LEN + MAX_PAYLOAD + read,
            "buffer holds {} bytes",
            self.buf.len()
        );
        assert!(
            self.buf.capacity() <= bound,
            "buffer capacity {} > {bound}",
            self.buf.capacity()
        );
    }
}

fuzz_target!(|input: Input| {
    let mut feeder = Feeder {
        codec: FrameCodec::new(),
        buf: BytesMut::new(),
        reads: &input.reads,
        next_read: 0,
    };
    feeder.feed(&input.data);

    let byte = if input.separator == 0x94 {
        0x00
    } else {
        input.separator
    };
    feeder.feed(&[byte; SEPARATOR_LEN]);

    let payload = input.payload.get(..MAX_PAYLOAD).unwrap_or(&input.payload);
    let len = u16::try_from(payload.len()).expect("at most 512");
    let mut frame = vec![0x94, 0xC3];
    frame.extend_from_slice(&len.to_be_bytes());
    frame.extend_from_slice(payload);
    let frames = feeder.feed(&frame);
    assert_eq!(
        frames,
        [Bytes::copy_from_slice(payload)],
        "the valid frame was not decoded alone"
    );

    let end = feeder
        .codec
        .decode_eof(&mut feeder.buf)
        .expect("decode_eof never fails");
    assert_eq!(end, None, "a frame appeared at eof");
});
