//! Answers about the mesh the bot lives on, from our node's own view (`radio::MeshView`):
//! whether a message asks about it (`matcher`), the readout the daemon works out for
//! it (`readout`), what may be told at all (`lens`), and what a `!watch` waits for (`watch`).
//! Sans-IO: the view, the message and the time go in, one per-turn note comes out ([`note`]).
//!
//! Why the daemon and not the model: Qwen2.5-0.5B given the raw node list swapped readings
//! between nodes, gave a battery level to a node that does not exist and did arithmetic
//! wrong. So the note holds only the nodes the message names (or the short list it asks
//! for), every number already worked out, and an explicit "unknown" for what the view lacks.
//!
//! What it never tells: a DM's content or anyone's memory (the view holds only what nodes
//! broadcast), a node the operator hides, and with `[mesh] positions = false` any position or
//! distance. A channel mention gets the same public facts as a DM.

pub(crate) mod geo;
pub(crate) mod lens;
pub(crate) mod listing;
pub(crate) mod lookup;
pub(crate) mod matcher;
pub(crate) mod readout;
pub(crate) mod watch;

pub(crate) use geo::Units;
pub(crate) use lens::{Hidden, Lens};
pub(crate) use matcher::{MeshQuestion, Topic};

use crate::lang::{Lang, Part, part};
use crate::node::NodeId;
use crate::radio::MeshView;

/// The system prompt's sentence about the mesh facts: the same on every turn. It says what
/// to do when the facts say unknown, not when there are none: with "or give none" the model
/// said "Not in my notes." to an everyday question no facts came with ("How far can two
/// Meshtastic nodes reach each other?", in both knowledge-bench runs after the merge).
pub const SYSTEM_HINT: &str = "Questions about this mesh's nodes (their batteries and sensors, \
distances, the channel) are answered only from the mesh facts in your notes; when they say a \
node or a reading is unknown, say you do not know it.";

/// `[mesh]`: what the bot tells about the mesh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MeshConfig {
    /// Mesh facts in the turns, and `!nodes`/`!node`.
    pub(crate) enabled: bool,
    /// Lengths, temperatures and pressures in these units.
    pub(crate) units: Units,
    /// Positions, distances and directions may be told.
    pub(crate) positions: bool,
    /// Nodes never described.
    pub(crate) hidden: Vec<Hidden>,
    /// A radio feeds the view; `false` in `meshai chat`, where every question about the mesh
    /// gets [`Answer::NoRadio`] (an empty view's "unknown" facts still let a small model
    /// invent a channel reading, issue 36). Not a config key.
    pub(crate) radio: bool,
}

impl Default for MeshConfig {
    fn default() -> Self {
        MeshConfig {
            enabled: true,
            units: Units::Metric,
            positions: true,
            hidden: Vec::new(),
            radio: true,
        }
    }
}

/// What to reply about a node the view does not hold.
pub const UNKNOWN_NODE: &str = "I don't know that node: it is not in my node list.";

// The closing line of every note, what to do with it, is `lang::Part::MeshClosing`.

/// What a turn gets for a message about the mesh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Answer {
    /// The readout, a per-turn note for the model.
    Readout(String),
    /// It asks about a node the view does not hold (or hides): the daemon replies
    /// [`UNKNOWN_NODE`] itself. Qwen2.5-0.5B gave such a node a battery, a reading or a time in
    /// 4 of 4 questions even with a note that said to reply exactly that (docs/benchmarks.md).
    UnknownNode,
    /// A lookup the daemon answers itself (`lookup`): its sentence, the reply.
    Said(String),
    /// It asks about the mesh and no radio feeds the view (`meshai chat`): the daemon says
    /// so itself.
    NoRadio,
    /// It may ask about a node the view does not hold, or about something else: a node word
    /// and no name of the view, no reading (`MeshQuestion::guessed`). A turn whose documents
    /// have passages about the question, or decline it, takes theirs ("What is the postcode
    /// of the fire station where we meet?" is the club's, not the mesh's); else this answer.
    /// With `names` written, only documents whose passages write every one of them: "What's
    /// the output frequency of the 2 m repeater on Beacon Hill?" is the handbook's, "Tell me
    /// about the Foobar relay" the mesh's ("I don't know that node") unless a passage names
    /// Foobar.
    Guess {
        answer: Box<Answer>,
        names: Vec<String>,
    },
}

