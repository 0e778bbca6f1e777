//! Lookups the daemon answers itself: a question that asks for one field of one node (when
//! it was last heard, whether it is still around, its hops, battery, voltage, a sensor, its
//! distance, its SNR), what one node reads (its card, as `!nodes NAME`), the nearest nodes,
//! who is around, or who was heard within a time gets a sentence written here from the
//! view, in the asker's language, the way `!nodes` answers — the model is not asked. (Given
//! the readout, Qwen2.5-0.5B answered "Welcher Knoten ist mir am nächsten?" with the second
//! nearest and "Was misst die Wetterstation Ridge Weather?" with no reading: mesh bench.) Pure: the view, the message and the time go in, the sentence comes
//! out, through the lens like every fact (hidden nodes, `positions`).
//!
//! Why: given the facts, Qwen2.5-0.5B answered "How many hops away is Harbor Base?" with
//! the distance line, "Which nodes have you heard in the last 15 minutes?" with one node,
//! "Is the Lighthouse node still around?" with "no longer around" beside its last-heard
//! time, and "Is Forest Camp's battery getting low?" with "No" beside "12 % (low)"
//! (issue 38). A battery is low at ≤ 20 %, by the reading.
//!
//! Only where the daemon is sure: one node named (or one named best), one field asked, and
//! no word that wants an answer in words (why, should, compare, …: `words::Words::needs_words`);
//! or a list question that names no node. Anything else goes to the model with the facts.

mod texts;
mod words;

use super::MeshConfig;
use super::geo::{self, Fineness, NEAR_KM, Units};
use super::lens::{Lens, Seen};
use super::listing::{self, Heads};
use super::matcher::{self, Reading};
use crate::lang::say::{PACKET_BYTES, PACKET_CHARS};
use crate::lang::{Lang, Say, fill, say};
use crate::node::NodeId;
use crate::radio::{GeoPoint, MeshView, NodeNames};
use crate::text::{cap, one_line};

use texts::{Texts, texts};
pub(crate) use words::Field;
use words::Words;

/// What a message asks that the daemon answers itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// One field of one node; `low`: a battery question that asks whether it is low.
    Field {
        node: NodeId,
        field: Field,
        low: bool,
    },
    /// Who is around: the last hour, as `!nodes` lists it.
    Around,
    /// Who was heard within this many minutes.
    Within(i64),
    /// What one node reads, all of it: its card, as `!nodes NAME` gives it.
    Card(NodeId),
    /// The nodes nearest the asker (or, without the asker's position, our node).
    Nearest,
    /// How busy the channel is, as our node measured it.
    Channel,
}

/// A list goes back at most this far (a week).
const MAX_MINUTES: i64 = 7 * 24 * 60;

/// A message's folded words, with `$` for its end.
struct Message<'a> {
    words: Vec<&'a str>,
}

impl Message<'_> {
    /// Whether it holds `entry` (see `words`: a phrase, `*` a prefix, `$` the end).
    fn has(&self, entry: &str) -> bool {
        matcher::holds_entry(&self.words, entry)
    }

    /// Whether it holds one of the entries any language's table gives.
    fn any(&self, table: impl Fn(&Words) -> &[&str]) -> bool {
        Lang::ALL
            .iter()
            .any(|l| table(words::words(*l)).iter().any(|e| self.has(e)))
    }

    /// A time it names: "15 minutes", "2 hours", "15min", in minutes (the unit one word
    /// after the number at most).
    fn minutes(&self) -> Option<i64> {
        let unit = |w: &str, pick: fn(&Words) -> &[&str]| {
            Lang::ALL
                .iter()
                .flat_map(|l| pick(words::words(*l)))
                .any(|u| match u.strip_suffix('*') {
                    Some(prefix) => w.starts_with(prefix),
                    None => *u == w,
                })
        };
        let per = |w: &str| {
            if unit(w, |t| t.minutes) {
                Some(1)
            } else if unit(w, |t| t.hours) {
                Some(60)
            } else {
                None
            }
        };
        self.words.iter().enumerate().find_map(|(i, w)| {
            let digits: String = w.chars().take_while(char::is_ascii_digit).collect();
            let n: i64 = digits.parse().ok()?;
            let rest = &w[digits.len()..];
            // "15 minutes", "15min", "15 dernières minutes".
            let per = if rest.is_empty() {
                self.words.iter().skip(i + 1).take(2).find_map(|w| per(w))?
            } else {
                per(rest)?
            };
            Some((n * per).clamp(1, MAX_MINUTES))
        })
    }
}

