//! The splitter as tables: a document in, `heading | text` passages out.

use super::*;

/// The passages of `text` as `heading | text` lines.
fn render(text: &str, format: Format) -> Vec<String> {
    split(text, format)
        .passages
        .into_iter()
        .map(|p| format!("{} | {}", p.heading, p.text))
        .collect()
}

fn check(text: &str, expect: &[&str]) {
    assert_eq!(render(text, Format::Markdown), expect, "document {text:?}");
}

#[test]
fn headings_make_the_paths() {
    check("", &[]);
    check("\n\n  \n", &[]);
    check("Just a line.", &[" | Just a line."]);
    check(
        "# Club\n\nWe are a club.\n\n## Meetings\n\nFirst Tuesday, 19:30.\n\n### Place\n\nOld Fire \
         Station.\n\n## Fees\n\n£24 a year.",
        &[
            "Club | We are a club.",
            "Club > Meetings | First Tuesday, 19:30.",
            "Club > Meetings > Place | Old Fire Station.",
            "Club > Fees | £24 a year.",
        ],
    );
    // A heading without text stays in the path of the sections under it.
    check(
        "# Handbook\n## Nets\nThursday 20:00.",
        &["Handbook > Nets | Thursday 20:00."],
    );
    // Text before the first heading has an empty path; closing hashes and emphasis go.
    check(
        "Intro.\n\n## **Repeaters** ##\ntext",
        &[" | Intro.", "Repeaters | text"],
    );
    // Setext underlines are headings; a rule after a blank line is not.
    check(
        "Club\n====\n\nHello.\n\nNets\n----\nThursday.\n\n---\n\nMore.",
        &["Club | Hello.", "Club > Nets | Thursday.\n\nMore."],
    );
    // Not headings: `#tag`, a `#` inside a fenced block, a line indented four spaces.
    check(
        "#tag line\n\n```sh\n# a shell comment\nls\n```\n\n    # indented",
        &[" | #tag line\n\n```sh\n# a shell comment\nls\n```\n\n# indented"],
    );
    // A deeper heading closes the ones at its level and below.
    check(
        "# A\n## B\nb\n# C\nc\n### D\nd",
        &["A > B | b", "C | c", "C > D | d"],
    );
}

#[test]
fn plain_text_has_paragraphs_and_a_title_line() {
    let t = |text: &str| render(text, Format::Text);
    // No Markdown: a first paragraph of one short line is the title, marks and all.
    assert_eq!(
        t("# Not markdown\n\nSecond\nparagraph.\r\n"),
        ["# Not markdown | Second\nparagraph."]
    );
    // A first line that ends as a sentence, one of two lines, or a file of one paragraph:
    // no title.
    assert_eq!(t("Hello all.\n\nNets."), [" | Hello all.\n\nNets."]);
    assert_eq!(t("One\nTwo\n\nNets."), [" | One\nTwo\n\nNets."]);
    assert_eq!(t("KVARC NETS"), [" | KVARC NETS"]);
}

#[test]
fn plain_text_wrapped_by_hand_is_joined() {
    let t = |text: &str| render(text, Format::Text);
    // Wrapped at the width of the longest line: the next word would not have fitted.
    assert_eq!(
        t(
            "Thursday evening net: every Thursday at 20:00 on GB3KV (145.7125 MHz, tone\n\
           77.0 Hz). Net control rotates among volunteers; the rota is on the shack\n\
           noticeboard.\n- Bring a mug.\n- Be on time."
        ),
        [
            " | Thursday evening net: every Thursday at 20:00 on GB3KV (145.7125 MHz, tone \
         77.0 Hz). Net control rotates among volunteers; the rota is on the shack \
         noticeboard.\n- Bring a mug.\n- Be on time."
        ]
    );
    // A short line before a long one was broken by the writer, not the editor.
    assert_eq!(
        t("Sunday HF net:\nSundays at 10:00 on 3.720 MHz LSB (80 m), give or take the QRM here."),
        [" | Sunday HF net:\nSundays at 10:00 on 3.720 MHz LSB (80 m), give or take the QRM here."]
    );
    // Short lines (an address, a roster) stay lines.
    assert_eq!(
        t("Chair: Ann Lee\nSecretary: Bob Stone\nTreasurer: Cy Ward"),
        [" | Chair: Ann Lee\nSecretary: Bob Stone\nTreasurer: Cy Ward"]
    );
}

