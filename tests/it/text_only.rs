//! Only text goes on air: a model answer full of escape sequences (colours, a window title),
//! BEL, NUL, backspaces and a right-to-left override reaches the radio, in a DM and in a
//! channel answer, streamed and not, as its plain text — emoji, CJK, Cyrillic and Arabic
//! intact — and the stored reply is exactly what was sent.

use std::time::Duration;

use crate::harness::Daemon;
use crate::streaming::stored_reply;
use crate::support::fake_llm::{FakeResponse, FakeStream};
use crate::support::sim_node::{BROADCAST, MeshPacketSpec, SentText};
use crate::trust::{ask_with, joined};

const USER: u32 = 0x7e57_0001;
const STRANGER: u32 = 0x7e57_0002;

/// The model's answer, as tokens: sequences split across tokens, as a server streams them.
const TOKENS: &[&str] = &[
    "Hi \u{1b}[3",
    "1mred\u{1b}",
    "[0m \u{1b}]0;pw",
    "ned\u{7}ok ",
    "bell\u{7}nul\u{0} ",
    "bs\u{8}\u{8}x ",
    "\u{202e}evil\u{202c} ",
    "👨\u{200d}👩\u{200d}👧 ❤\u{fe0f} ",
    "你好 Привет مرحبا",
];

/// What goes on air, and is stored.
const ON_AIR: &str =
    "Hi red ok bellnul bsx evil 👨\u{200d}👩\u{200d}👧 ❤\u{fe0f} 你好 Привет مرحبا";

const MENTIONS: &str = "[channels]\nanswer_mentions = true\nmention = \"@ai\"\nchannels = [0]\n";

/// Whether a character would be acted on or hidden rather than shown: a control character
/// or an invisible format one (bidi controls, zero-width ones); the joiner of an emoji stays.
fn not_text(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200b}'..='\u{200c}' | '\u{200e}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{feff}')
}

#[track_caller]
fn only_text(who: &str, sent: &[SentText]) {
    for t in sent {
        assert!(!t.text.chars().any(not_text), "{who}: {:?}", t.text);
    }
    assert_eq!(joined(sent), ON_AIR, "{who}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_text_goes_on_air_and_into_the_store() {
    for (how, llm_lines) in [
        ("streamed", "timeout_secs = 3"),
        ("whole", "timeout_secs = 3\nstream = false"),
    ] {
        let d = Daemon::start_llm(MENTIONS, llm_lines).await;
        let streamed = how == "streamed";
        d.answer_with(move |_| {
            if streamed {
                FakeResponse::Stream(FakeStream {
                    tokens: TOKENS.iter().map(|t| t.to_string()).collect(),
                    ..FakeStream::words("", Duration::from_millis(5))
                })
            } else {
                FakeResponse::Text(TOKENS.concat())
            }
        });
        let dm = ask_with(&d, USER, MeshPacketSpec::text(USER, "Say hello")).await;
        only_text(&format!("{how} DM"), &dm);
        // A streamed reply's row is written as its parts are handed over: a moment after
        // the last part is on the wire, not before.
        assert_eq!(
            stored_reply(&d, ON_AIR).await,
            ON_AIR,
            "{how}: the stored reply is what was sent"
        );

        let mention = MeshPacketSpec {
            to: Some(BROADCAST),
            ..MeshPacketSpec::text(STRANGER, "@ai say hello")
        };
        let answer = ask_with(&d, BROADCAST, mention).await;
        only_text(&format!("{how} mention"), &answer);
        let (result, ..) = d.stop().await;
        result.expect("a clean stop");
    }
}
