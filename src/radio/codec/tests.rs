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
