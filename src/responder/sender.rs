//! "Who is asking": what the model is told about the sender of a message — names in the
//! message's header, when it was sent and how it reached us (hops, SNR, distance and
//! direction from our node) in notes for its turn.
//!
//! Pure: the caller passes the message's facts and the time; nothing here reads a clock or
//! the radio. The turn decides when they are said: only with the first message of a
//! conversation (after a quiet spell: the turn's core decides), so that later turns leave the
//! server's prompt cache intact. The header is stored with that message (`messages.prompt`)
//! and repeated with it in every later prompt, so the model keeps it; the radio note and the
//! time note are notes for that one turn (`memory::layout::Turn::notes`): positions and SNR
//! are never stored. The time is not in the header, right before the question: there a
//! small model takes it for the answer to a question about a date ("On what date is the
//! AGM?" → "Tuesday 15:16 UTC", with the date in the notes); and the turn leaves it out
//! of a turn the operator's documents answer (docs/benchmarks.md).

use std::time::SystemTime;

use jiff::Timestamp;
use jiff::civil::Weekday;
use jiff::tz::Offset;

use crate::clock::{Zone, unix_time};
use crate::config::ContextConfig;
use crate::lang::{Lang, Part, Plural, fill, part};
use crate::mesh::geo::{self, Fineness, NEAR_KM, Units, distance_km};
use crate::radio::{GeoPoint, NodeNames, TextMessage};
use crate::text::one_line;

/// What is known about one message's sender, taken from the radio's [`TextMessage`].
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct SenderInfo {
    pub(crate) names: Option<NodeNames>,
    pub(crate) hops: Option<u32>,
    pub(crate) snr: Option<f32>,
    /// The sender's position.
    pub(crate) position: Option<GeoPoint>,
    /// Our own node's position.
    pub(crate) local_position: Option<GeoPoint>,
}

impl SenderInfo {
    pub(crate) fn of(msg: &TextMessage) -> SenderInfo {
        SenderInfo {
            names: msg.names.clone(),
            hops: msg.hops,
            snr: msg.snr,
            position: msg.position,
            local_position: msg.local_position,
        }
    }
}

/// The node's names as heard with `msg` (long, short): unknown ones are `None`, so the store
/// keeps names learned earlier.
pub(crate) fn heard_names(msg: &TextMessage) -> (Option<String>, Option<String>) {
    match msg.names.clone() {
        Some(n) => (Some(n.long_name), Some(n.short_name)),
        None => (None, None),
    }
}

/// When the message arrived, and the local time's offset from UTC then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LocalClock {
    pub(crate) now: SystemTime,
    /// Seconds east of UTC; 0 shows the time as UTC.
    pub(crate) utc_offset_secs: i32,
}

/// A message this long after the node's previous one starts a new conversation.
pub(crate) const CONVERSATION_GAP_SECS: i64 = 10 * 60;

/// Whether a message at `now` (Unix seconds) starts a conversation, the node's previous
/// message having been stored at `last` (`None`: it has none, or a reset forgot them): then
/// the model is told again who is asking, when, and how the message came.
pub(crate) fn starts_conversation(last: Option<i64>, now: i64) -> bool {
    last.is_none_or(|at| now.saturating_sub(at) >= CONVERSATION_GAP_SECS)
}

/// The message's header, e.g. `[Ann Smith (ANN)]`: the names, when `opts` switches them on
/// and they are known; `None` otherwise.
pub fn header(asker: &SenderInfo, opts: &ContextConfig) -> Option<String> {
    if !opts.names {
        return None;
    }
    asker
        .names
        .as_ref()
        .and_then(names)
        .map(|n| format!("[{n}]"))
}

/// When the message was sent, e.g. `This message was sent Mon 14:05 UTC.`, when `opts`
/// switches the time on.
pub(crate) fn time_note(lang: Lang, clock: LocalClock, opts: &ContextConfig) -> Option<String> {
    opts.time.then(|| {
        let time = local_time(clock.now, clock.utc_offset_secs);
        fill(part(lang, Part::SentAt), &[("time", &time)])
    })
}

/// `text` with its header in front, as the model sees (and the store keeps) the message.
pub(crate) fn with_header(header: Option<&str>, text: &str) -> String {
    match header {
        Some(h) => format!("{h} {text}"),
        None => text.to_string(),
    }
}

/// How the message reached us, e.g. `Radio details of this message: 2 hops away, SNR -7.5 dB,
/// 11.5 km NE of you.`: the hops, SNR and distance that `opts` switches on and that are
/// known; `None` when nothing is left.
pub(crate) fn radio_note(
    lang: Lang,
    asker: &SenderInfo,
    opts: &ContextConfig,
    units: Units,
) -> Option<String> {
    let mut items = Vec::new();
    if opts.hops {
        match asker.hops {
            Some(0) => items.push(part(lang, Part::HeardDirectly).to_string()),
            Some(1) => items.push(part(lang, Part::OneHop).to_string()),
            Some(h) => {
                let form = match lang.plural(u64::from(h)) {
                    Plural::Few => Part::HopsFew,
                    Plural::One | Plural::Many => Part::Hops,
                };
                items.push(fill(part(lang, form), &[("n", &h.to_string())]));
            }
            None => {}
        }
    }
    if opts.snr
        && let Some(snr) = asker.snr.filter(|s| s.is_finite())
    {
        items.push(format!("SNR {snr:.1} dB"));
    }
    if opts.distance
        && let (Some(from), Some(to)) = (asker.local_position, asker.position)
    {
        items.push(whereabouts(from, to, units));
    }
    (!items.is_empty()).then(|| {
        let items = items.join(", ");
        fill(part(lang, Part::RadioDetails), &[("items", &items)])
    })
}

