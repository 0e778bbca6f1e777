//! The clock as the rest of the daemon reads it: Unix seconds now or of a `SystemTime`, and the
//! local time zone the model is told about (the system's, or a fixed offset).
//!
//! Time zones are `jiff`'s: it reads `TZ`, else `/etc/localtime` and the system's tz database
//! (`/usr/share/zoneinfo`); nothing is bundled into the binary. The system's zone is read once,
//! at start ([`Zone::system`]); a lookup ([`Zone::offset_at`]) is pure.

use std::time::{SystemTime, UNIX_EPOCH};

use jiff::Timestamp;
use jiff::tz::{Offset, TimeZone};

/// Seconds since the Unix epoch now (see [`unix_time`]).
pub fn unix_now() -> i64 {
    unix_time(SystemTime::now())
}

/// Seconds since the Unix epoch of `t`: 0 before it, `i64::MAX` past what an `i64` holds.
pub(crate) fn unix_time(t: SystemTime) -> i64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// A time zone: seconds east of UTC at any instant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Zone(TimeZone);

impl Zone {
    /// A zone that is always `offset` seconds east of UTC (within ±25:59:59; UTC beyond).
    pub(crate) fn fixed(offset: i32) -> Zone {
        Zone(TimeZone::fixed(
            Offset::from_seconds(offset).unwrap_or(Offset::UTC),
        ))
    }

    /// The system's zone: the one `TZ` names, else `/etc/localtime`'s. An error when neither
    /// can be read or understood.
    pub(crate) fn system() -> Result<Zone, jiff::Error> {
        TimeZone::try_system().map(Zone)
    }

    /// Seconds east of UTC at `unix` (Unix seconds; clamped to the years -9999 to 9999).
    pub(crate) fn offset_at(&self, unix: i64) -> i32 {
        let unix = unix.clamp(Timestamp::MIN.as_second(), Timestamp::MAX.as_second());
        let at = Timestamp::from_second(unix).unwrap_or(Timestamp::UNIX_EPOCH);
        self.0.to_offset(at).seconds()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// Unix seconds of a UTC date and time.
    fn utc(y: i16, mo: i8, d: i8, h: i8, mi: i8) -> i64 {
        jiff::civil::date(y, mo, d)
            .at(h, mi, 0, 0)
            .to_zoned_datetime(TimeZone::UTC)
            .map(|z| z.timestamp().as_second())
            .expect("a valid date")
    }

    #[test]
    fn unix_time_saturates() {
        assert_eq!(unix_time(UNIX_EPOCH), 0);
        assert_eq!(unix_time(UNIX_EPOCH + Duration::from_secs(90)), 90);
        assert_eq!(unix_time(UNIX_EPOCH - Duration::from_secs(90)), 0);
        let far = UNIX_EPOCH + Duration::from_secs(u64::MAX / 2);
        assert_eq!(unix_time(far), i64::MAX);
        assert!(unix_now() > 1_700_000_000);
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
            let zone = Zone(TimeZone::posix(tz).unwrap_or_else(|e| panic!("{tz}: {e}")));
            assert_eq!(zone.offset_at(at), want, "{tz} at {at}");
        }
    }

    #[test]
    fn fixed_offsets() {
        let summer = utc(2030, 7, 1, 0, 0);
        assert_eq!(Zone::fixed(-3600).offset_at(summer), -3600);
        assert_eq!(Zone::fixed(345 * 60).offset_at(summer), 345 * 60);
        assert_eq!(Zone::fixed(0).offset_at(i64::MIN), 0);
        assert_eq!(Zone::fixed(i32::MAX).offset_at(summer), 0);
    }

    #[test]
    fn the_machines_zoneinfo_if_there_is_one() {
        let Ok(file) = std::fs::read("/usr/share/zoneinfo/Europe/Zurich") else {
            return;
        };
        let zurich = Zone(TimeZone::tzif("Europe/Zurich", &file).expect("a TZif file"));
        assert_eq!(zurich.offset_at(utc(2025, 1, 15, 12, 0)), 3600);
        assert_eq!(zurich.offset_at(utc(2025, 7, 15, 12, 0)), 7200);
        // After the file's last transition, its POSIX rule.
        assert_eq!(zurich.offset_at(utc(2060, 7, 15, 12, 0)), 7200);
        assert_eq!(zurich.offset_at(i64::MAX), 3600);
    }
}
