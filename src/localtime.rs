//! The local time's offset from UTC without a time zone library: read from a TZif file
//! (`/etc/localtime`, RFC 8536), its transitions and, after the last one, its POSIX `TZ` rule
//! (e.g. `CET-1CEST,M3.5.0,M10.5.0/3`).
//!
//! Parsing and lookups are pure; [`Zone::system`] is the one place that reads the file. Only
//! the `Mm.w.d` rule dates (what every current zone uses) are understood; a file this module
//! cannot read gives `None`, and the caller falls back to UTC.

use std::path::Path;

/// Where the system keeps its time zone.
pub const SYSTEM_ZONE: &str = "/etc/localtime";

/// A time zone: seconds east of UTC at any instant.
#[derive(Debug, Clone, PartialEq)]
pub struct Zone {
    /// `(at, utc_offset)`, sorted by `at` (Unix seconds).
    transitions: Vec<(i64, i32)>,
    /// The offset before the first transition (time type 0).
    initial: i32,
    /// Used after the last transition, when the file has one.
    rule: Option<Rule>,
}

/// A POSIX `TZ` rule: standard time, and daylight saving time between two dates.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Rule {
    std: i32,
    dst: Option<(i32, RuleDate, RuleDate)>,
}

/// `Mm.w.d/time`: day `d` (0 = Sunday) of week `w` (5 = last) of month `m`, at `secs` local.
#[derive(Debug, Clone, Copy, PartialEq)]
struct RuleDate {
    month: u32,
    week: u32,
    weekday: u32,
    secs: i64,
}

impl Zone {
    /// A zone that is always `offset` seconds east of UTC.
    pub fn fixed(offset: i32) -> Zone {
        Zone {
            transitions: Vec::new(),
            initial: offset,
            rule: None,
        }
    }

    /// The system's zone from `path` (normally [`SYSTEM_ZONE`]); `None` when it cannot be read
    /// or understood.
    pub fn system(path: &Path) -> Option<Zone> {
        Zone::parse(&std::fs::read(path).ok()?)
    }

    /// Parses a TZif file (version 1, 2 or 3).
    pub fn parse(bytes: &[u8]) -> Option<Zone> {
        let (v1, counts) = header(bytes)?;
        let v1_len = block_len(&counts, 4)?;
        if v1 == b'\0' {
            return Zone::from_block(bytes.get(44..44 + v1_len)?, &counts, 4, None);
        }
        let rest = bytes.get(44 + v1_len..)?;
        let (_, counts) = header(rest)?;
        let len = block_len(&counts, 8)?;
        let footer = rest.get(44 + len..).unwrap_or_default();
        let rule = std::str::from_utf8(footer)
            .ok()
            .and_then(|f| f.trim_matches('\n').lines().next())
            .and_then(parse_rule);
        Zone::from_block(rest.get(44..44 + len)?, &counts, 8, rule)
    }

    fn from_block(data: &[u8], c: &Counts, time_size: usize, rule: Option<Rule>) -> Option<Zone> {
        let times = data.get(..c.time * time_size)?;
        let indexes = data.get(c.time * time_size..c.time * (time_size + 1))?;
        let types_at = c.time * (time_size + 1);
        let types = data.get(types_at..types_at + c.types * 6)?;
        let offset_of = |i: usize| -> Option<i32> {
            let t = types.get(i * 6..i * 6 + 4)?;
            Some(i32::from_be_bytes(t.try_into().ok()?))
        };
        let mut transitions = Vec::with_capacity(c.time);
        for (i, &ty) in indexes.iter().enumerate() {
            let raw = &times[i * time_size..(i + 1) * time_size];
            let at = if time_size == 8 {
                i64::from_be_bytes(raw.try_into().ok()?)
            } else {
                i64::from(i32::from_be_bytes(raw.try_into().ok()?))
            };
            transitions.push((at, offset_of(usize::from(ty))?));
        }
        if transitions.windows(2).any(|w| w[0].0 > w[1].0) {
            return None;
        }
        Some(Zone {
            transitions,
            initial: offset_of(0)?,
            rule,
        })
    }