/// What `message` asks among `nodes` (the nodes the lens lets be described) that the daemon
/// answers itself; `None` when the model should answer it.
pub(crate) fn decide<'a>(
    message: &str,
    nodes: impl IntoIterator<Item = (NodeId, &'a NodeNames)>,
) -> Option<Lookup> {
    let folded = matcher::fold(message);
    let mut w = matcher::words(&folded);
    w.push("$");
    let m = Message { words: w };
    if m.any(|t| t.needs_words) {
        return None;
    }
    let mut fields: Vec<Field> = Vec::new();
    for lang in Lang::ALL {
        for (field, entries) in words::words(lang).fields {
            if !fields.contains(field) && entries.iter().any(|e| m.has(e)) {
                fields.push(*field);
            }
        }
    }
    if fields.is_empty() && m.any(|t| t.weak_distance) {
        fields.push(Field::Distance);
    }
    // "When was it last heard", "is it running on battery": not whether it is up.
    if fields.contains(&Field::Heard) || fields.contains(&Field::Battery) {
        fields.retain(|f| *f != Field::Up);
    }
    let around = m.any(|t| t.around);
    let list = m.any(|t| t.list);
    let named = matcher::scored(message, nodes, !fields.is_empty());
    let Some(&(best, node)) = named.first() else {
        let heard = fields.iter().all(|f| matches!(f, Field::Heard | Field::Up));
        let distance = fields.iter().all(|f| *f == Field::Distance);
        return match m.minutes() {
            Some(mins) if list && heard => Some(Lookup::Within(mins)),
            _ if around || (list && heard && !fields.is_empty()) => Some(Lookup::Around),
            // Whatever reading words it holds: Dutch "druk" is busy here, not a pressure.
            _ if matcher::asks_how_busy_the_channel_is(&folded) => Some(Lookup::Channel),
            _ if distance && matcher::asks_nearest(&folded) => Some(Lookup::Nearest),
            _ => None,
        };
    };
    let alone = named.get(1).is_none_or(|(next, _)| *next < best);
    match fields.as_slice() {
        [field] if alone && !around => Some(Lookup::Field {
            node,
            field: *field,
            low: *field == Field::Battery && m.any(|t| t.low),
        }),
        [] if alone && !around && matcher::asks_what_it_reads(&folded) => Some(Lookup::Card(node)),
        _ => None,
    }
}

/// The daemon's own answer to `message` from `asker` at `now` (Unix seconds), in `lang`;
/// `None` when it is not a lookup it is sure of (or `[mesh]` is off).
pub(crate) fn answer(
    view: &MeshView,
    cfg: &MeshConfig,
    message: &str,
    asker: NodeId,
    now: i64,
    lang: Lang,
) -> Option<String> {
    if !cfg.enabled {
        return None;
    }
    let lens = Lens::new(cfg, view);
    let nodes = lens.nodes();
    let lookup = decide(
        message,
        nodes.iter().filter_map(|s| s.names().map(|n| (s.id, n))),
    )?;
    let t = texts(lang);
    let packet = (PACKET_CHARS, PACKET_BYTES);
    Some(match lookup {
        Lookup::Around => listing::heard(view, cfg, now, PACKET_CHARS, PACKET_BYTES, lang),
        Lookup::Within(mins) => {
            let heads = Heads {
                some: t.within_head,
                none: t.within_none,
                mins,
            };
            listing::within(view, cfg, now, packet, &heads)
        }
        Lookup::Card(node) => node_card(&lens, &lens.node(node)?, cfg, asker, now, lang),
        Lookup::Nearest => nearest(&lens, cfg, asker, lang)?,
        Lookup::Channel => channel(view, t, now),
        Lookup::Field { node, field, low } => {
            let seen = lens.node(node)?;
            let asker = lens.node(asker).and_then(|s| s.position).map(|p| p.value);
            let at = Place {
                ours: lens.our_position(),
                asker,
                positions: cfg.positions,
                units: cfg.units,
            };
            sentence(t, &seen, field, low, &at, now)
        }
    })
}