/// `Long (SHORT)`, or whichever of the two is known; each made one plain line first
/// (`one_line`: a name is anyone's to set, and must not break or reorder the prompt).
fn names(n: &NodeNames) -> Option<String> {
    let (long, short) = (one_line(&n.long_name), one_line(&n.short_name));
    let (long, short) = (long.as_str(), short.as_str());
    match (long.is_empty(), short.is_empty()) {
        (false, false) if long != short => Some(format!("{long} ({short})")),
        (false, _) => Some(long.to_string()),
        (true, false) => Some(short.to_string()),
        (true, true) => None,
    }
}

/// `12.3 km NE of you`: where `to` is seen from `from`, in `units`, said as the mesh facts
/// say it (`mesh::geo::whereabouts`): `about 12 km NE of you` for a reduced-precision
/// position, `within about 6 km of you` when the direction is lost in it.
fn whereabouts(from: GeoPoint, to: GeoPoint, units: Units) -> String {
    let exact = from.uncertainty_km.max(0.0) + to.uncertainty_km.max(0.0) <= 0.0;
    if exact && distance_km(from, to) < NEAR_KM {
        let near = geo::length(NEAR_KM, units, Fineness::Rough);
        return format!("near you (under {near})");
    }
    format!("{} of you", geo::whereabouts(from, to, units))
}

/// What the model is told about who asks with one message: the header (names), the radio
/// note (hops, SNR, distance) and the time note, all only when the message starts a
/// conversation — the header then goes with the message for good, the notes are for this
/// turn alone. The default says nothing: a message within a conversation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SenderIntro {
    header: Option<String>,
    radio: Option<String>,
    time: Option<String>,
    /// The language the turn speaks (its notes are in it).
    lang: Lang,
}

/// Whether the operator's documents answer a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Grounding {
    /// Passages of the knowledge folder answer it.
    Documents,
    /// The mesh facts answer it (a question about the mesh).
    Mesh,
    /// None do (or there is no folder).
    Nothing,
}

impl SenderIntro {
    /// What a conversation's first message says of `msg`: the items of `context` that
    /// `asker` knows, as of the message's local time in `zone`.
    pub(crate) fn of(
        zone: &Zone,
        msg: &TextMessage,
        context: &ContextConfig,
        units: Units,
        lang: Lang,
    ) -> SenderIntro {
        let who = SenderInfo::of(msg);
        let clock = LocalClock {
            now: msg.received_at,
            utc_offset_secs: zone.offset_at(unix_time(msg.received_at)),
        };
        SenderIntro {
            header: header(&who, context),
            radio: radio_note(lang, &who, context, units),
            time: time_note(lang, clock, context),
            lang,
        }
    }

    /// The language the turn speaks: its prompt's fixed parts, its notes and its notices.
    pub fn lang(&self) -> Lang {
        self.lang
    }

    /// The message as the model sees it: `text` after the header, if any.
    pub(crate) fn message(&self, text: &str) -> String {
        with_header(self.header.as_deref(), text)
    }

    /// The notes for this turn: how the message came (hops, SNR, distance) and when it was
    /// sent — neither when the operator's documents answer it. Their dates, not the
    /// message's time, answer a question about when; and next to the passages the radio line
    /// made Qwen-0.5B invent what the notes do not say (the knowledge benchmark: 5 of 12
    /// uncovered questions declined with it, 9 without; docs/benchmarks.md).
    pub(crate) fn notes(&self, grounding: Grounding) -> Vec<String> {
        match grounding {
            Grounding::Documents | Grounding::Mesh => Vec::new(),
            Grounding::Nothing => self.radio.iter().chain(&self.time).cloned().collect(),
        }
    }
}

/// `Mon 14:05` at `offset_secs` from UTC, or `Mon 14:05 UTC` when the offset is 0; a time
/// before 1970 reads as the epoch.
fn local_time(now: SystemTime, offset_secs: i32) -> String {
    let offset = Offset::from_seconds(offset_secs).unwrap_or(Offset::UTC);
    let at = Timestamp::from_second(unix_time(now)).unwrap_or(Timestamp::UNIX_EPOCH);
    let local = offset.to_datetime(at);
    let weekday = match local.weekday() {
        Weekday::Monday => "Mon",
        Weekday::Tuesday => "Tue",
        Weekday::Wednesday => "Wed",
        Weekday::Thursday => "Thu",
        Weekday::Friday => "Fri",
        Weekday::Saturday => "Sat",
        Weekday::Sunday => "Sun",
    };
    let utc = if offset_secs == 0 { " UTC" } else { "" };
    format!("{weekday} {:02}:{:02}{utc}", local.hour(), local.minute())
}

#[cfg(test)]
mod tests;
