//! `!summary` (`!memory`): what the bot remembers of the node — its summary and the facts kept
//! about it, as the node's next prompt has them: a fact the node corrected since the last fold
//! is left out already (`memory::layout::remembered`). It asks identity for the node's
//! memory: only the node's own DM runs it.

use super::context::Memory;
use super::{Caller, Command, store_failed};
use crate::lang::{Lang, Say, say};
use crate::memory::layout;
use crate::node::NodeId;
use crate::responder::identity::Scope;
use crate::store::StoreError;

pub(super) const SUMMARY: Command = Command {
    words: &["summary", "memory"],
    scope: Scope::Memory,
    help: Some(Say::HelpSummary),
    takes: super::Takes::Nothing,
    args: "",
    usage: None,
    answer: answer!(answer),
};

async fn answer(ctx: &impl Memory, caller: Caller, _: &str, lang: Lang) -> String {
    let node = caller.node();
    match summary(ctx, node, lang).await {
        Ok(text) => text,
        Err(e) => store_failed(lang, node, "read the summary", &e),
    }
}

/// The summary and the facts kept about the node, or that there are none (the history is
/// read only then).
async fn summary(ctx: &impl Memory, node: NodeId, lang: Lang) -> Result<String, StoreError> {
    // As many unsummarised messages as a prompt may carry.
    let m = ctx.memory();
    let max = m.window_messages + 4 * m.summarize_threshold.max(1);
    let kept = ctx.context(node, max).await?;
    let now = layout::remembered(kept.summary.as_ref(), &kept.facts, &kept.window);
    if let Some(text) = remembered(lang, now.summary.as_deref(), &now.facts) {
        return Ok(text);
    }
    let any = !ctx.history(node, 1).await?.is_empty();
    Ok(say(
        lang,
        if any {
            Say::NoSummaryYet
        } else {
            Say::NothingRemembered
        },
    )
    .into())
}

/// The summary, then the facts; `None` when there is neither.
fn remembered(lang: Lang, summary: Option<&str>, facts: &[String]) -> Option<String> {
    let mut text = String::new();
    if let Some(s) = summary.map(str::trim).filter(|s| !s.is_empty()) {
        text.push_str(say(lang, Say::IRemember));
        text.push_str(s);
    }
    if !facts.is_empty() {
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(say(lang, Say::YouToldMe));
        text.push_str(&facts.join(" / "));
    }
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_says_the_summary_then_the_facts() {
        let facts = |f: &[&str]| f.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let cases: [(Option<&str>, Vec<String>, Option<&str>); 5] = [
            (None, facts(&[]), None),
            (Some("  \n "), facts(&[]), None),
            (
                Some(" Ann asked about antennas. "),
                facts(&[]),
                Some("I remember: Ann asked about antennas."),
            ),
            (
                None,
                facts(&["My name is Ann.", "I live in Vic."]),
                Some("You told me: My name is Ann. / I live in Vic."),
            ),
            (
                Some("Ann asked about antennas."),
                facts(&["My name is Ann."]),
                Some("I remember: Ann asked about antennas. You told me: My name is Ann."),
            ),
        ];
        for (summary, facts, want) in cases {
            assert_eq!(
                remembered(crate::lang::Lang::En, summary, &facts).as_deref(),
                want,
                "{summary:?} {facts:?}"
            );
        }
    }
}
