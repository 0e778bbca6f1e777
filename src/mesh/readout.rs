//! The readout the daemon computes for a question about the mesh: a few compact lines, every
//! number worked out here (ages as "4 min ago", distances and directions, units, how busy
//! the channel is) so the model only has to read them; a node or a reading the view lacks is
//! said to be unknown, not left out. Pure: the caller passes the time.

use super::geo::{Units, whereabouts};
use super::lens::Seen;
use super::matcher::Reading;
use crate::radio::view::{Device, Environment, Heard};
use crate::radio::{ChannelMetrics, GeoPoint, NodeNames};
use crate::text::one_line;

/// What every line is said against.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Frame {
    /// Unix seconds.
    pub(crate) now: i64,
    pub(crate) units: Units,
    /// Our node's position, when it may be said.
    pub(crate) ours: Option<GeoPoint>,
    /// The asker's, when it may be said.
    pub(crate) asker: Option<GeoPoint>,
    /// Positions may be said at all (`[mesh] positions`).
    pub(crate) positions: bool,
    /// The question is about the asker ("from me"): a distance is said from the asker only,
    /// when the asker's position is known (a small model took the bot's for it).
    pub(crate) about_me: bool,
}

/// `just now`, `4 min ago`, `3 h ago`, `2 days ago`; a time in the future (a node's clock
/// ahead of ours) is "just now".
pub(crate) fn age(secs: i64) -> String {
    match secs {
        s if s < 60 => "just now".to_string(),
        s if s < 3600 => format!("{} min ago", s / 60),
        s if s < 48 * 3600 => format!("{} h ago", s / 3600),
        s => format!("{} days ago", s / 86_400),
    }
}

/// `Hilltop Relay (HILL)`, or whichever name is known, or the node's id: one plain line.
pub(crate) fn name(names: Option<&NodeNames>, id: crate::node::NodeId) -> String {
    let (long, short) = names.map_or((String::new(), String::new()), |n| {
        (one_line(&n.long_name), one_line(&n.short_name))
    });
    match (long.is_empty(), short.is_empty()) {
        (false, false) if long != short => format!("{long} ({short})"),
        (false, _) => long,
        (true, false) => short,
        (true, true) => id.to_string(),
    }
}

fn hops(h: Option<u32>) -> Option<String> {
    match h? {
        0 => Some("heard directly".to_string()),
        1 => Some("1 hop away".to_string()),
        n => Some(format!("{n} hops away")),
    }
}

/// `Hilltop Relay (HILL): last heard 4 min ago, 2 hops away, SNR 6.0 dB.`; the hops and
/// the SNR only with `radio` (a small model took "2 hops away" for a distance).
pub(crate) fn heard_line(s: &Seen<'_>, f: &Frame, radio: bool) -> String {
    let mut items = vec![match s.node.last_heard {
        Some(at) => format!("last heard {}", age(f.now - at)),
        None => "last heard: unknown".to_string(),
    }];
    if radio {
        items.extend(hops(s.node.hops_away));
        if let Some(snr) = s.node.snr.filter(|v| v.is_finite()) {
            items.push(format!("SNR {snr:.1} dB"));
        }
    }
    format!("{}: {}.", name(s.names(), s.id), items.join(", "))
}

fn temperature(c: f32, units: Units) -> String {
    match units {
        Units::Metric => format!("{c:.1} °C"),
        Units::Imperial => format!("{:.1} °F", c * 9.0 / 5.0 + 32.0),
    }
}

fn pressure(hpa: f32, units: Units) -> String {
    match units {
        Units::Metric => format!("{hpa:.0} hPa"),
        Units::Imperial => format!("{:.2} inHg", hpa * 0.029_53),
    }
}

fn wind(ms: f32, from: Option<u32>, units: Units) -> String {
    let speed = match units {
        Units::Metric => format!("{:.0} km/h", ms * 3.6),
        Units::Imperial => format!("{:.0} mph", ms * 2.236_94),
    };
    match from {
        Some(d) => format!("{speed} from {}", super::geo::compass(f64::from(d))),
        None => speed,
    }
}

/// A battery level with what it means, so the model need not judge: `12 % (low)`.
fn battery(level: u32) -> String {
    match level {
        101.. => "on external power, not on battery".to_string(),
        0..=20 => format!("{level} % (low)"),
        21..=50 => format!("{level} % (half or less)"),
        51..=89 => format!("{level} % (good)"),
        _ => format!("{level} % (full)"),
    }
}

/// One reading of a device, or `None` when it lacks it.
fn device_value(r: Reading, d: &Device) -> Option<String> {
    match r {
        Reading::Battery => d.battery_level.map(battery),
        Reading::Voltage => d.voltage.map(|v| format!("{v:.2} V")),
        _ => None,
    }
}