    /// Seconds east of UTC at `unix`.
    pub fn offset_at(&self, unix: i64) -> i32 {
        match self.transitions.partition_point(|&(at, _)| at <= unix) {
            0 if self.transitions.is_empty() => self.rule.map_or(self.initial, |r| r.at(unix)),
            0 => self.initial,
            n if n == self.transitions.len() => match self.rule {
                Some(r) => r.at(unix),
                None => self.transitions[n - 1].1,
            },
            n => self.transitions[n - 1].1,
        }
    }
}

/// The six counts of a TZif header.
struct Counts {
    is_ut: usize,
    is_std: usize,
    leap: usize,
    time: usize,
    types: usize,
    chars: usize,
}

/// The version byte and counts of the header at the start of `b`.
fn header(b: &[u8]) -> Option<(u8, Counts)> {
    if b.get(..4)? != b"TZif" {
        return None;
    }
    let n = |i: usize| -> Option<usize> {
        let raw = b.get(20 + 4 * i..24 + 4 * i)?;
        usize::try_from(u32::from_be_bytes(raw.try_into().ok()?)).ok()
    };
    let counts = Counts {
        is_ut: n(0)?,
        is_std: n(1)?,
        leap: n(2)?,
        time: n(3)?,
        types: n(4)?,
        chars: n(5)?,
    };
    (counts.types > 0).then_some((*b.get(4)?, counts))
}

/// The length of a data block with `time_size`-byte times (4 in v1, 8 after).
fn block_len(c: &Counts, time_size: usize) -> Option<usize> {
    let mut len = c.time.checked_mul(time_size + 1)?;
    len = len.checked_add(c.types.checked_mul(6)?)?;
    len = len.checked_add(c.chars)?;
    len = len.checked_add(c.leap.checked_mul(time_size + 4)?)?;
    len.checked_add(c.is_std)?.checked_add(c.is_ut)
}

impl Rule {
    fn at(&self, unix: i64) -> i32 {
        let Some((dst, start, end)) = self.dst else {
            return self.std;
        };
        let year = civil_from_days((unix + i64::from(self.std)).div_euclid(86_400)).0;
        // Start is given in standard time, end in daylight saving time.
        let starts = start.unix(year) - i64::from(self.std);
        let ends = end.unix(year) - i64::from(dst);
        let in_dst = if starts < ends {
            starts <= unix && unix < ends
        } else {
            !(ends <= unix && unix < starts)
        };
        if in_dst { dst } else { self.std }
    }
}

impl RuleDate {
    /// The local instant (as if UTC) of this date in `year`.
    fn unix(&self, year: i64) -> i64 {
        let month = i64::from(self.month);
        let first = days_from_civil(year, month, 1);
        let next = if month == 12 {
            days_from_civil(year + 1, 1, 1)
        } else {
            days_from_civil(year, month + 1, 1)
        };
        // 1970-01-01 was a Thursday (4, counting from Sunday = 0).
        let first_weekday = (first + 4).rem_euclid(7);
        let mut day = first + (i64::from(self.weekday) - first_weekday).rem_euclid(7);
        day += 7 * (i64::from(self.week) - 1);
        while day >= next {
            day -= 7;
        }
        day * 86_400 + self.secs
    }
}

/// Parses a POSIX `TZ` string such as `CET-1CEST,M3.5.0,M10.5.0/3` or `<+0545>-5:45`.
fn parse_rule(s: &str) -> Option<Rule> {
    let mut p = Parser { s: s.as_bytes() };
    p.name()?;
    let std = -p.offset()?;
    if p.s.is_empty() {
        return Some(Rule { std, dst: None });
    }
    p.name()?;
    let dst = if p.s.first().is_some_and(|&c| c != b',') {
        -p.offset()?
    } else {
        std + 3600
    };
    p.eat(b',')?;
    let start = p.date()?;
    p.eat(b',')?;
    let end = p.date()?;
    p.s.is_empty().then_some(Rule {
        std,
        dst: Some((dst, start, end)),
    })
}

struct Parser<'a> {
    s: &'a [u8],
}