/// What the turn for `message` from `asker` at `now` gets: the daemon's own reply for a
/// lookup it is sure of or a node it does not know, else the readout; `None` when it does not
/// ask about the mesh.
pub(crate) fn answer(
    view: &MeshView,
    cfg: &MeshConfig,
    message: &str,
    asker: NodeId,
    now: i64,
    lang: Lang,
) -> Option<Answer> {
    let message = &matcher::spelled_out(message);
    let said = lookup::answer(view, cfg, message, asker, now, lang);
    if let Some(said) = said {
        return Some(match cfg.radio {
            true => Answer::Said(said),
            false => Answer::NoRadio,
        });
    }
    let (question, text) = build(view, cfg, message, asker, now, lang)?;
    let answer = match question.topic {
        _ if !cfg.radio => Answer::NoRadio,
        Topic::Unknown if question.surely_a_node => Answer::UnknownNode,
        _ => Answer::Readout(text),
    };
    Some(match question.guessed() {
        true => Answer::Guess {
            answer: Box::new(answer),
            names: question.names,
        },
        false => answer,
    })
}

/// The per-turn note for `message` from `asker` at `now` (Unix seconds), or `None` when it
/// does not ask about the mesh (or `[mesh]` is off).
#[cfg(test)]
pub(crate) fn note(
    view: &MeshView,
    cfg: &MeshConfig,
    message: &str,
    asker: NodeId,
    now: i64,
    lang: Lang,
) -> Option<String> {
    build(view, cfg, message, asker, now, lang).map(|(_, text)| text)
}

/// What `message` asks and its note.
fn build(
    view: &MeshView,
    cfg: &MeshConfig,
    message: &str,
    asker: NodeId,
    now: i64,
    lang: Lang,
) -> Option<(MeshQuestion, String)> {
    if !cfg.enabled {
        return None;
    }
    let lens = Lens::new(cfg, view);
    let nodes = lens.nodes();
    let question = matcher::question(
        message,
        nodes.iter().filter_map(|s| s.names().map(|n| (s.id, n))),
        asker,
    )?;
    let frame = readout::Frame {
        now,
        units: cfg.units,
        ours: lens.our_position(),
        asker: lens.node(asker).and_then(|s| s.position).map(|p| p.value),
        positions: cfg.positions,
        about_me: question.about_me,
    };
    let lines = match &question.topic {
        Topic::Nodes(ids) => {
            let mut lines = Vec::new();
            for id in ids {
                match lens.node(*id) {
                    Some(s) => lines.extend(readout::node_lines(&s, &question.readings, &frame)),
                    None => lines
                        .push("Your node: unknown to my node (not in its node list).".to_string()),
                }
            }
            lines
        }
        Topic::Unknown => vec![format!(
            "No node by that name is in my node list ({} nodes): I know nothing of it, no \
             reading, no time, no place. If the question is about such a node, reply exactly: \
             {UNKNOWN_NODE}",
            nodes.len()
        )],
        Topic::Around => readout::around(&nodes, &frame),
        Topic::Nearest => {
            let others: Vec<_> = nodes.iter().filter(|s| s.id != asker).copied().collect();
            readout::nearest(&others, &frame)
        }
        Topic::Channel => readout::channel(view.channel(), &frame),
    };
    // The readout's lines are English (data the model reads); their frame speaks the
    // conversation's language.
    let text = format!(
        "{}\n{}\n{}",
        part(lang, Part::MeshIntro),
        lines.join("\n"),
        part(lang, Part::MeshClosing)
    );
    Some((question, text))
}

#[cfg(test)]
mod tests;
