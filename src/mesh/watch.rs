//! What a `!watch` waits for, sans-IO (the command is `responder::commands::watch`, the
//! looks `responder::courier::watches`): a condition as people type it and as it is kept
//! ([`Condition`]), whether it holds for a node as the mesh view has it ([`Condition::holds`]),
//! and when its owner is told ([`look`]: once when it becomes true, not again until it has
//! been false).

use std::fmt;

use crate::mesh::Units;
use crate::radio::view::NodeView;

/// How long a node must have been silent before hearing it again is "back".
pub(crate) const BACK_AFTER_SECS: i64 = 3600;
/// The shortest and longest `quiet` a watch takes.
pub(crate) const QUIET_MIN_SECS: i64 = 10 * 60;
pub(crate) const QUIET_MAX_SECS: i64 = 30 * 86_400;

/// A reading a watch compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Metric {
    /// Percent.
    Battery,
    /// °C, or °F with imperial units.
    Temperature,
    /// Percent.
    Humidity,
    /// hPa, or inHg.
    Pressure,
    /// km/h, or mph.
    Wind,
}

impl Metric {
    const ALL: [(Metric, &'static str); 5] = [
        (Metric::Battery, "battery"),
        (Metric::Temperature, "temperature"),
        (Metric::Humidity, "humidity"),
        (Metric::Pressure, "pressure"),
        (Metric::Wind, "wind"),
    ];

    fn name(self) -> &'static str {
        Metric::ALL
            .iter()
            .find(|(m, _)| *m == self)
            .map_or("", |(_, n)| n)
    }

    fn of(word: &str) -> Option<Metric> {
        let word = word.to_lowercase();
        let word = match word.as_str() {
            "temp" | "t" => "temperature",
            "bat" | "batt" => "battery",
            "rh" => "humidity",
            w => w,
        }
        .to_string();
        Metric::ALL
            .iter()
            .find(|(_, n)| *n == word)
            .map(|(m, _)| *m)
    }

    /// The node's latest reading of it in `units`, when it has one (external power is no
    /// battery level).
    fn reading(self, node: &NodeView, units: Units) -> Option<f32> {
        let env = node.environment.map(|e| e.value);
        let imperial = units == Units::Imperial;
        match self {
            Metric::Battery => node
                .device
                .and_then(|d| d.value.battery_level)
                .filter(|l| *l <= 100)
                .map(|l| l as f32),
            Metric::Temperature => env
                .and_then(|e| e.temperature)
                .map(|c| if imperial { c * 9.0 / 5.0 + 32.0 } else { c }),
            Metric::Humidity => env.and_then(|e| e.relative_humidity),
            Metric::Pressure => env
                .and_then(|e| e.barometric_pressure)
                .map(|p| if imperial { p * 0.029_53 } else { p }),
            Metric::Wind => env
                .and_then(|e| e.wind_speed)
                .map(|w| if imperial { w * 2.236_94 } else { w * 3.6 }),
        }
        .filter(|v| v.is_finite())
    }

    /// Its unit, as the answers write it.
    fn unit(self, units: Units) -> &'static str {
        match (self, units) {
            (Metric::Battery | Metric::Humidity, _) => "%",
            (Metric::Temperature, Units::Metric) => "°C",
            (Metric::Temperature, Units::Imperial) => "°F",
            (Metric::Pressure, Units::Metric) => "hPa",
            (Metric::Pressure, Units::Imperial) => "inHg",
            (Metric::Wind, Units::Metric) => "km/h",
            (Metric::Wind, Units::Imperial) => "mph",
        }
    }
}

/// What a watch waits for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Condition {
    /// Not heard for at least this many seconds.
    Quiet(i64),
    /// Heard again after [`BACK_AFTER_SECS`] or more of silence.
    Back,
    /// A reading below the value.
    Below(Metric, f32),
    /// A reading above the value.
    Above(Metric, f32),
}