#[test]
fn front_matter_marks_a_file_private_and_is_not_text() {
    let cases: &[(&str, bool, &[&str])] = &[
        (
            "---\nprivate: true\n---\n# Wifi\nPassword x.",
            true,
            &["Wifi | Password x."],
        ),
        (
            "---\nPrivate: \"yes\"\ntitle: x\n...\nbody",
            true,
            &[" | body"],
        ),
        ("---\nprivate: false\n---\nbody", false, &[" | body"]),
        ("---\ntitle: x\n---\nbody", false, &[" | body"]),
        // Not closed: no front matter; the rule and the lines stay text.
        (
            "---\nprivate: true\nbody",
            false,
            &[" | private: true body"],
        ),
        // Only at the very start: here the lines are a rule, then a setext heading.
        (
            "\n---\nprivate: true\n---\nbody",
            false,
            &["private: true | body"],
        ),
        ("\u{feff}---\nprivate: on\n---\nx", true, &[" | x"]),
    ];
    for (text, private, passages) in cases {
        let s = split(text, Format::Markdown);
        assert_eq!(s.private, *private, "{text:?}");
        assert_eq!(render(text, Format::Markdown), *passages, "{text:?}");
    }
    // Plain text has no front matter.
    assert!(!split("---\nprivate: true\n---\nx", Format::Text).private);
}

