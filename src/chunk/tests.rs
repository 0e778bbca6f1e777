use super::{ChunkLimits, CutMark, budget_hint, chunk, chunk_cut, layout, strip_marker};

const DEFAULT: ChunkLimits = ChunkLimits {
    max_chars: 150,
    max_bytes: 200,
    max_chunks: 4,
};

#[track_caller]
fn check(text: &str, limits: &ChunkLimits, expect: &[&str]) {
    let parts = chunk(text, limits);
    assert_eq!(parts, expect, "input: {text:?}");
    assert_within(&parts, limits);
}

#[track_caller]
fn assert_within(parts: &[String], limits: &ChunkLimits) {
    for part in parts {
        assert!(
            part.chars().count() <= limits.max_chars,
            "too many chars: {part:?}"
        );
        assert!(part.len() <= limits.max_bytes, "too many bytes: {part:?}");
    }
}

/// `n` words of English-looking filler, numbered so that reassembly mistakes show.
fn words(n: usize) -> String {
    (0..n)
        .map(|i| format!("word{i}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn short_texts() {
    check("", &DEFAULT, &[]);
    check(" \n\t ", &DEFAULT, &[]);
    check("Hello there!", &DEFAULT, &["Hello there!"]);
    check("  spaced \n out\ttext ", &DEFAULT, &["spaced out text"]);
    let exact = "x".repeat(150);
    check(&exact, &DEFAULT, &[exact.as_str()]);
}

#[test]
fn two_parts_at_a_word_boundary() {
    let limits = ChunkLimits {
        max_chars: 20,
        max_bytes: 200,
        max_chunks: 4,
    };
    check(
        "one two three four five six seven",
        &limits,
        &["one two three 1/3", "four five six 2/3", "seven 3/3"],
    );
    check(
        "aaaa bbbb cccc dddd eeee",
        &limits,
        &["aaaa bbbb cccc 1/2", "dddd eeee 2/2"],
    );
}

#[test]
fn sentence_ends_win_when_the_part_stays_full() {
    let limits = ChunkLimits {
        max_chars: 40,
        max_bytes: 200,
        max_chunks: 4,
    };
    // "It rains a lot today." is 21 of 36 characters (58 %): too short, keep filling.
    check(
        "It rains a lot today. Take a coat and some boots too.",
        &limits,
        &[
            "It rains a lot today. Take a coat 1/2",
            "and some boots too. 2/2",
        ],
    );
    // 26 of 36 characters (72 %): cut at the sentence end.
    check(
        "It rains a lot today, Bob. Take a coat and some boots.",
        &limits,
        &[
            "It rains a lot today, Bob. 1/2",
            "Take a coat and some boots. 2/2",
        ],
    );
    // Closing quotes and other sentence marks count too.
    check(
        "He said \"go home now!\" Then he left us there.",
        &limits,
        &["He said \"go home now!\" 1/2", "Then he left us there. 2/2"],
    );
    check(
        "Is the relay node online? Yes it is up since noon.",
        &limits,
        &[
            "Is the relay node online? 1/2",
            "Yes it is up since noon. 2/2",
        ],
    );
}

#[test]
fn emoji_count_four_bytes() {
    // 60 emoji without spaces are 240 bytes: the byte limit splits them, 49 + " 1/2".
    let text = "🙂".repeat(60);
    let parts = chunk(&text, &DEFAULT);
    assert_within(&parts, &DEFAULT);
    assert_eq!(
        parts,
        [
            format!("{} 1/2", "🙂".repeat(49)),
            format!("{} 2/2", "🙂".repeat(11)),
        ]
    );
    // Separated by spaces, 40 emoji are 199 bytes: one part.
    let spaced = vec!["🙂"; 40].join(" ");
    check(&spaced, &DEFAULT, &[spaced.as_str()]);
}

#[test]
fn cjk_is_bound_by_bytes() {
    // 100 characters of 3 bytes: 300 bytes, so (200 - 4) / 3 = 65 characters in part one.
    let text = "你".repeat(100);
    let parts = chunk(&text, &DEFAULT);
    assert_within(&parts, &DEFAULT);
    assert_eq!(
        parts,
        [
            format!("{} 1/2", "你".repeat(65)),
            format!("{} 2/2", "你".repeat(35)),
        ]
    );
}

#[test]
fn cjk_prefers_full_width_sentence_ends() {
    // Sentences of 20 characters without spaces: cut after the third "。" (60 characters).
    let sentence = format!("{}。", "好".repeat(19));
    let text = sentence.repeat(5);
    let parts = chunk(&text, &DEFAULT);
    assert_within(&parts, &DEFAULT);
    assert_eq!(
        parts,
        [
            format!("{} 1/2", sentence.repeat(3)),
            format!("{} 2/2", sentence.repeat(2)),
        ]
    );
}

#[test]
fn english_answer_in_four_parts_reassembles() {
    let text = words(80);
    assert_eq!(text.len(), 549);
    let parts = chunk(&text, &DEFAULT);
    assert_within(&parts, &DEFAULT);
    assert_eq!(parts.len(), 4);
    for (i, part) in parts.iter().enumerate() {
        assert!(part.ends_with(&format!(" {}/4", i + 1)), "{part:?}");
    }
    let joined = parts
        .iter()
        .map(|p| strip_marker(p))
        .collect::<Vec<_>>()
        .join(" ");
    assert_eq!(joined, text);
}

#[test]
fn english_prose_in_four_parts_reassembles() {
    let text = "LoRa is a long range radio technique that trades speed for reach. A node at \
        the default LongFast preset sends a short text in about a second and a half, and \
        every relay repeats it, so airtime is precious. Keep messages short, avoid \
        broadcasting when a direct message will do, and give your node a good antenna up \
        high: height matters more than power. In Europe the 868 MHz band also limits you \
        to ten percent duty cycle per hour, which the firmware enforces for you. Meshtastic \
        nodes relay each message up to three hops by default. Have fun out there!";
    assert!(
        (540..=600).contains(&text.chars().count()),
        "{}",
        text.len()
    );
    let parts = chunk(text, &DEFAULT);
    assert_within(&parts, &DEFAULT);
    assert_eq!(parts.len(), 4, "{parts:?}");
    let joined = parts
        .iter()
        .map(|p| strip_marker(p))
        .collect::<Vec<_>>()
        .join(" ");
    assert_eq!(joined, text);
}

#[test]
fn sentence_ends_are_dropped_before_text_is() {
    let limits = ChunkLimits {
        max_chars: 40,
        max_bytes: 200,
        max_chunks: 2,
    };
    // At sentence ends this needs three parts; at word boundaries it fits in two.
    check(
        "It rains a lot today, Bob. Take a coat and some boots with you now.",
        &limits,
        &[
            "It rains a lot today, Bob. Take a 1/2",
            "coat and some boots with you now. 2/2",
        ],
    );
}

#[test]
fn long_answer_is_cut_with_an_ellipsis() {
    let text = words(300);
    let out = layout(&text, &DEFAULT, CutMark::Ellipsis);
    assert!(out.truncated);
    assert_within(&out.parts, &DEFAULT);
    assert_eq!(out.parts.len(), 4);
    let last = out.parts.last().unwrap();
    assert!(last.ends_with("… 4/4"), "{last:?}");
    // The cut falls at a word boundary: the last word before "…" is whole.
    let body = strip_marker(last).trim_end_matches('…');
    let last_word = body.rsplit(' ').next().unwrap();
    assert!(text.split(' ').any(|w| w == last_word), "{last_word:?}");
    assert!(text.starts_with(strip_marker(&out.parts[0])));
}

#[test]
fn single_part_limit_cuts_without_marker() {
    let limits = ChunkLimits {
        max_chars: 20,
        max_bytes: 200,
        max_chunks: 1,
    };
    check(
        "one two three four five six",
        &limits,
        &["one two three four…"],
    );
}

#[test]
fn url_is_split_at_grapheme_boundaries() {
    let url = format!("https://example.com/{}", "a".repeat(280));
    assert_eq!(url.len(), 300);
    let parts = chunk(&url, &DEFAULT);
    assert_within(&parts, &DEFAULT);
    let lens: Vec<usize> = parts.iter().map(|p| p.chars().count()).collect();
    assert_eq!(lens, [150, 150, 12]);
    let joined: String = parts.iter().map(|p| strip_marker(p)).collect();
    assert_eq!(joined, url);
}

#[test]
fn a_short_word_before_a_huge_one_does_not_make_a_tiny_part() {
    let text = format!("See {}", "你".repeat(100));
    let parts = chunk(&text, &DEFAULT);
    assert_within(&parts, &DEFAULT);
    assert_eq!(
        parts,
        [
            format!("See {} 1/2", "你".repeat(64)),
            format!("{} 2/2", "你".repeat(36)),
        ]
    );
}

#[test]
fn grapheme_clusters_stay_whole() {
    let family = "👨\u{200d}👩\u{200d}👧\u{200d}👦"; // 7 code points, 25 bytes.
    let accented = "e\u{301}"; // 2 code points, 3 bytes.
    for (unit, count) in [(family, 12), (accented, 120)] {
        let text = unit.repeat(count);
        let parts = chunk(&text, &DEFAULT);
        assert_within(&parts, &DEFAULT);
        assert!(parts.len() > 1);
        let mut joined = String::new();
        for part in &parts {
            let body = strip_marker(part);
            assert!(!body.is_empty());
            assert_eq!(
                body.replace(unit, ""),
                "",
                "split inside a cluster: {part:?}"
            );
            joined.push_str(body);
        }
        assert_eq!(joined, text);
    }
}

#[test]
fn a_grapheme_larger_than_a_part_is_cut_between_code_points() {
    let limits = ChunkLimits {
        max_chars: 20,
        max_bytes: 40,
        max_chunks: 6,
    };
    let text = format!("a{}", "\u{301}".repeat(30));
    let parts = chunk(&text, &limits);
    assert_within(&parts, &limits);
    let joined: String = parts.iter().map(|p| strip_marker(p)).collect();
    assert_eq!(joined, text);
}

#[test]
fn marker_width_grows_with_the_total() {
    let limits = ChunkLimits {
        max_chars: 20,
        max_bytes: 200,
        max_chunks: 20,
    };
    let text = words(30);
    let parts = chunk(&text, &limits);
    assert_within(&parts, &limits);
    assert!(parts.len() >= 10, "{parts:?}");
    let total = parts.len();
    for (i, part) in parts.iter().enumerate() {
        assert!(part.ends_with(&format!(" {}/{total}", i + 1)), "{part:?}");
    }
    let joined = parts
        .iter()
        .map(|p| strip_marker(p))
        .collect::<Vec<_>>()
        .join(" ");
    assert_eq!(joined, text);
}

#[test]
fn absurd_limits_are_raised_to_the_floor() {
    let limits = ChunkLimits {
        max_chars: 0,
        max_bytes: 0,
        max_chunks: 0,
    };
    let parts = chunk(&words(20), &limits);
    assert_eq!(parts.len(), 1);
    assert!(parts[0].chars().count() <= ChunkLimits::MIN_CHARS);
    assert!(parts[0].ends_with('…'));
}

#[test]
fn strip_marker_table() {
    let table = [
        ("hello 1/2", "hello"),
        ("a b 10/12", "a b"),
        ("streamed 2/?", "streamed"),
        ("hello ?/2", "hello ?/2"),
        ("hello", "hello"),
        ("hello /2", "hello /2"),
        ("hello 1/", "hello 1/"),
        ("hello a/b", "hello a/b"),
        ("", ""),
    ];
    for (part, expect) in table {
        assert_eq!(strip_marker(part), expect, "{part:?}");
    }
}

#[test]
fn budget_hints() {
    let table = [
        (
            DEFAULT,
            "Answer in at most 150 characters; never more than 560.",
        ),
        (
            ChunkLimits {
                max_chunks: 1,
                ..DEFAULT
            },
            "Answer in at most 150 characters.",
        ),
        (
            ChunkLimits {
                max_chars: 100,
                max_bytes: 200,
                max_chunks: 3,
            },
            "Answer in at most 100 characters; never more than 270.",
        ),
    ];
    for (limits, expect) in table {
        assert_eq!(budget_hint(crate::lang::Lang::En, &limits), expect);
    }
}

#[test]
fn a_narrower_marker_can_need_more_parts() {
    // Found by the fuzzer. With one-digit markers this needs 11 parts (the last word of
    // part 5 fits a part alone, so part 6 is short), with two-digit markers 10: it fits,
    // and no `…` may be added.
    let limits = ChunkLimits {
        max_chars: 150,
        max_bytes: 24,
        max_chunks: 10,
    };
    let text = "xx%x xxcx xxxx @xxxxxxxxxxx \
        @xx%0000000000000000000000000000000000000000000000000000000xx[(é x\" \
        wwx0000000000000000x xxcx xxx%x @xxxxxxxxxx xxwxxxxxxxxxxxx @xx xx%x xxcx xxx";
    check(
        text,
        &limits,
        &[
            "xx%x xxcx xxxx 1/10",
            "@xxxxxxxxxxx 2/10",
            "@xx%000000000000000 3/10",
            "0000000000000000000 4/10",
            "0000000000000000000 5/10",
            "00xx[(é x\" wwx0000 6/10",
            "000000000000x xxcx 7/10",
            "xxx%x @xxxxxxxxxx 8/10",
            "xxwxxxxxxxxxxxx @xx 9/10",
            "xx%x xxcx xxx 10/10",
        ],
    );
    assert!(!layout(text, &limits, CutMark::Ellipsis).truncated);
}

#[test]
fn huge_limits_do_not_overflow() {
    const MAX: usize = usize::MAX;
    let text = "It rains a lot today. Take a coat and some boots.";
    let table = [
        (MAX, MAX, MAX, vec![text]),
        (
            MAX,
            24,
            MAX,
            vec![
                "It rains a lot 1/3",
                "today. Take a coat 2/3",
                "and some boots. 3/3",
            ],
        ),
        (20, MAX, 2, vec!["It rains a lot 1/2", "today. Take a… 2/2"]),
        (MAX, MAX, 1, vec![text]),
    ];
    for (max_chars, max_bytes, max_chunks, expect) in table {
        let limits = ChunkLimits {
            max_chars,
            max_bytes,
            max_chunks,
        };
        check(text, &limits, &expect);
    }
    let limits = ChunkLimits {
        max_chars: MAX,
        max_bytes: MAX,
        max_chunks: MAX,
    };
    assert_eq!(
        budget_hint(crate::lang::Lang::En, &limits),
        format!(
            "Answer in at most {MAX} characters; never more than {}.",
            MAX / 10 * 10
        )
    );
}

mod props;

#[test]
fn a_cut_answer_can_end_with_the_more_mark() {
    let long = "word ".repeat(200);
    let cases = [
        DEFAULT,
        ChunkLimits {
            max_chars: 40,
            max_bytes: 60,
            max_chunks: 2,
        },
        ChunkLimits {
            max_chunks: 1,
            ..DEFAULT
        },
    ];
    for limits in cases {
        let (parts, cut) = chunk_cut(&long, &limits, CutMark::More(crate::lang::Lang::En));
        assert!(cut);
        assert_eq!(parts.len(), limits.max_chunks);
        let last = strip_marker(parts.last().expect("parts"));
        assert!(
            last.ends_with(&format!("word{}", crate::chunk::MORE)),
            "{last:?}"
        );
        for p in &parts {
            assert!(
                p.chars().count() <= limits.max_chars && p.len() <= limits.max_bytes,
                "{p:?}"
            );
        }
        // A text that fits is never marked.
        let (parts, cut) = chunk_cut("short", &limits, CutMark::More(crate::lang::Lang::En));
        assert_eq!((parts, cut), (vec!["short".to_string()], false));
    }
}

#[test]
fn the_more_mark_speaks_the_conversations_language_and_is_known_in_any() {
    use crate::lang::Lang;
    let limits = ChunkLimits {
        max_chars: 60,
        max_bytes: 200,
        max_chunks: 2,
    };
    let long = "wort ".repeat(60);
    let (parts, cut) = chunk_cut(&long, &limits, CutMark::More(Lang::De));
    assert!(cut);
    let last = strip_marker(parts.last().expect("parts"));
    assert!(last.ends_with("… mehr: !more"), "{parts:?}");
    assert!(parts.iter().all(|p| p.chars().count() <= 60), "{parts:?}");
    assert!(super::ends_cut(last));
    assert!(!super::without_mark(last).contains("!more"));
    for text in [
        "wort … !more",
        "palabra … más: !more",
        "mot … suite : !more",
    ] {
        assert!(super::ends_cut(text), "{text}");
    }
    // A user who typed "!more" at the end of an answer's quote is not a mark.
    assert!(!super::ends_cut("type !more"));
}
