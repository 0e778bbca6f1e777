//! Fuzzes `meshai::chunk::chunk`: arbitrary text and limits must give parts that fit both
//! limits, are never empty, carry correct `" i/n"` markers, and put the words back together
//! exactly (or, when cut short, a prefix of them followed by `…`).

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use meshai::chunk::{ChunkLimits, chunk};

/// One run: arbitrary UTF-8 and limits from anywhere in their range.
#[derive(Debug, Arbitrary)]
struct Input {
    max_chars: Size,
    max_bytes: Size,
    max_chunks: Count,
    text: String,
}

/// A part size: mostly near real limits (the config allows 20..=200 characters), where
/// the fuzzer finds the interesting cuts, but any `usize` too, up to `usize::MAX`.
#[derive(Debug, Arbitrary)]
enum Size {
    Small(u16),
    Any(usize),
}

/// A part count: mostly 0, the usual 1..=10 and values above the chunker's cap of 99, but
/// any `usize` too.
#[derive(Debug, Arbitrary)]
enum Count {
    Small(u8),
    Any(usize),
}

impl Size {
    fn get(&self) -> usize {
        match *self {
            Size::Small(n) => usize::from(n),
            Size::Any(n) => n,
        }
    }
}

impl Count {
    fn get(&self) -> usize {
        match *self {
            Count::Small(n) => usize::from(n),
            Count::Any(n) => n,
        }
    }
}

fuzz_target!(|input: Input| {
    let limits = ChunkLimits {
        max_chars: input.max_chars.get(),
        max_bytes: input.max_bytes.get(),
        max_chunks: input.max_chunks.get(),
    };
    let parts = chunk(&input.text, &limits);
    check(&input.text, &limits, &parts);
});

/// The limits the chunker documents that it applies: too-small values are raised to the
/// floors and the part count is clamped.
fn effective(limits: &ChunkLimits) -> ChunkLimits {
    ChunkLimits {
        max_chars: limits.max_chars.max(ChunkLimits::MIN_CHARS),
        max_bytes: limits.max_bytes.max(ChunkLimits::MIN_BYTES),
        max_chunks: limits.max_chunks.clamp(1, ChunkLimits::MAX_CHUNKS),
    }
}

fn check(text: &str, limits: &ChunkLimits, parts: &[String]) {
    let limits = effective(limits);
    let normalized = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if normalized.is_empty() {
        assert!(parts.is_empty(), "blank text gave parts: {parts:?}");
        return;
    }
    let n = parts.len();
    assert!(n >= 1, "text {normalized:?} gave no parts");
    assert!(
        n <= limits.max_chunks,
        "{n} parts for at most {}",
        limits.max_chunks
    );

    let mut bodies = Vec::with_capacity(n);
    for (i, part) in parts.iter().enumerate() {
        let chars = part.chars().count();
        assert!(
            chars <= limits.max_chars,
            "part {part:?} has {chars} chars > {}",
            limits.max_chars
        );
        assert!(
            part.len() <= limits.max_bytes,
            "part {part:?} has {} bytes > {}",
            part.len(),
            limits.max_bytes
        );
        let body = if n > 1 {
            let marker = format!(" {}/{n}", i + 1);
            part.strip_suffix(&marker)
                .unwrap_or_else(|| panic!("part {part:?} does not end with {marker:?}"))
        } else {
            part.as_str()
        };
        assert!(!body.is_empty(), "empty part {i} in {parts:?}");
        assert_eq!(body, body.trim(), "part {i} starts or ends with whitespace");
        bodies.push(body);
    }

    // Walk the normalized text: each body must come next, followed by the single space of
    // a cut at a word boundary or by nothing for a cut inside a word.
    let mut rest = normalized.as_str();
    let (last, init) = bodies.split_last().expect("at least one part");
    for body in init {
        rest = rest
            .strip_prefix(body)
            .unwrap_or_else(|| panic!("part {body:?} is not the next text of {rest:?}"));
        rest = rest.strip_prefix(' ').unwrap_or(rest);
        assert!(!rest.is_empty(), "text ran out before the last part");
    }
    if *last == rest {
        return;
    }
    // Cut short: only with every allowed part used, and the last part is a prefix of the
    // rest followed by the ellipsis.
    assert_eq!(
        n, limits.max_chunks,
        "text lost without using all parts: {parts:?}"
    );
    let kept = last
        .strip_suffix('…')
        .unwrap_or_else(|| panic!("last part {last:?} neither ends the text nor has a …"));
    assert!(
        rest.starts_with(kept),
        "last part {last:?} is not a prefix of {rest:?}"
    );
    assert!(
        rest.len() > kept.len(),
        "nothing was cut, yet a … was added"
    );
}
