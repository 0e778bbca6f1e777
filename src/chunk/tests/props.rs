//! Property tests: limits, markers and word-for-word reassembly on arbitrary text.

use proptest::prelude::*;

use super::super::{ChunkLimits, CutMark, layout, strip_marker};

fn limits() -> impl Strategy<Value = ChunkLimits> {
    (20..200usize, 40..250usize, 1..6usize).prop_map(|(max_chars, max_bytes, max_chunks)| {
        ChunkLimits {
            max_chars,
            max_bytes,
            max_chunks,
        }
    })
}

/// Small parts, so that long texts cross from one-digit to two-digit markers; and the
/// extremes: below the floors, above the cap, up to `usize::MAX`.
fn wide_limits() -> impl Strategy<Value = ChunkLimits> {
    let size = |small| prop_oneof![4 => small, 1 => Just(usize::MAX), 1 => any::<usize>()];
    (size(0..40usize), size(0..60usize), size(0..30usize)).prop_map(
        |(max_chars, max_bytes, max_chunks)| ChunkLimits {
            max_chars,
            max_bytes,
            max_chunks,
        },
    )
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "\\PC{0,700}",
        "([a-zA-Z]{1,12}[.,!?]? ){0,120}",
        "([a-z]{1,30}|[你好。！]{1,40}|🙂|👨\u{200d}👩\u{200d}👧|e\u{301}|https://x.org/[a-z_]{0,250}|[ \n\t]{1,3}){0,60}",
    ]
}

/// Checks that the output words (each part's words in order, marker and `…` removed) spell
/// the input words: equal, or a word split over consecutive parts whose pieces concatenate
/// back to it. A truncated output only has to spell a prefix of the input.
fn reassembles(input: &str, bodies: &[&str], truncated: bool) -> Result<(), String> {
    let mut out = Vec::new();
    for body in bodies {
        let words: Vec<&str> = body.split(' ').collect();
        let last = words.len() - 1;
        out.extend(words.into_iter().enumerate().map(|(i, w)| (w, i == last)));
    }
    let mut out = out.into_iter().peekable();
    for word in input.split_whitespace() {
        let Some((first, mut at_part_end)) = out.next() else {
            return if truncated {
                Ok(())
            } else {
                Err(format!("missing word {word:?}"))
            };
        };
        let mut acc = first.to_owned();
        while acc != word {
            let more = out.peek().is_some();
            if !word.starts_with(&acc) {
                return Err(format!("{acc:?} does not spell {word:?}"));
            }
            if !more {
                return if truncated {
                    Ok(())
                } else {
                    Err(format!("word {word:?} ends early as {acc:?}"))
                };
            }
            if !at_part_end {
                return Err(format!("word {word:?} split inside a part"));
            }
            let (piece, end) = out.next().unwrap_or_default();
            acc.push_str(piece);
            at_part_end = end;
        }
    }
    match out.next() {
        Some((extra, _)) => Err(format!("extra word {extra:?}")),
        None => Ok(()),
    }
}

/// The invariants of the module documentation, for the limits actually applied.
fn check_layout(text: &str, limits: &ChunkLimits) -> Result<(), TestCaseError> {
    let limits = limits.sane();
    let out = layout(text, &limits, CutMark::Ellipsis);
    let parts = &out.parts;
    prop_assert!(parts.len() <= limits.max_chunks);
    prop_assert_eq!(parts.is_empty(), text.trim().is_empty());
    let total = parts.len();
    let mut bodies = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        prop_assert!(
            part.chars().count() <= limits.max_chars,
            "chars: {:?}",
            part
        );
        prop_assert!(part.len() <= limits.max_bytes, "bytes: {:?}", part);
        prop_assert_eq!(part.trim(), part.as_str());
        let body = if total > 1 {
            let marker = format!(" {}/{total}", i + 1);
            prop_assert!(part.ends_with(&marker), "marker: {:?}", part);
            prop_assert_eq!(strip_marker(part), &part[..part.len() - marker.len()]);
            strip_marker(part)
        } else {
            part.as_str()
        };
        prop_assert!(!body.is_empty());
        prop_assert_eq!(body.trim(), body);
        bodies.push(body);
    }
    if out.truncated {
        prop_assert_eq!(total, limits.max_chunks);
        let last = bodies.pop().unwrap_or_default();
        prop_assert!(last.ends_with('…'), "no ellipsis: {:?}", last);
        let last = &last[..last.len() - '…'.len_utf8()];
        prop_assert!(!last.is_empty());
        bodies.push(last);
        prop_assert!(
            reassembles(text, &bodies, false).is_err(),
            "… added with nothing cut: {:?}",
            parts
        );
    }
    if let Err(e) = reassembles(text, &bodies, out.truncated) {
        prop_assert!(false, "{}: {:?}", e, parts);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn parts_fit_and_reassemble(text in text(), limits in limits()) {
        check_layout(&text, &limits)?;
    }

    /// About ten parts, so that one- and two-digit markers give different cuts; short
    /// words beside words too long for a part make the part count jump between them.
    #[test]
    fn marker_widths_are_all_tried(
        text in "([x0]{1,5} |[x0]{15,60} ){10,40}",
        max_bytes in 24..=32usize,
        max_chunks in 8..=12usize,
    ) {
        let limits = ChunkLimits { max_chars: 150, max_bytes, max_chunks };
        check_layout(&text, &limits)?;
    }

    #[test]
    fn any_limits_fit_and_reassemble(text in text(), limits in wide_limits()) {
        check_layout(&text, &limits)?;
    }
}