/// `!nodes NAME`: the node named loosely by `name`, for `asker` at `now`, in `lang` — how far
/// and when it was heard, the readings it sent with their ages, where it is when that may be
/// told — or that no node by that name is in the list. Through the lens like every lookup.
pub(crate) fn card(
    view: &MeshView,
    cfg: &MeshConfig,
    name: &str,
    asker: NodeId,
    now: i64,
    lang: Lang,
) -> String {
    let lens = Lens::new(cfg, view);
    let nodes = lens.nodes();
    let found = matcher::named(
        name,
        nodes.iter().filter_map(|s| s.names().map(|n| (s.id, n))),
    );
    let Some(seen) = found.first().and_then(|id| lens.node(*id)) else {
        let word = cap(&one_line(name), 24);
        return fill(say(lang, Say::NoNodeNamed), &[("word", &word)]);
    };
    format!(
        "{} {}",
        seen.id,
        node_card(&lens, &seen, cfg, asker, now, lang)
    )
}

/// The card of `seen` without its id (see [`card`]): the answer to "what does it read?".
fn node_card(
    lens: &Lens<'_>,
    seen: &Seen<'_>,
    cfg: &MeshConfig,
    asker: NodeId,
    now: i64,
    lang: Lang,
) -> String {
    let t = texts(lang);
    let at = Place {
        ours: lens.our_position(),
        asker: lens.node(asker).and_then(|s| s.position).map(|p| p.value),
        positions: cfg.positions,
        units: cfg.units,
    };
    let first = match seen.node.hops_away {
        Some(_) => Field::Hops,
        None => Field::Heard,
    };
    let mut lines = vec![sentence(t, seen, first, false, &at, now)];
    let readings = readings(t, seen, cfg.units, now);
    if !readings.is_empty() {
        // A sentence of its own: its first letter a capital ("Temperature 3.5 °C (5 min ago).").
        let text = readings.join(", ");
        let mut chars = text.chars();
        let first = chars.next().map(|c| c.to_uppercase().collect::<String>());
        lines.push(format!("{}{}.", first.unwrap_or_default(), chars.as_str()));
    }
    if cfg.positions {
        lines.push(sentence(t, seen, Field::Distance, false, &at, now));
    }
    lines.join(" ")
}

/// How busy the channel is, by the firmware's thresholds (it holds back its own traffic
/// above 25 % and 40 %), as our node last measured it.
fn channel(view: &MeshView, t: &Texts, now: i64) -> String {
    let Some(r) = view.channel() else {
        return t.channel_unknown.to_string();
    };
    let pct = r.value.channel_utilization;
    let busy = t.busy[super::readout::busy_level(pct)];
    let pct = format!("{pct:.1}");
    fill(
        t.channel,
        &[("busy", busy), ("pct", &pct), ("age", &age(t, now - r.at))],
    )
}

/// The nodes nearest the asker, or our node when the asker shares no position: the three
/// nearest with how far and which way. `None` where the daemon cannot say (positions off,
/// no reference, no node placed): the model then has the readout, which says why.
fn nearest(lens: &Lens<'_>, cfg: &MeshConfig, asker: NodeId, lang: Lang) -> Option<String> {
    if !cfg.positions {
        return None;
    }
    let t = texts(lang);
    let mine = lens.node(asker).and_then(|s| s.position).map(|p| p.value);
    let (from, head) = match (mine, lens.our_position()) {
        (Some(a), _) => (a, t.nearest_you),
        (None, Some(o)) => (o, t.nearest_ours),
        (None, None) => return None,
    };
    let nodes = lens.nodes();
    let list: Vec<String> =
        super::readout::nearest_placed(nodes.iter().filter(|s| s.id != asker), from)
            .into_iter()
            .map(|(s, p)| {
                let name = super::readout::name(s.names(), s.id);
                format!("{name} {}", whereabouts(t, from, p, cfg.units))
            })
            .collect();
    (!list.is_empty()).then(|| fill(head, &[("list", &list.join(", "))]))
}

