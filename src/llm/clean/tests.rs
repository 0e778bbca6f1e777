use super::{as_written, clean_reply, written_until};

#[track_caller]
fn check(raw: &str, expect: &str) {
    assert_eq!(clean_reply(raw), expect, "input: {raw:?}");
}

#[test]
fn thinking() {
    let table = [
        ("<think>hmm</think>Hello", "Hello"),
        (
            "<think>\nlet me see\n</think>\n\nThe answer is 4.",
            "The answer is 4.",
        ),
        ("<THINK>x</Think>Hi", "Hi"),
        ("Hi<think>a</think>there", "Hi there"),
        ("A<think>1</think>B<think>2</think>C", "A B C"),
        ("<think>still thinking when the tokens ran out", ""),
        ("  <think>unterminated", ""),
        ("Partial answer <think>then more thinking", "Partial answer"),
        ("thinking opened by the template</think>Answer", "Answer"),
        ("<think>a</think>b</think>c", "c"),
        ("no tags at all", "no tags at all"),
        (
            "<thinking>is not our tag</thinking>",
            "<thinking>is not our tag</thinking>",
        ),
    ];
    for (raw, expect) in table {
        check(raw, expect);
    }
}

#[test]
fn emphasis() {
    let table = [
        ("**bold** text", "bold text"),
        ("__bold__ text", "bold text"),
        ("an *italic* word", "an italic word"),
        ("an _italic_ word", "an italic word"),
        ("***both***", "both"),
        ("**Note:** read this", "Note: read this"),
        ("*(optional)* step", "(optional) step"),
        ("~~gone~~ kept", "gone kept"),
        ("**bold with *nested* italic**", "bold with nested italic"),
        ("**unclosed bold", "**unclosed bold"),
        ("trailing star*", "trailing star*"),
    ];
    for (raw, expect) in table {
        check(raw, expect);
    }
}

#[test]
fn legit_text_survives() {
    let table = [
        "5*3=15",
        "5 * 3 = 15 and 2 * 4 = 8",
        "2*3*4 = 24",
        "use snake_case_names here",
        "call my_func_name() now",
        "a_b and c_d",
        "^_^",
        "-_- and ^_^",
        "*_*",
        ":-) ;) :* <3 xD o_O >_<",
        r"¯\_(ツ)_/¯",
        "C# and F# are languages",
        "#hashtag at the start",
        "1. first 2. second",
        "-5 degrees",
        "price: $5",
        "a + b",
        "it's 3 > 2",
        "emoji 🙂 and 👨‍👩‍👧 stay",
        "https://example.com/_private_/page",
        "see https://en.wikipedia.org/wiki/Foo_(bar)_baz",
        "`",
    ];
    for text in table {
        check(text, text);
    }
}

#[test]
fn blocks() {
    let table = [
        ("# Title\nBody", "Title Body"),
        ("### Sub heading", "Sub heading"),
        (
            "####### seven is not a heading",
            "####### seven is not a heading",
        ),
        ("- one\n- two\n* three\n+ four", "one two three four"),
        ("  - indented bullet", "indented bullet"),
        ("1. first\n2. second", "1. first 2. second"),
        ("> quoted\n>> twice", "quoted twice"),
        ("above\n---\nbelow", "above below"),
        ("above\n* * *\nbelow", "above below"),
        (
            "Intro:\n\n- **Rain**: bring a coat\n- *Sun*: hat",
            "Intro: Rain: bring a coat Sun: hat",
        ),
    ];
    for (raw, expect) in table {
        check(raw, expect);
    }
}

#[test]
fn code() {
    let table = [
        ("run `ls -la` now", "run ls -la now"),
        ("``a ` b`` end", "a ` b end"),
        ("`__init__` stays", "__init__ stays"),
        ("`*ptr*` stays", "*ptr* stays"),
        (
            "Code:\n```rust\nlet x = **y**;\n```\ndone",
            "Code: let x = **y**; done",
        ),
        ("~~~\n# not a heading\n~~~", "# not a heading"),
        (
            "```\nunterminated fence\n- kept",
            "unterminated fence - kept",
        ),
    ];
    for (raw, expect) in table {
        check(raw, expect);
    }
}