/// One reading of a sensor, or `None` when it lacks it.
pub(super) fn environment_value(r: Reading, e: &Environment, units: Units) -> Option<String> {
    match r {
        Reading::Temperature => e.temperature.map(|t| temperature(t, units)),
        Reading::Humidity => e.relative_humidity.map(|h| format!("{h:.0} %")),
        Reading::Pressure => e.barometric_pressure.map(|p| pressure(p, units)),
        Reading::Wind => e.wind_speed.map(|w| wind(w, e.wind_direction, units)),
        Reading::Light => e.lux.map(|l| format!("{l:.0} lux")),
        _ => None,
    }
}

fn reading_word(r: Reading) -> &'static str {
    match r {
        Reading::Battery => "battery",
        Reading::Voltage => "voltage",
        Reading::Temperature => "temperature",
        Reading::Humidity => "humidity",
        Reading::Pressure => "air pressure",
        Reading::Wind => "wind",
        Reading::Light => "light",
        Reading::Distance => "distance",
        Reading::LastHeard => "last heard",
        Reading::Hops => "hops",
        Reading::Signal => "SNR",
    }
}

/// The value of reading `r` and when it was reported, or `None` when the node sent none.
fn value(r: Reading, s: &Seen<'_>, f: &Frame) -> Option<(String, i64)> {
    let from_device = |d: &Heard<Device>| device_value(r, &d.value).map(|v| (v, d.at));
    let from_env =
        |e: &Heard<Environment>| environment_value(r, &e.value, f.units).map(|v| (v, e.at));
    s.node
        .device
        .as_ref()
        .and_then(from_device)
        .or_else(|| s.node.environment.as_ref().and_then(from_env))
}

/// `Hilltop Relay is 3.2 km NE of my node and 1.1 km W of you.` (or what of it is known).
pub(crate) fn distance_line(s: &Seen<'_>, f: &Frame) -> String {
    let who = name(s.names(), s.id);
    if !f.positions {
        return format!("{who}: distance unknown (this bot does not tell positions).");
    }
    let Some(p) = s.position else {
        return format!("{who}: position unknown (it shares none), so its distance is unknown.");
    };
    let mut parts = Vec::new();
    if let Some(asker) = f.asker {
        parts.push(format!("{} of you", whereabouts(asker, p.value, f.units)));
    }
    if let Some(ours) = f.ours
        && !(f.about_me && f.asker.is_some())
    {
        parts.push(format!(
            "{} of my node",
            whereabouts(ours, p.value, f.units)
        ));
    }
    if parts.is_empty() {
        return format!("{who}: distance unknown (neither my node nor yours shares a position).");
    }
    format!(
        "{who} is {} (position from {}).",
        parts.join(" and "),
        age(f.now - p.at)
    )
}

/// The lines about one node: how it was heard, then each reading asked for (`readings`
/// empty: every reading it has, and its distance when known).
pub(crate) fn node_lines(s: &Seen<'_>, readings: &[Reading], f: &Frame) -> Vec<String> {
    let who = name(s.names(), s.id);
    let radio = readings.is_empty()
        || readings
            .iter()
            .any(|r| matches!(r, Reading::LastHeard | Reading::Hops | Reading::Signal));
    let mut lines = vec![heard_line(s, f, radio)];
    let asked: Vec<Reading> = readings
        .iter()
        .copied()
        .filter(|r| !matches!(r, Reading::LastHeard | Reading::Hops | Reading::Signal))
        .collect();
    if asked.is_empty() {
        let all = [
            Reading::Battery,
            Reading::Voltage,
            Reading::Temperature,
            Reading::Humidity,
            Reading::Pressure,
            Reading::Wind,
            Reading::Light,
        ];
        let found: Vec<String> = all
            .iter()
            .filter_map(|r| value(*r, s, f).map(|(v, at)| (*r, v, at)))
            .map(|(r, v, at)| format!("{} {v} ({})", reading_word(r), age(f.now - at)))
            .collect();
        if found.is_empty() {
            lines.push(format!("{who} readings: none heard."));
        } else {
            lines.push(format!("{who} readings: {}.", found.join(", ")));
        }
        if s.position.is_some() && (f.ours.is_some() || f.asker.is_some()) {
            lines.push(distance_line(s, f));
        }
        return lines;
    }
    for r in asked {
        if r == Reading::Distance {
            lines.push(distance_line(s, f));
            continue;
        }
        let word = reading_word(r);
        lines.push(match value(r, s, f) {
            Some((v, at)) => format!("{who} {word}: {v} (reported {}).", age(f.now - at)),
            None => format!("{who} {word}: unknown (it has sent no {word} reading)."),
        });
    }
    lines
}

/// `Hilltop Relay (HILL) 4 min ago, 2 hops` for a list.
fn list_item(s: &Seen<'_>, f: &Frame) -> String {
    let mut item = name(s.names(), s.id);
    if let Some(at) = s.node.last_heard {
        item.push_str(&format!(" {}", age(f.now - at)));
    }
    match s.node.hops_away {
        Some(0) => item.push_str(", direct"),
        Some(1) => item.push_str(", 1 hop"),
        Some(h) => item.push_str(&format!(", {h} hops")),
        None => {}
    }
    item
}

/// How many nodes a list names at most.
const LISTED: usize = 8;