/// `battery 87 % (3 h ago)`, one for each reading `seen` sent, in the language.
fn readings(t: &Texts, seen: &Seen<'_>, units: Units, now: i64) -> Vec<String> {
    let node = seen.node;
    let device = node.device.map(|d| {
        // Above 100 is external power: no battery level to tell.
        let battery = d
            .value
            .battery_level
            .filter(|l| *l <= 100)
            .map(|l| format!("{l} %"));
        (battery, d.value.voltage.map(|v| format!("{v:.2} V")), d.at)
    });
    let mut out = Vec::new();
    if let Some((battery, voltage, at)) = device {
        for (label, value) in [(0, battery), (1, voltage)] {
            if let Some(v) = value {
                out.push(format!("{} {v} ({})", t.labels[label], age(t, now - at)));
            }
        }
    }
    if let Some(e) = node.environment {
        let sensors = [
            (2, Reading::Temperature),
            (3, Reading::Humidity),
            (4, Reading::Pressure),
            (5, Reading::Wind),
            (6, Reading::Light),
        ];
        for (label, r) in sensors {
            if let Some(v) = super::readout::environment_value(r, &e.value, units) {
                // A wind's direction is a compass point in English: said only as a speed.
                let v = v.split(" from ").next().unwrap_or(&v).to_string();
                out.push(format!("{} {v} ({})", t.labels[label], age(t, now - e.at)));
            }
        }
    }
    out
}

/// Where distances are said from, and how.
struct Place {
    ours: Option<GeoPoint>,
    asker: Option<GeoPoint>,
    positions: bool,
    units: Units,
}

/// `4 min ago`, in the language.
fn age(t: &Texts, secs: i64) -> String {
    let (template, n) = match secs.max(0) {
        s if s < 60 => return t.just_now.to_string(),
        s if s < 3600 => (t.mins_ago, s / 60),
        s if s < 48 * 3600 => (t.hours_ago, s / 3600),
        s => (t.days_ago, s / 86_400),
    };
    fill(template, &[("n", &n.to_string())])
}

/// `2.8 km NE`, `~3 km N` (an uncertain position), `< 100 m`: the distance and the compass
/// point in the language.
fn whereabouts(t: &Texts, from: GeoPoint, to: GeoPoint, units: Units) -> String {
    let km = geo::distance_km(from, to);
    let uncertainty = from.uncertainty_km.max(0.0) + to.uncertainty_km.max(0.0);
    let point = || {
        let i = ((geo::bearing_deg(from, to) + 22.5) / 45.0) as usize % 8;
        t.compass[i]
    };
    if uncertainty > 0.0 {
        if km < 2.0 * uncertainty {
            return format!(
                "< {}",
                geo::length(2.0 * uncertainty, units, Fineness::Rough)
            );
        }
        return format!("~{} {}", geo::length(km, units, Fineness::Rough), point());
    }
    if km < NEAR_KM {
        return format!("< {}", geo::length(NEAR_KM, units, Fineness::Rough));
    }
    format!("{} {}", geo::length(km, units, Fineness::Fine), point())
}

/// What a node's sentences are made with: the language's texts, the node's name, the time.
struct Writer<'a> {
    t: &'a Texts,
    name: String,
    now: i64,
}

impl Writer<'_> {
    /// `template` with the node's name and `extra` filled in.
    fn with(&self, template: &str, extra: &[(&str, &str)]) -> String {
        let mut values = vec![("name", self.name.as_str())];
        values.extend_from_slice(extra);
        fill(template, &values)
    }

    /// The reading labelled `what`, its value and how long ago it was reported.
    fn reading(&self, what: usize, value: &str, at: i64) -> String {
        let reported = age(self.t, self.now - at);
        let what = self.t.labels[what];
        self.with(
            self.t.reading,
            &[("what", what), ("value", value), ("age", &reported)],
        )
    }

    /// That the node reported no reading labelled `what`.
    fn none(&self, what: usize) -> String {
        self.with(self.t.no_reading, &[("what", self.t.labels[what])])
    }
}

