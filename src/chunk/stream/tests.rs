//! The streamed chunker against the batch one, and the numbering rule.

use proptest::prelude::*;

use super::super::{ChunkLimits, CutMark, Ends, fit, layout, strip_marker};
use super::{Numbering, Parts, StreamChunker};

/// Feeds `pieces` one by one; returns every part with whether it was handed out before the
/// answer ended (`true`), and whether the chunker filled up.
fn stream(pieces: &[&str], limits: &ChunkLimits) -> (Vec<(String, bool)>, bool) {
    let mut chunker = StreamChunker::new(limits);
    let mut out = Vec::new();
    for piece in pieces {
        let Parts { parts, last } = chunker.push(piece);
        let n = parts.len();
        for (i, p) in parts.into_iter().enumerate() {
            out.push((p, !(last && i + 1 == n)));
        }
        if last {
            assert!(chunker.is_full());
            return (out, true);
        }
    }
    let Parts { parts, last } = chunker.finish();
    assert_eq!(last, !parts.is_empty());
    out.extend(parts.into_iter().map(|p| (p, false)));
    (out, false)
}

/// The batch chunker's parts without their markers.
fn batch(text: &str, limits: &ChunkLimits) -> Vec<String> {
    let parts = layout(text, limits, CutMark::Ellipsis).parts;
    if parts.len() <= 1 {
        return parts;
    }
    parts.iter().map(|p| strip_marker(p).to_owned()).collect()
}

fn words(text: &str) -> Vec<String> {
    text.split_inclusive(' ').map(str::to_owned).collect()
}

const SMALL: ChunkLimits = ChunkLimits {
    max_chars: 24,
    max_bytes: 200,
    max_chunks: 3,
};

#[test]
fn parts_leave_as_soon_as_their_cut_is_certain() {
    let text = "one two three four five six seven eight nine ten eleven";
    let pieces = words(text);
    let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let mut chunker = StreamChunker::new(&SMALL);
    let mut when = Vec::new();
    for (i, piece) in pieces.iter().enumerate() {
        for part in chunker.push(piece).parts {
            when.push((i, part));
        }
    }
    // "one two three four five" (23) could still be the whole answer in one part; with
    // "six" it cannot, and part 1 ("one two three four" + " 1/?", 22 of 24) is certain.
    assert_eq!(
        when,
        [
            (5, "one two three four".to_string()),
            (8, "five six seven eight".to_string())
        ]
    );
    let tail = chunker.finish();
    assert_eq!(tail.parts, ["nine ten eleven"]);
    assert!(tail.last);
    assert_eq!(
        batch(text, &SMALL),
        [
            "one two three four",
            "five six seven eight",
            "nine ten eleven"
        ]
    );
}

#[test]
fn a_short_answer_is_one_unnumbered_part_only_at_the_end() {
    // 24 characters fit one part without a marker: nothing is certain before the end.
    let (parts, full) = stream(&["Twenty-four chars, ", "right"], &SMALL);
    assert_eq!(parts, [("Twenty-four chars, right".to_string(), false)]);
    assert!(!full);
    // One character more needs two numbered parts; the first is certain at once.
    let (parts, _) = stream(&["Twenty-five chars ", "exactly!", " x"], &SMALL);
    assert_eq!(
        parts,
        [
            ("Twenty-five chars".to_string(), true),
            ("exactly! x".to_string(), false)
        ]
    );
}

#[test]
fn the_budget_stops_the_stream_with_an_ellipsis() {
    let text = "aaa bbb ccc ddd eee fff ggg hhh iii jjj kkk lll mmm nnn ooo ppp qqq rrr";
    let pieces = words(text);
    let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let (parts, full) = stream(&pieces, &SMALL);
    assert!(full, "{parts:?}");
    let bodies: Vec<&str> = parts.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(bodies, batch(text, &SMALL));
    assert!(bodies[2].ends_with('…'));
    // The stream stops as soon as the last part's cut is certain: once "ppp" begins after
    // "kkk lll mmm nnn ooo" (19 characters, the room left beside " 3/3" and "…").
    let words_used = 16;
    let mut chunker = StreamChunker::new(&SMALL);
    let mut fed = 0;
    for piece in &pieces {
        fed += 1;
        if chunker.push(piece).last {
            break;
        }
    }
    assert!(fed <= words_used, "stopped after {fed} words");
}