impl Parser<'_> {
    fn eat(&mut self, c: u8) -> Option<()> {
        let (&first, rest) = self.s.split_first()?;
        (first == c).then(|| self.s = rest)
    }

    /// A zone abbreviation: 3+ letters, or anything in `<...>`.
    fn name(&mut self) -> Option<()> {
        if self.eat(b'<').is_some() {
            let end = self.s.iter().position(|&c| c == b'>')?;
            self.s = &self.s[end + 1..];
            return Some(());
        }
        let len = self
            .s
            .iter()
            .take_while(|c| c.is_ascii_alphabetic())
            .count();
        (len >= 3).then(|| self.s = &self.s[len..])
    }

    fn number(&mut self) -> Option<i64> {
        let len = self.s.iter().take_while(|c| c.is_ascii_digit()).count();
        let n = std::str::from_utf8(&self.s[..len]).ok()?.parse().ok()?;
        self.s = &self.s[len..];
        Some(n)
    }

    /// `[+-]hh[:mm[:ss]]` in seconds.
    fn time(&mut self) -> Option<i64> {
        let sign = match self.s.first() {
            Some(b'-') => {
                self.s = &self.s[1..];
                -1
            }
            Some(b'+') => {
                self.s = &self.s[1..];
                1
            }
            _ => 1,
        };
        let mut secs = self.number()?.checked_mul(3600)?;
        if self.eat(b':').is_some() {
            secs += self.number()? * 60;
            if self.eat(b':').is_some() {
                secs += self.number()?;
            }
        }
        (secs <= 167 * 3600).then_some(sign * secs)
    }

    /// A `TZ` offset (positive west of UTC), in seconds.
    fn offset(&mut self) -> Option<i32> {
        i32::try_from(self.time()?)
            .ok()
            .filter(|o| o.abs() <= 25 * 3600)
    }

    /// `Mm.w.d[/time]`.
    fn date(&mut self) -> Option<RuleDate> {
        self.eat(b'M')?;
        let month = u32::try_from(self.number()?).ok()?;
        self.eat(b'.')?;
        let week = u32::try_from(self.number()?).ok()?;
        self.eat(b'.')?;
        let weekday = u32::try_from(self.number()?).ok()?;
        let secs = if self.eat(b'/').is_some() {
            self.time()?
        } else {
            2 * 3600
        };
        ((1..=12).contains(&month) && (1..=5).contains(&week) && weekday <= 6).then_some(RuleDate {
            month,
            week,
            weekday,
            secs,
        })
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date (year, month, day) of a day count since 1970-01-01, proleptic Gregorian (Howard
/// Hinnant's `civil_from_days`); also used by `cli::format`.
pub(crate) fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unix seconds of a UTC date and time.
    fn utc(y: i64, mo: i64, d: i64, h: i64, mi: i64) -> i64 {
        days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60
    }

    /// A TZif file built by hand: version, transitions `(at, type)`, types' offsets, footer.
    fn tzif(version: u8, transitions: &[(i64, u8)], offsets: &[i32], footer: &str) -> Vec<u8> {
        let header = |n_time: usize| {
            let mut h = b"TZif".to_vec();
            h.push(version);
            h.extend([0; 15]);
            for n in [0, 0, 0, n_time, offsets.len(), 4] {
                h.extend(u32::try_from(n).unwrap().to_be_bytes());
            }
            h
        };
        let block = |wide: bool| {
            let mut b = Vec::new();
            for (at, _) in transitions {
                if wide {
                    b.extend(at.to_be_bytes());
                } else {
                    b.extend(i32::try_from(*at).unwrap().to_be_bytes());
                }
            }
            b.extend(transitions.iter().map(|(_, t)| *t));
            for o in offsets {
                b.extend(o.to_be_bytes());
                b.extend([0, 0]);
            }
            b.extend(b"ABC\0");
            b
        };
        let mut out = header(transitions.len());
        out.extend(block(false));
        if version != 0 {
            out.extend(header(transitions.len()));
            out.extend(block(true));
            out.extend(format!("\n{footer}\n").as_bytes());
        }
        out
    }

    #[test]
    fn rules() {
        let cases = [
            // TZ, UTC instant, offset in seconds.
            ("CET-1CEST,M3.5.0,M10.5.0/3", utc(2040, 1, 15, 12, 0), 3600),
            ("CET-1CEST,M3.5.0,M10.5.0/3", utc(2040, 7, 1, 12, 0), 7200),
            // 2040-03-25 is the last Sunday of March: DST from 01:00 UTC.
            ("CET-1CEST,M3.5.0,M10.5.0/3", utc(2040, 3, 25, 0, 59), 3600),
            ("CET-1CEST,M3.5.0,M10.5.0/3", utc(2040, 3, 25, 1, 0), 7200),
            // 2040-10-28 is the last Sunday of October: back at 01:00 UTC.
            ("CET-1CEST,M3.5.0,M10.5.0/3", utc(2040, 10, 28, 0, 59), 7200),
            ("CET-1CEST,M3.5.0,M10.5.0/3", utc(2040, 10, 28, 1, 0), 3600),
            // US: second Sunday of March (2040-03-11) at 02:00 local = 07:00 UTC.
            ("EST5EDT,M3.2.0,M11.1.0", utc(2040, 3, 11, 6, 59), -5 * 3600),
            ("EST5EDT,M3.2.0,M11.1.0", utc(2040, 3, 11, 7, 0), -4 * 3600),
            // Southern hemisphere: DST over the new year.
            (
                "AEST-10AEDT,M10.1.0,M4.1.0/3",
                utc(2040, 1, 10, 0, 0),
                11 * 3600,
            ),
            (
                "AEST-10AEDT,M10.1.0,M4.1.0/3",
                utc(2040, 6, 10, 0, 0),
                10 * 3600,
            ),
            ("<+0545>-5:45", utc(2040, 6, 10, 0, 0), 5 * 3600 + 45 * 60),
            ("UTC0", utc(2040, 6, 10, 0, 0), 0),
            ("<-03>3", utc(2040, 6, 10, 0, 0), -3 * 3600),
        ];
        for (tz, at, want) in cases {
            let rule = parse_rule(tz).unwrap_or_else(|| panic!("{tz}"));
            assert_eq!(rule.at(at), want, "{tz} at {at}");
        }
        for bad in [
            "",
            "C",
            "CET",
            "CET-1CEST,J60,M10.5.0",
            "CET-1CEST,M13.5.0,M10.5.0",
        ] {
            assert_eq!(parse_rule(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn files() {
        let winter = utc(2030, 1, 1, 0, 0);
        let summer = utc(2030, 7, 1, 0, 0);
        // Transitions into 2031, then the rule; a v1 file has only its transitions.
        let tr = [(utc(2030, 3, 31, 1, 0), 1), (utc(2030, 10, 27, 1, 0), 0)];
        let rule = "CET-1CEST,M3.5.0,M10.5.0/3";
        let v2 = Zone::parse(&tzif(b'2', &tr, &[3600, 7200], rule)).unwrap();
        let v1 = Zone::parse(&tzif(0, &tr, &[3600, 7200], "")).unwrap();
        let slim = Zone::parse(&tzif(b'3', &[], &[3600], rule)).unwrap();
        let utc_file = Zone::parse(&tzif(b'2', &[], &[0], "UTC0")).unwrap();
        let cases = [
            (&v2, winter, 3600),
            (&v2, summer, 7200),
            (&v2, utc(2030, 12, 1, 0, 0), 3600),
            (&v2, utc(2045, 7, 1, 0, 0), 7200),
            (&v1, utc(2045, 7, 1, 0, 0), 3600),
            (&v1, utc(1990, 7, 1, 0, 0), 3600),
            (&slim, summer, 7200),
            (&slim, winter, 3600),
            (&utc_file, summer, 0),
        ];
        for (zone, at, want) in cases {
            assert_eq!(zone.offset_at(at), want, "{zone:?} at {at}");
        }
        assert_eq!(Zone::fixed(-3600).offset_at(summer), -3600);
        let good = tzif(b'2', &tr, &[3600, 7200], rule);
        for bad in [
            &good[..20],
            &good[..60],
            &b"TZjf0000000000000000000000000000000000000000"[..],
        ] {
            assert_eq!(Zone::parse(bad), None);
        }
    }

    #[test]
    fn the_machines_zoneinfo_if_there_is_one() {
        let Some(zurich) = Zone::system(Path::new("/usr/share/zoneinfo/Europe/Zurich")) else {
            return;
        };
        assert_eq!(zurich.offset_at(utc(2025, 1, 15, 12, 0)), 3600);
        assert_eq!(zurich.offset_at(utc(2025, 7, 15, 12, 0)), 7200);
        assert_eq!(zurich.offset_at(utc(2060, 7, 15, 12, 0)), 7200);
    }

    #[test]
    fn calendar_round_trips() {
        for days in [-800_000, -1, 0, 1, 11_016, 20_241, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(civil_from_days(20_241), (2025, 6, 2));
    }
}