/// The sentence for `field` of `seen`.
fn sentence(t: &Texts, seen: &Seen<'_>, field: Field, low: bool, at: &Place, now: i64) -> String {
    let name = super::readout::name(seen.names(), seen.id);
    let w = Writer { t, name, now };
    let node = seen.node;
    let heard = node.last_heard.map(|h| age(t, now - h));
    let heard_or = || heard.clone().unwrap_or_else(|| "?".to_string());
    match field {
        Field::Heard => match &heard {
            Some(a) => w.with(t.heard, &[("age", a)]),
            None => w.with(t.never_heard, &[]),
        },
        Field::Up => match (&heard, node.last_heard) {
            (Some(a), Some(h)) if now - h < 3600 => w.with(t.up_yes, &[("age", a)]),
            (Some(a), _) => w.with(t.up_no, &[("age", a)]),
            _ => w.with(t.never_heard, &[]),
        },
        Field::Hops => match node.hops_away {
            Some(0) => w.with(t.hops_zero, &[("age", &heard_or())]),
            Some(1) => w.with(t.hops_one, &[("age", &heard_or())]),
            Some(n) => w.with(t.hops, &[("n", &n.to_string()), ("age", &heard_or())]),
            None => w.with(t.hops_unknown, &[]),
        },
        Field::Battery => battery(&w, seen, low),
        Field::Voltage => match node.device.and_then(|d| d.value.voltage.map(|v| (v, d.at))) {
            Some((v, reported)) => w.reading(1, &format!("{v:.2} V"), reported),
            None => w.none(1),
        },
        Field::Temperature | Field::Humidity | Field::Pressure | Field::Wind | Field::Light => {
            environment(&w, seen, field, at)
        }
        Field::Signal => match (node.snr.filter(|v| v.is_finite()), node.last_heard) {
            (Some(snr), Some(h)) => w.reading(7, &format!("{snr:.1} dB"), h),
            _ => w.none(7),
        },
        Field::Distance => distance(&w, seen, at),
    }
}

/// The battery's level judged in words ("12 % (low)"), or external power; with `low` (the
/// question asks whether it is low) it starts with yes or no, judged by the reading.
fn battery(w: &Writer<'_>, seen: &Seen<'_>, low: bool) -> String {
    let t = w.t;
    let Some((level, reported)) = seen
        .node
        .device
        .and_then(|d| d.value.battery_level.map(|l| (l, d.at)))
    else {
        return w.none(0);
    };
    let (text, is_low) = if level > 100 {
        let reported = age(t, w.now - reported);
        (w.with(t.external, &[("age", &reported)]), false)
    } else {
        let judged = t.battery[match level {
            0..=20 => 0,
            21..=50 => 1,
            51..=89 => 2,
            _ => 3,
        }];
        let value = format!("{level} % ({judged})");
        (w.reading(0, &value, reported), level <= 20)
    };
    match low {
        true => format!("{}. {text}", if is_low { t.yes } else { t.no }),
        false => text,
    }
}

/// An environment sensor's reading (`field` is one of them), in `at`'s units.
fn environment(w: &Writer<'_>, seen: &Seen<'_>, field: Field, at: &Place) -> String {
    let (what, r) = match field {
        Field::Temperature => (2, Reading::Temperature),
        Field::Humidity => (3, Reading::Humidity),
        Field::Pressure => (4, Reading::Pressure),
        Field::Wind => (5, Reading::Wind),
        _ => (6, Reading::Light),
    };
    let value = seen
        .node
        .environment
        .and_then(|e| super::readout::environment_value(r, &e.value, at.units).map(|v| (v, e.at)));
    match value {
        // A wind's direction is a compass point in English: said only as a speed.
        Some((v, reported)) if r == Reading::Wind => {
            let speed = v.split(" from ").next().unwrap_or(&v).to_string();
            w.reading(what, &speed, reported)
        }
        Some((v, reported)) => w.reading(what, &v, reported),
        None => w.none(what),
    }
}

/// Where the node is from the asker (or from our node), when positions may be told.
fn distance(w: &Writer<'_>, seen: &Seen<'_>, at: &Place) -> String {
    let t = w.t;
    if !at.positions {
        return t.positions_off.to_string();
    }
    let Some(p) = seen.position else {
        return w.with(t.no_position, &[]);
    };
    let since = age(t, w.now - p.at);
    match (at.asker, at.ours) {
        (Some(a), _) => {
            let place = whereabouts(t, a, p.value, at.units);
            w.with(t.from_you, &[("where", &place), ("age", &since)])
        }
        (None, Some(o)) => {
            let place = whereabouts(t, o, p.value, at.units);
            w.with(t.from_ours, &[("where", &place), ("age", &since)])
        }
        (None, None) => w.with(t.no_reference, &[]),
    }
}

#[cfg(test)]
mod tests;