/// `n` sentences of about 50 characters, numbered.
fn sentences(n: usize) -> String {
    (0..n)
        .map(|i| format!("Sentence number {i:03} says something plain here."))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn long_sections_are_cut_within_the_bound_with_a_little_overlap() {
    // Paragraphs of about 200 characters, longer than the overlap: two fit a passage.
    let para = |i: usize| format!("Paragraph {i}: {}", sentences(4));
    let text = format!(
        "# Long\n\n{}",
        (0..7).map(para).collect::<Vec<_>>().join("\n\n")
    );
    let s = split(&text, Format::Markdown);
    assert!(s.passages.len() >= 3, "{:#?}", s.passages);
    for (i, p) in s.passages.iter().enumerate() {
        assert_eq!(p.heading, "Long");
        assert!(
            chars(&p.text) <= MAX_PASSAGE_CHARS,
            "passage {i}: {}",
            p.text
        );
    }
    // Every paragraph is in some passage, whole.
    for i in 0..7 {
        let want = para(i);
        assert!(
            s.passages.iter().any(|p| p.text.contains(&want)),
            "paragraph {i} whole somewhere"
        );
    }
    // A paragraph longer than the overlap is not repeated: each appears once.
    for i in 0..7 {
        let n = s
            .passages
            .iter()
            .filter(|p| p.text.contains(&para(i)))
            .count();
        assert_eq!(n, 1, "paragraph {i}");
    }
    // Short lines are carried over: the last line of a full passage starts the next.
    let lines: Vec<String> = (0..40).map(|i| format!("Line {i:02} of a list.")).collect();
    let s = split(&lines.join("\n\n"), Format::Markdown);
    assert!(s.passages.len() >= 2);
    for pair in s.passages.windows(2) {
        let last = pair[0].text.rsplit("\n\n").next().unwrap_or_default();
        assert!(
            pair[1].text.starts_with(last),
            "{:?} then {:?}",
            pair[0].text,
            pair[1].text
        );
    }
}

#[test]
fn an_overlong_paragraph_is_cut_at_lines_then_sentences_then_words() {
    // One paragraph of 40 lines (a repeater table without blank lines).
    let table: Vec<String> = (0..40)
        .map(|i| format!("| GB3X{i:02} | 145.{i:03} MHz | -600 kHz | 77.0 Hz |"))
        .collect();
    let s = split(&table.join("\n"), Format::Markdown);
    assert!(s.passages.len() >= 3);
    for p in &s.passages {
        assert!(chars(&p.text) <= MAX_PASSAGE_CHARS);
        // Cut at lines: every line of a passage is a whole row.
        assert!(
            p.text.lines().all(|l| table.iter().any(|t| t == l)),
            "{}",
            p.text
        );
    }
    // One line of many sentences.
    let s = split(&sentences(40), Format::Text);
    for p in &s.passages {
        assert!(chars(&p.text) <= MAX_PASSAGE_CHARS);
        assert!(p.text.starts_with("Sentence number"), "{}", p.text);
        assert!(p.text.ends_with("here."), "{}", p.text);
    }
    // One sentence of many words, and one word longer than a passage.
    let words = vec!["word"; 400].join(" ");
    let s = split(&words, Format::Text);
    assert!(s.passages.len() >= 3);
    assert!(
        s.passages
            .iter()
            .all(|p| chars(&p.text) <= MAX_PASSAGE_CHARS && p.text.split(' ').all(|w| w == "word"))
    );
    let blob = "x".repeat(MAX_PASSAGE_CHARS * 2 + 5);
    let s = split(&blob, Format::Text);
    let lens: Vec<usize> = s.passages.iter().map(|p| chars(&p.text)).collect();
    assert_eq!(lens, [MAX_PASSAGE_CHARS, MAX_PASSAGE_CHARS, 5]);
}

#[test]
fn counts_characters_not_bytes() {
    let umlauts = vec!["Grüße"; 200].join(" ");
    let passages = split(&umlauts, Format::Text).passages;
    assert!(passages.iter().all(|p| chars(&p.text) <= MAX_PASSAGE_CHARS));
    // A splitter counting bytes would stop the first passage at 600 bytes.
    assert!(
        passages[0].text.len() > MAX_PASSAGE_CHARS,
        "{}",
        passages[0].text.len()
    );
}

#[test]
fn tables_become_a_line_per_row_with_the_headers() {
    check(
        "## Fees\n\n| Membership | Cost per year |\n|:---|---:|\n| Full member | £24 |\n| Student |  |\n\nPay the treasurer.",
        &[
            "Fees | Membership: Full member; Cost per year: £24\nMembership: Student\n\nPay the treasurer.",
        ],
    );
    // No rule row, a ragged rule, no rows, or plain text: left as written.
    for text in [
        "| a | b |\n| c | d |",
        "| a | b |\n|---|\n| c | d |",
        "| a | b |\n|---|---|",
        "a | b",
    ] {
        check(text, &[&format!(" | {text}")]);
    }
    assert_eq!(
        render("| a | b |\n|---|---|\n| c | d |", Format::Text),
        [" | | a | b |\n|---|---|\n| c | d |"],
        "plain text has no tables"
    );
}

#[test]
fn wrapped_lines_are_joined_and_list_items_kept() {
    check(
        "The club meets on the\nfirst Tuesday.\n- one item\n  wrapped\n* two\n1. three\n10) four\n> quoted\nline  \nafter a break",
        &[
            " | The club meets on the first Tuesday.\n- one item wrapped\n* two\n1. three\n10) four\n> quoted line\nafter a break",
        ],
    );
    // Code keeps its lines; plain text too.
    check("```\na\nb\n```", &[" | ```\na\nb\n```"]);
    assert_eq!(render("a\nb", Format::Text), [" | a\nb"]);
}

/// What the CommonMark parser reads as a viewer shows it, where the hand-written rules of
/// splitter version 1 did not: a heading's title without its link and emphasis marks, a
/// setext heading of two lines, a comment left out, code right after a paragraph kept as
/// code, and a table without its outer pipes.
#[test]
fn the_parser_reads_what_a_viewer_shows() {
    // Version 1: "[Repeaters](https://example.org/r) __on the hill__".
    check(
        "## [Repeaters](https://example.org/r) __on the hill__\nGB3KV.",
        &["Repeaters on the hill | GB3KV."],
    );
    // Version 1: no heading; one passage " | Club handbook === We meet.".
    check(
        "Club\nhandbook\n===\nWe meet.",
        &["Club handbook | We meet."],
    );
    // Version 1: the comment was the passage's first paragraph.
    check(
        "<!-- TODO: the 2027 prices -->\n\nFull member: £24.",
        &[" | Full member: £24."],
    );
    // Version 1: "Run this: ``` meshai check ls ```", the code's lines joined.
    check(
        "Run this:\n```\nmeshai check\nls\n```",
        &[" | Run this:\n\n```\nmeshai check\nls\n```"],
    );
    // Version 1: "Band | Power --- | --- 2 m | 5 W 70 cm | 2 W", the rows on one line.
    check(
        "Band | Power\n--- | ---\n2 m | 5 W\n70 cm | 2 W",
        &[" | Band: 2 m; Power: 5 W\nBand: 70 cm; Power: 2 W"],
    );
    // Version 1: the definition was the passage's last paragraph.
    check(
        "See [the guide][g].\n\n[g]: https://example.org/guide\n\nThen ask.",
        &[" | See [the guide][g].\n\nThen ask."],
    );
    // A fenced block in a list item keeps its lines, as in version 1, where the next item
    // followed the closing fence after one line break, as part of the code's block.
    check(
        "1. Install:\n\n   ```sh\n   meshai init\n   meshai run\n   ```\n2. Done.",
        &[" | 1. Install:\n\n```sh\n   meshai init\n   meshai run\n   ```\n\n2. Done."],
    );
}