impl Condition {
    /// The condition `words` say: `quiet 2h`, `back`, `battery 20` (below 20 %), `temperature
    /// < 0`, `wind > 50`, `humidity above 90`; `None` for anything else.
    pub fn parse(words: &str) -> Option<Condition> {
        let w: Vec<String> = words
            .split_whitespace()
            .map(|w| w.trim_end_matches(['.', '%']).to_lowercase())
            .filter(|w| !w.is_empty())
            .collect();
        let w: Vec<&str> = w.iter().map(String::as_str).collect();
        match w.as_slice() {
            ["back"] => Some(Condition::Back),
            ["quiet" | "silent", d] => {
                let secs = duration(d)?;
                (QUIET_MIN_SECS..=QUIET_MAX_SECS)
                    .contains(&secs)
                    .then_some(Condition::Quiet(secs))
            }
            [metric, rest @ ..] => {
                let metric = Metric::of(metric)?;
                // "battery20", "temperature<0" are rare; "battery < 20", "battery 20" common.
                let (op, value) = match rest {
                    [v] if metric == Metric::Battery => ("<", *v),
                    [v] => split_op(v)?,
                    [op, v] => (*op, *v),
                    _ => return None,
                };
                let value: f32 = value.replace(',', ".").parse().ok()?;
                if !value.is_finite() {
                    return None;
                }
                match op {
                    "<" | "below" | "under" => Some(Condition::Below(metric, value)),
                    ">" | "above" | "over" => Some(Condition::Above(metric, value)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Whether it holds for `node` at `now`; `None`: the view cannot say (never heard, no
    /// such reading).
    pub(crate) fn holds(&self, node: Option<&NodeView>, now: i64, units: Units) -> Option<bool> {
        let node = node?;
        match *self {
            Condition::Quiet(secs) => node.last_heard.map(|l| now - l >= secs),
            // What is watched is "heard within the hour": it becomes true when the node is
            // heard after an hour or more of silence.
            Condition::Back => Some(node.last_heard.is_some_and(|l| now - l < BACK_AFTER_SECS)),
            Condition::Below(m, v) => m.reading(node, units).map(|r| r < v),
            Condition::Above(m, v) => m.reading(node, units).map(|r| r > v),
        }
    }

    /// What the owner is told it saw, e.g. `battery 12 % (below 20)`, `quiet for 2h`.
    pub(crate) fn seen(&self, node: &NodeView, now: i64, units: Units) -> String {
        match *self {
            Condition::Quiet(_) => {
                let since = node.last_heard.map_or(0, |l| now - l);
                human(since)
            }
            Condition::Back => String::new(),
            Condition::Below(m, v) | Condition::Above(m, v) => {
                let r = m.reading(node, units).unwrap_or(f32::NAN);
                let (op, space) = match (self, m) {
                    (Condition::Below(..), _) => ("<", " "),
                    _ => (">", " "),
                };
                format!(
                    "{} {}{space}{} ({op} {})",
                    m.name(),
                    number(r),
                    m.unit(units),
                    number(v)
                )
            }
        }
    }
}

/// The canonical text a watch is kept as (and listed as): `quiet 2h`, `back`, `battery < 20`.
impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Condition::Quiet(secs) => write!(f, "quiet {}", exact(secs)),
            Condition::Back => f.write_str("back"),
            Condition::Below(m, v) => write!(f, "{} < {}", m.name(), number(v)),
            Condition::Above(m, v) => write!(f, "{} > {}", m.name(), number(v)),
        }
    }
}

/// `30m`, `2h`, `1d`, `90` (minutes) as seconds.
fn duration(word: &str) -> Option<i64> {
    let (n, unit) = match word.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => word.split_at(i),
        None => (word, "m"),
    };
    let n: i64 = n.parse().ok()?;
    let per = match unit {
        "m" | "min" | "mins" => 60,
        "h" | "hr" | "hrs" | "hour" | "hours" => 3600,
        "d" | "day" | "days" => 86_400,
        _ => return None,
    };
    n.checked_mul(per)
}

/// Seconds in the largest unit that holds them exactly: `2h`, `90m`, `1d`.
fn exact(secs: i64) -> String {
    match secs {
        s if s >= 86_400 && s % 86_400 == 0 => format!("{}d", s / 86_400),
        s if s >= 3600 && s % 3600 == 0 => format!("{}h", s / 3600),
        s => format!("{}m", s / 60),
    }
}

/// Seconds roughly, as a packet wants them: `45m`, `2h`, `3d`.
fn human(secs: i64) -> String {
    match secs {
        s if s >= 86_400 => format!("{}d", s / 86_400),
        s if s >= 3600 => format!("{}h", s / 3600),
        s => format!("{}m", s / 60),
    }
}

/// `<0` as ("<", "0"); `None` without an operator.
fn split_op(word: &str) -> Option<(&str, &str)> {
    let op = word.get(..1).filter(|o| *o == "<" || *o == ">")?;
    Some((op, &word[1..]))
}

/// A value without trailing zeros: `20`, `-2.5`.
fn number(v: f32) -> String {
    if v.fract() == 0.0 && v.abs() < 1e9 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// What one look at a watch does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Look {
    /// The owner is told now.
    pub(crate) tell: bool,
    /// Whether it holds, as kept for the next look.
    pub(crate) held: bool,
}

/// A look at a watch that `held` at the last one and `now` holds as said: its owner is told
/// when it became true; an unknown keeps what was kept.
pub(crate) fn look(held: bool, now: Option<bool>) -> Look {
    match now {
        Some(true) => Look {
            tell: !held,
            held: true,
        },
        Some(false) => Look {
            tell: false,
            held: false,
        },
        None => Look { tell: false, held },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radio::view::{Device, Environment, Heard};

    const NOW: i64 = 1_000_000;

    #[test]
    fn conditions_as_people_type_them() {
        let cases: &[(&str, Option<&str>)] = &[
            ("battery 20", Some("battery < 20")),
            ("Battery 20%", Some("battery < 20")),
            ("battery < 15", Some("battery < 15")),
            ("bat below 30", Some("battery < 30")),
            ("temperature < 0", Some("temperature < 0")),
            ("temp <-2,5", Some("temperature < -2.5")),
            ("wind > 50", Some("wind > 50")),
            ("humidity above 90", Some("humidity > 90")),
            ("quiet 2h", Some("quiet 2h")),
            ("quiet 90", Some("quiet 90m")),
            ("silent 1d", Some("quiet 1d")),
            ("back", Some("back")),
            ("quiet 1m", None),
            ("quiet 40d", None),
            ("temperature 5", None),
            ("battery", None),
            ("voltage < 3", None),
            ("battery < NaN", None),
            ("", None),
        ];
        for (words, want) in cases {
            let got = Condition::parse(words).map(|c| c.to_string());
            assert_eq!(got.as_deref(), *want, "{words:?}");
            // What is kept parses back to the same.
            if let Some(c) = Condition::parse(words) {
                let again = Condition::parse(&c.to_string()).map(|c| c.to_string());
                assert_eq!(again, Some(c.to_string()), "{words:?}");
            }
        }
        assert_eq!(Condition::parse("quiet 90"), Some(Condition::Quiet(5400)));
    }

    fn node(last_heard: i64, battery: Option<u32>, temp: Option<f32>) -> NodeView {
        let mut n = NodeView::default();
        n.last_heard = Some(last_heard);
        n.device = battery.map(|b| Heard {
            value: Device {
                battery_level: Some(b),
                ..Device::default()
            },
            at: last_heard,
        });
        n.environment = temp.map(|t| Heard {
            value: Environment {
                temperature: Some(t),
                ..Environment::default()
            },
            at: last_heard,
        });
        n
    }

    #[test]
    fn a_condition_holds_as_the_view_says() {
        let low = Condition::parse("battery 20").unwrap();
        let cold = Condition::parse("temperature < 0").unwrap();
        let quiet = Condition::parse("quiet 2h").unwrap();
        let m = Units::Metric;
        let cases = [
            (low, node(NOW, Some(12), None), m, Some(true)),
            (low, node(NOW, Some(87), None), m, Some(false)),
            // On external power: no battery level.
            (low, node(NOW, Some(101), None), m, None),
            (low, node(NOW, None, None), m, None),
            (cold, node(NOW, None, Some(-1.0)), m, Some(true)),
            (cold, node(NOW, None, Some(1.0)), m, Some(false)),
            // 1 °C is 33.8 °F: not below 0 °F, and -20 °C is.
            (
                cold,
                node(NOW, None, Some(1.0)),
                Units::Imperial,
                Some(false),
            ),
            (
                cold,
                node(NOW, None, Some(-20.0)),
                Units::Imperial,
                Some(true),
            ),
            (quiet, node(NOW - 7200, None, None), m, Some(true)),
            (quiet, node(NOW - 7000, None, None), m, Some(false)),
            (Condition::Back, node(NOW - 10, None, None), m, Some(true)),
            (
                Condition::Back,
                node(NOW - 4000, None, None),
                m,
                Some(false),
            ),
        ];
        for (c, n, units, want) in cases {
            assert_eq!(c.holds(Some(&n), NOW, units), want, "{c} {n:?}");
        }
        assert_eq!(low.holds(None, NOW, m), None, "never heard");
        assert_eq!(
            low.seen(&node(NOW, Some(12), None), NOW, m),
            "battery 12 % (< 20)"
        );
        assert_eq!(quiet.seen(&node(NOW - 7300, None, None), NOW, m), "2h");
    }

    #[test]
    fn the_owner_is_told_once_until_it_has_been_false() {
        // Reports: low, low again, unknown, high, low.
        let mut held = false;
        let mut told = Vec::new();
        for now in [Some(true), Some(true), None, Some(false), Some(true)] {
            let l = look(held, now);
            told.push(l.tell);
            held = l.held;
        }
        assert_eq!(told, [true, false, false, false, true]);
    }
}
