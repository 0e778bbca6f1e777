//! English, as the rule read it before there were tables (with German, its first two
//! languages). The verbs of `verbs` and the adverbs end a noun phrase without being listed
//! again in `not_noun`.

use super::{Kind, Words};

pub(super) const WORDS: Words = Words {
    my: &["my"],
    our: &["our"],
    articles: &["the", "a", "an"],
    others: &["his", "her", "their", "your"],
    nobody: &["a", "an"],
    i: &["i", "i'm"],
    we: &["we", "we're"],
    i_verbs: &[],
    we_verbs: &[],
    genitives: &["of"],
    not_noun: &[
        "be", "been", "runs", "run", "not", "on", "in", "at", "to", "from", "of", "for", "with",
        "and", "but", "or", "moved", "got", "it", "it's", "which", "that", "every", "since",
        "last", "this", "here", "there", "today", "again", "anymore", "instead", "uses", "use",
        "changed", "became", "goes", "works",
    ],
    age: &["new", "old", "current", "latest"],
    adverbs: &[
        "now", "still", "also", "no", "longer", "just", "recently", "finally", "actually", "really",
    ],
    bringing: &[
        "have", "got", "get", "bought", "moved", "put", "use", "built", "set", "changed",
    ],
    verbs: &[
        (Kind::Name, &["called", "named"]),
        (Kind::Meet, &["meets", "meet", "met", "gather", "gathers"]),
        (
            Kind::Be,
            &["is", "are", "was", "were", "sits", "sit", "stands", "hangs"],
        ),
        (Kind::Have, &["has", "have", "had"]),
        (Kind::Live, &["lives", "live"]),
    ],
    naming: &["called", "named"],
    value_verbs: &["drive", "drives", "runs", "uses"],
    markers: &[
        "update",
        "updated",
        "correction",
        "now",
        "new",
        "moved",
        "changed",
        "anymore",
        "instead",
        "no longer",
        "any more",
    ],
    openings: &[
        "update",
        "correction",
        "hi",
        "hello",
        "hey",
        "also",
        "so",
        "btw",
        "ok",
    ],
    elided: &[],
    head_first: false,
};