#[test]
fn restart_only_before_the_first_part() {
    let mut chunker = StreamChunker::new(&SMALL);
    assert!(chunker.push("thinking about it ").parts.is_empty());
    assert!(chunker.restart());
    chunker.push("Hello there, this is the answer now");
    assert_eq!(chunker.handed(), 1);
    assert!(!chunker.restart());
    let tail = chunker.finish();
    assert_eq!(tail.parts, ["the answer now"]);
}

#[test]
fn numbering() {
    // (total known when each part is sent, or None) → markers.
    let cases: [(&[Option<usize>], &[&str]); 5] = [
        (&[Some(1)], &[""]),
        (&[Some(3), Some(3), Some(3)], &[" 1/3", " 2/3", " 3/3"]),
        (&[None, None, Some(3)], &[" 1/?", " 2/?", " 3/3"]),
        // Once a part went out as `?`, the others follow suit even when the total is known.
        (&[None, Some(3), Some(3)], &[" 1/?", " 2/?", " 3/3"]),
        (&[None, Some(2)], &[" 1/?", " 2/2"]),
    ];
    for (totals, want) in cases {
        let mut numbering = Numbering::default();
        let got: Vec<String> = totals
            .iter()
            .enumerate()
            .map(|(i, t)| numbering.marker(i, *t))
            .collect();
        assert_eq!(got, want, "{totals:?}");
    }
}

fn limits() -> impl Strategy<Value = ChunkLimits> {
    (12..160usize, 24..220usize, 1..10usize).prop_map(|(max_chars, max_bytes, max_chunks)| {
        ChunkLimits {
            max_chars,
            max_bytes,
            max_chunks,
        }
    })
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "([a-zA-Z]{1,12}[.,!?]? ){0,120}",
        "([a-z]{1,30}|[你好。！]{1,40}|🙂|e\u{301}|https://x.org/[a-z_]{0,250}|[ \n\t]{1,3}|[.!?] ){0,60}",
        any::<String>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// Streamed parts are the batch parts, except where the batch chunker had to drop its
    /// sentence cuts to fit (documented in the module); parts handed out early are never
    /// the last one; and every part leaves room for its widest marker.
    #[test]
    fn streamed_parts_are_the_batch_parts(
        text in text(),
        limits in limits(),
        cuts in prop::collection::vec(0.0..1.0f64, 0..40),
    ) {
        let pieces = crate::test_util::split_at_fractions(&text, &cuts);
        let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
        let (parts, _) = stream(&pieces, &limits);
        let bodies: Vec<String> = parts.iter().map(|(p, _)| p.clone()).collect();
        let want = batch(&text, &limits);
        let normalized = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let out = layout(&text, &limits, CutMark::Ellipsis);
        let sane = limits.sane();
        let word_fallback = !out.truncated
            && out.parts.len() > 1
            && fit(&normalized, &sane, Ends::Sentence).is_none();
        if !word_fallback {
            prop_assert_eq!(&bodies, &want);
        } else {
            prop_assert!(bodies.last().is_some_and(|b| b.ends_with('…')));
        }
        let n = bodies.len();
        for (i, (body, early)) in parts.iter().enumerate() {
            prop_assert!(!(*early && i + 1 == n), "the last part went out early");
            let widest = if n == 1 { 0 } else { format!(" {}/{}", i + 1, sane.max_chunks.max(n)).len() };
            prop_assert!(body.chars().count() + widest <= sane.max_chars, "{body:?}");
            prop_assert!(body.len() + widest <= sane.max_bytes, "{body:?}");
        }
    }
}

#[test]
fn a_stream_cut_at_the_budget_ends_with_its_mark() {
    let limits = ChunkLimits {
        max_chars: 40,
        max_bytes: 60,
        max_chunks: 2,
    };
    let mut c = StreamChunker::with_mark(&limits, CutMark::More(crate::lang::Lang::En));
    let mut parts = c.push(&"word ".repeat(40)).parts;
    parts.extend(c.finish().parts);
    assert!(c.is_full());
    assert_eq!(parts.len(), 2);
    assert!(parts[1].ends_with(crate::chunk::MORE), "{parts:?}");
    // The same cut as the batch chunker makes.
    let (batch, cut) = super::super::chunk_cut(
        &"word ".repeat(40),
        &limits,
        CutMark::More(crate::lang::Lang::En),
    );
    assert!(cut);
    let batch: Vec<&str> = batch.iter().map(|p| strip_marker(p)).collect();
    assert_eq!(parts, batch);
}