/// Who is around: the nodes heard in the last hour, newest first.
pub(crate) fn around(nodes: &[Seen<'_>], f: &Frame) -> Vec<String> {
    let mut heard: Vec<&Seen<'_>> = nodes
        .iter()
        .filter(|s| s.node.last_heard.is_some())
        .collect();
    heard.sort_by_key(|s| std::cmp::Reverse(s.node.last_heard));
    let hour: Vec<&&Seen<'_>> = heard
        .iter()
        .filter(|s| s.node.last_heard.is_some_and(|at| f.now - at < 3600))
        .collect();
    let day = heard
        .iter()
        .filter(|s| s.node.last_heard.is_some_and(|at| f.now - at < 86_400))
        .count();
    let mut lines = vec![format!(
        "My node list holds {} nodes; {} heard in the last hour, {day} in the last 24 h.",
        nodes.len(),
        hour.len()
    )];
    if hour.is_empty() {
        if let Some(last) = heard.first() {
            lines.push(format!("The last one heard: {}.", list_item(last, f)));
        }
    } else {
        let items: Vec<String> = hour.iter().take(LISTED).map(|s| list_item(s, f)).collect();
        let more = hour.len().saturating_sub(LISTED);
        let tail = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        lines.push(format!(
            "Heard in the last hour, newest first: {}{tail}.",
            items.join("; ")
        ));
    }
    lines
}

/// The nodes nearest to the asker (or, without the asker's position, to our node); `nodes`
/// without the asker.
pub(crate) fn nearest(nodes: &[Seen<'_>], f: &Frame) -> Vec<String> {
    if !f.positions {
        return vec!["Nearest nodes: unknown (this bot does not tell positions).".to_string()];
    }
    let (from, whose) = match (f.asker, f.ours) {
        (Some(a), _) => (a, "you"),
        (None, Some(o)) => (o, "my node"),
        (None, None) => {
            return vec![
                "Nearest nodes: unknown (neither your node nor mine shares a position)."
                    .to_string(),
            ];
        }
    };
    let placed = nearest_placed(nodes.iter(), from);
    if placed.is_empty() {
        return vec!["Nearest nodes: unknown (no node shares a position).".to_string()];
    }
    let items: Vec<String> = placed
        .iter()
        .map(|(s, p)| {
            format!(
                "{} ({})",
                name(s.names(), s.id),
                whereabouts(from, *p, f.units)
            )
        })
        .collect();
    let mut lines = vec![match items.split_first() {
        Some((first, [])) => format!("The nearest node to {whose} is {first}."),
        Some((first, rest)) => format!(
            "The nearest node to {whose} is {first}. Next: {}.",
            rest.join("; ")
        ),
        None => String::new(),
    }];
    if whose == "my node" {
        lines.push("Your own position is unknown (your node shares none).".to_string());
    }
    lines
}

/// How many nearest nodes an answer names.
const NEAREST: usize = 3;

/// The [`NEAREST`] nodes of `nodes` that share a position, nearest to `from` first, with
/// where each is (the readout's line and the daemon's own answer both list these).
pub(crate) fn nearest_placed<'s, 'v: 's>(
    nodes: impl Iterator<Item = &'s Seen<'v>>,
    from: GeoPoint,
) -> Vec<(&'s Seen<'v>, GeoPoint)> {
    let mut placed: Vec<(f64, &Seen<'_>, GeoPoint)> = nodes
        .filter_map(|s| s.position.map(|p| (s, p.value)))
        .map(|(s, p)| (super::geo::distance_km(from, p), s, p))
        .collect();
    placed.sort_by(|a, b| a.0.total_cmp(&b.0));
    placed
        .into_iter()
        .take(NEAREST)
        .map(|(_, s, p)| (s, p))
        .collect()
}

/// How busy the channel is, 0 (quiet) to 3 (very busy), by the firmware's own thresholds (it
/// holds back its own traffic above 25 % and 40 %): an index into a language's four words.
pub(crate) fn busy_level(percent: f32) -> usize {
    match percent {
        p if p < 10.0 => 0,
        p if p < 25.0 => 1,
        p if p < 40.0 => 2,
        _ => 3,
    }
}

/// How busy the channel is, in English words.
fn busy(percent: f32) -> &'static str {
    ["quiet", "moderately used", "busy", "very busy"][busy_level(percent)]
}

/// Our node's channel numbers.
pub fn channel(reading: Option<Heard<ChannelMetrics>>, f: &Frame) -> Vec<String> {
    let Some(r) = reading else {
        return vec!["The channel's load: unknown (my node has not measured it yet).".to_string()];
    };
    let m = r.value;
    let tx = m
        .air_util_tx
        .map(|tx| format!("; my node itself sent {tx:.1} % of the last hour"))
        .unwrap_or_default();
    vec![format!(
        "The channel is {}: {:.1} % of the last minute was busy (over 25 % counts as busy, over \
         40 % as very busy){tx}; measured {} by my node.",
        busy(m.channel_utilization),
        m.channel_utilization,
        age(f.now - r.at)
    )]
}

#[cfg(test)]
mod tests;