#[test]
fn links() {
    let table = [
        (
            "see [the docs](https://x.org/d) now",
            "see the docs (https://x.org/d) now",
        ),
        ("[https://x.org](https://x.org)", "https://x.org"),
        (
            "![a map](https://x.org/m.png)",
            "a map (https://x.org/m.png)",
        ),
        (
            "[**bold** link](https://x.org/a_b_c)",
            "bold link (https://x.org/a_b_c)",
        ),
        ("[not a link] (spaced)", "[not a link] (spaced)"),
        ("[x](has space)", "[x](has space)"),
        ("**https://x.org/a_b_**", "https://x.org/a_b_"),
    ];
    for (raw, expect) in table {
        check(raw, expect);
    }
}

#[test]
fn whitespace() {
    let table = [
        ("  a \n\n b\t c  ", "a b c"),
        ("", ""),
        ("\n\n", ""),
        ("line one\r\nline two", "line one line two"),
    ];
    for (raw, expect) in table {
        check(raw, expect);
    }
}

mod props {
    use super::clean_reply;
    use proptest::prelude::*;

    fn assert_one_line(out: &str) {
        assert_eq!(out, out.trim());
        assert!(!out.contains("  "), "{out:?}");
        assert!(!out.contains('\n'), "{out:?}");
    }

    proptest! {
        #[test]
        fn any_text_is_one_clean_line(raw in any::<String>()) {
            assert_one_line(&clean_reply(&raw));
        }

        #[test]
        fn markdown_soup_is_one_clean_line(raw in "[*_`#~\\[\\]()<>!/:\\\\a-z0-9 \n-]{0,80}") {
            assert_one_line(&clean_reply(&raw));
        }

        #[test]
        fn plain_words_are_kept(raw in "[a-zA-Z0-9.,!?' ]{0,80}") {
            let expect = raw.split_whitespace().collect::<Vec<_>>().join(" ");
            prop_assert_eq!(clean_reply(&raw), expect);
        }
    }
}

#[test]
fn the_answer_as_written_without_its_reasoning() {
    let cases: &[(&str, Option<&str>)] = &[
        ("Hello **Ann**!\n\n", Some("Hello **Ann**!\n\n")),
        ("  padded", Some("  padded")),
        ("<think>hmm</think>\n\nYes.", Some("Yes.")),
        ("<THINK>a</THINK> b <think>c</think> d", Some("d")),
        (
            "</think> after a template's open block",
            Some("after a template's open block"),
        ),
        ("<think>ran out of tokens", None),
        ("<think>x</think>   ", None),
        ("", None),
    ];
    for (raw, want) in cases {
        assert_eq!(as_written(raw), *want, "{raw:?}");
    }
}

#[test]
fn what_was_shown_of_an_answer_cut_at_the_budget_as_the_model_wrote_it() {
    let cases: &[(&str, &str, Option<&str>)] = &[
        // Plain text: up to the end of what went on air.
        (
            "LoRa reaches far. It trades speed for range and more",
            "LoRa reaches far. It trades…",
            Some("LoRa reaches far. It trades"),
        ),
        // Markdown and line breaks the parts do not show are kept as written.
        (
            "**LoRa** reaches\n\nfar. It *trades* speed",
            "LoRa reaches far. It trades…",
            Some("**LoRa** reaches\n\nfar. It *trades*"),
        ),
        (
            "<think>plan</think>\nYes, it does. More follows",
            "Yes, it does.…",
            Some("Yes, it does."),
        ),
        // The whole answer shown.
        ("Short.", "Short.", Some("Short.")),
        // Not this answer.
        ("Something else entirely", "LoRa…", None),
        ("anything", "…", None),
        (
            "Grüße aus Bern, sagt 🇨🇭 Ann",
            "Grüße aus Bern, sagt 🇨🇭…",
            Some("Grüße aus Bern, sagt 🇨🇭"),
        ),
    ];
    for (raw, shown, want) in cases {
        assert_eq!(written_until(raw, shown), *want, "{raw:?} / {shown:?}");
    }
}
