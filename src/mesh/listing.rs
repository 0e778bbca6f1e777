//! The texts of `!nodes` (who was heard in the last hour, as many as fit one packet; `!nodes
//! NAME` is `lookup::card`), answered by the daemon without the model. Pure; through the
//! same lens as the facts: hidden nodes are never listed, positions only when they may be
//! told.

use super::MeshConfig;
use super::lens::{Lens, Seen};
use crate::lang::{Lang, Say, fill, say};
use crate::radio::MeshView;
use crate::text::{cap, one_line};

/// A name in the list is cut to this many characters.
const NAME_CHARS: usize = 18;

/// `4m`, `1h`: the list's short ages.
fn short_age(secs: i64) -> String {
    match secs.max(0) {
        s if s < 60 => "now".to_string(),
        s if s < 3600 => format!("{}m", s / 60),
        s => format!("{}h", s / 3600),
    }
}

fn list_name(s: &Seen<'_>) -> String {
    let long = s
        .names()
        .map(|n| one_line(&n.long_name))
        .unwrap_or_default();
    let short = s
        .names()
        .map(|n| one_line(&n.short_name))
        .unwrap_or_default();
    match (long.is_empty(), short.is_empty()) {
        (false, _) => cap(&long, NAME_CHARS),
        (true, false) => short,
        (true, true) => s.id.to_string(),
    }
}

/// Whether `text` fits one packet of `max_chars` characters and `max_bytes` bytes.
fn fits(text: &str, max_chars: usize, max_bytes: usize) -> bool {
    text.chars().count() <= max_chars && text.len() <= max_bytes
}

/// The nodes heard in the last hour at `now`, newest first, as many as fit one packet
/// (`max_chars`, `max_bytes`), with how many more there are.
pub(crate) fn heard(
    view: &MeshView,
    cfg: &MeshConfig,
    now: i64,
    max_chars: usize,
    max_bytes: usize,
    lang: Lang,
) -> String {
    let heads = Heads {
        some: say(lang, Say::Heard),
        none: say(lang, Say::NoneHeard),
        mins: 60,
    };
    within(view, cfg, now, (max_chars, max_bytes), &heads)
}

/// How a list of the nodes heard within `mins` minutes opens: `some` (`{n}`: how many),
/// or `none` (`{n}`: the nodes in the list) when none was; both may say `{mins}`.
pub(super) struct Heads<'a> {
    pub(super) some: &'a str,
    pub(super) none: &'a str,
    pub(super) mins: i64,
}

/// The nodes heard within `heads.mins` minutes of `now`, newest first, as many as fit one
/// packet of `(chars, bytes)`, with how many more there are.
pub(super) fn within(
    view: &MeshView,
    cfg: &MeshConfig,
    now: i64,
    (max_chars, max_bytes): (usize, usize),
    heads: &Heads<'_>,
) -> String {
    let lens = Lens::new(cfg, view);
    let nodes = lens.nodes();
    let mut recent: Vec<(i64, &Seen<'_>)> = nodes
        .iter()
        .filter_map(|s| s.node.last_heard.map(|at| (at, s)))
        .filter(|(at, _)| now - at < heads.mins * 60)
        .collect();
    recent.sort_by_key(|(at, s)| (std::cmp::Reverse(*at), s.id.0));
    let mins = heads.mins.to_string();
    if recent.is_empty() {
        let n = nodes.len().to_string();
        return fill(heads.none, &[("n", &n), ("mins", &mins)]);
    }
    let head = fill(
        heads.some,
        &[("n", &recent.len().to_string()), ("mins", &mins)],
    );
    let mut text = head.clone();
    let mut shown = 0;
    for (i, (at, s)) in recent.iter().enumerate() {
        let item = format!(
            "{}{} {}",
            if i == 0 { "" } else { ", " },
            list_name(s),
            short_age(now - at)
        );
        let left = recent.len() - i - 1;
        let tail = if left > 0 {
            format!(" +{left}")
        } else {
            String::new()
        };
        let candidate = format!("{text}{item}");
        if !fits(&format!("{candidate}{tail}"), max_chars, max_bytes) {
            break;
        }
        text = candidate;
        shown += 1;
    }
    let more = recent.len() - shown;
    if more > 0 {
        text.push_str(&format!(" +{more}"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::NodeId;
    use crate::radio::NodeNames;

    const NOW: i64 = 1_800_000_000;

    fn mesh(n: u32) -> MeshView {
        let mut v = MeshView::new();
        v.set_me(NodeId(1));
        for i in 0..n {
            let num = 100 + i;
            v.insert(
                NodeId(num),
                NodeNames {
                    long_name: format!("Ridge Node Number {i}"),
                    short_name: format!("R{i}"),
                },
            );
            let p = meshtastic::protobufs::MeshPacket {
                from: num,
                to: u32::MAX,
                payload_variant: Some(meshtastic::protobufs::mesh_packet::PayloadVariant::Decoded(
                    meshtastic::protobufs::Data {
                        portnum: meshtastic::protobufs::PortNum::TextMessageApp as i32,
                        payload: b"hi".to_vec(),
                        ..Default::default()
                    },
                )),
                ..Default::default()
            };
            v.on_packet(&p, NOW - 60 * i64::from(i));
        }
        v
    }

    #[test]
    fn the_list_fits_one_packet_however_many_nodes() {
        let cfg = MeshConfig::default();
        for n in [0, 1, 3, 40, 300] {
            let text = heard(&mesh(n), &cfg, NOW, 150, 200, crate::lang::Lang::En);
            assert!(fits(&text, 150, 200), "{n}: {text}");
            match n {
                0 => assert_eq!(text, "No node heard in the last hour (0 in my list)."),
                1 => assert_eq!(text, "Heard in 1h (1): Ridge Node Number… now"),
                3 => assert!(text.ends_with("2m") && !text.contains('+'), "{text}"),
                // Within the hour: 60 nodes heard a minute apart.
                _ => assert!(
                    text.starts_with(&format!("Heard in 1h ({}): ", n.min(60)))
                        && text.contains(" +"),
                    "{text}"
                ),
            }
        }
        // Tiny packets still hold the count.
        let tiny = heard(&mesh(40), &cfg, NOW, 30, 200, crate::lang::Lang::En);
        assert!(fits(&tiny, 30, 200), "{tiny}");
    }
}
