//! Distances and directions on the globe, and how they are said: great-circle distance
//! (haversine), initial bearing, the nearest of 8 compass points, a length in the operator's
//! units. Pure; used by the mesh facts and by the asker's radio note.

use crate::radio::GeoPoint;

/// Mean Earth radius in km (IUGG), for the great-circle distance.
const EARTH_RADIUS_KM: f64 = 6371.0088;

/// The 8 compass points, clockwise from north.
const COMPASS: [&str; 8] = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"];

/// Km in a statute mile.
const KM_PER_MILE: f64 = 1.609_344;

/// Closer than this, a direction means nothing (GPS noise).
pub(crate) const NEAR_KM: f64 = 0.1;

/// Great-circle distance (haversine) in km.
pub(crate) fn distance_km(a: GeoPoint, b: GeoPoint) -> f64 {
    let (p1, p2) = (a.lat.to_radians(), b.lat.to_radians());
    let dp = p2 - p1;
    let dl = (b.lon - a.lon).to_radians();
    let h = (dp / 2.0).sin().powi(2) + p1.cos() * p2.cos() * (dl / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_KM * h.sqrt().min(1.0).asin()
}

/// Initial bearing from `a` to `b` in degrees clockwise from north, 0..360.
pub(crate) fn bearing_deg(a: GeoPoint, b: GeoPoint) -> f64 {
    let (p1, p2) = (a.lat.to_radians(), b.lat.to_radians());
    let dl = (b.lon - a.lon).to_radians();
    let y = dl.sin() * p2.cos();
    let x = p1.cos() * p2.sin() - p1.sin() * p2.cos() * dl.cos();
    y.atan2(x).to_degrees().rem_euclid(360.0)
}

/// The nearest of the 8 compass points.
pub(crate) fn compass(bearing: f64) -> &'static str {
    let i = ((bearing.rem_euclid(360.0) + 22.5) / 45.0) as usize % 8;
    COMPASS[i]
}

/// The units lengths, temperatures and pressures are said in (`[mesh] units`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Units {
    /// km and m, °C, hPa, km/h.
    #[default]
    Metric,
    /// miles and feet, °F, inHg, mph.
    Imperial,
}

/// How finely a length is said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fineness {
    /// 10 m (or 50 ft) steps below a km (a mile), a decimal below 100.
    Fine,
    /// An uncertain position: 100 m (500 ft) steps, no decimal.
    Rough,
}

/// `680 m`, `12.3 km`, `344 km`; in imperial `900 ft`, `7.6 mi`.
pub(crate) fn length(km: f64, units: Units, fineness: Fineness) -> String {
    let (big, unit, small_per_big, small_unit, steps) = match units {
        Units::Metric => (km, "km", 1000.0, "m", (10.0, 100.0)),
        Units::Imperial => (km / KM_PER_MILE, "mi", 5280.0, "ft", (50.0, 500.0)),
    };
    let step = match fineness {
        Fineness::Fine => steps.0,
        Fineness::Rough => steps.1,
    };
    if big < 1.0 {
        let small = ((big * small_per_big / step).round() * step).max(step);
        format!("{} {small_unit}", small as u32)
    } else if big < 100.0 && fineness == Fineness::Fine {
        format!("{big:.1} {unit}")
    } else {
        format!("{big:.0} {unit}")
    }
}

/// Where `to` is seen from `from`: `3.2 km NE`, `about 12 km NE` (a reduced-precision
/// position), `within about 6 km` (the direction lost in it), `under 100 m away`.
pub(crate) fn whereabouts(from: GeoPoint, to: GeoPoint, units: Units) -> String {
    let km = distance_km(from, to);
    let uncertainty = from.uncertainty_km.max(0.0) + to.uncertainty_km.max(0.0);
    if uncertainty > 0.0 {
        if km < 2.0 * uncertainty {
            return format!(
                "within about {}",
                length(2.0 * uncertainty, units, Fineness::Rough)
            );
        }
        return format!(
            "about {} {}",
            length(km, units, Fineness::Rough),
            compass(bearing_deg(from, to))
        );
    }
    if km < NEAR_KM {
        return format!("under {} away", length(NEAR_KM, units, Fineness::Rough));
    }
    format!(
        "{} {}",
        length(km, units, Fineness::Fine),
        compass(bearing_deg(from, to))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(lat: f64, lon: f64) -> GeoPoint {
        GeoPoint {
            lat,
            lon,
            uncertainty_km: 0.0,
        }
    }

    #[test]
    fn lengths_in_both_units() {
        let cases = [
            (0.004, Units::Metric, Fineness::Fine, "10 m"),
            (0.684, Units::Metric, Fineness::Fine, "680 m"),
            (12.34, Units::Metric, Fineness::Fine, "12.3 km"),
            (12.34, Units::Metric, Fineness::Rough, "12 km"),
            (344.2, Units::Metric, Fineness::Fine, "344 km"),
            (0.3, Units::Imperial, Fineness::Fine, "1000 ft"),
            (12.34, Units::Imperial, Fineness::Fine, "7.7 mi"),
            (0.7, Units::Imperial, Fineness::Rough, "2500 ft"),
        ];
        for (km, units, fineness, want) in cases {
            assert_eq!(length(km, units, fineness), want, "{km} {units:?}");
        }
    }

    #[test]
    fn whereabouts_say_distance_and_direction() {
        let zurich = at(47.3769, 8.5417);
        let north = at(47.4669, 8.5417);
        assert_eq!(whereabouts(zurich, north, Units::Metric), "10.0 km N");
        assert_eq!(whereabouts(north, zurich, Units::Imperial), "6.2 mi S");
        assert_eq!(
            whereabouts(zurich, at(47.37691, 8.54171), Units::Metric),
            "under 100 m away"
        );
        let rough = GeoPoint {
            uncertainty_km: 1.5,
            ..north
        };
        assert_eq!(whereabouts(zurich, rough, Units::Metric), "about 10 km N");
        let vague = GeoPoint {
            uncertainty_km: 6.0,
            ..north
        };
        assert_eq!(
            whereabouts(zurich, vague, Units::Metric),
            "within about 12 km"
        );
    }

    #[test]
    fn bearings_and_compass_points() {
        let o = at(0.0, 0.0);
        assert_eq!(compass(bearing_deg(o, at(1.0, 0.0))), "N");
        assert_eq!(compass(bearing_deg(o, at(0.0, 1.0))), "E");
        assert_eq!(compass(bearing_deg(o, at(-1.0, -1.0))), "SW");
        assert_eq!(compass(359.0), "N");
        assert!((distance_km(o, at(0.0, 1.0)) - 111.195).abs() < 0.01);
    }
}
