//! A simulated mesh for the mesh answers' tests and benchmark: our node and twelve others with
//! positions (one without), last heard from a minute to five days ago, hops, SNR, batteries;
//! three with environment sensors (their readings arrive as broadcasts after the handshake,
//! as a node DB carries none). Around Zürich; Ann asks from her handheld.

use super::sim_node::{SimConfig, SimNode, SimPeer};

pub const HILLTOP: u32 = 0x5100_0001;
pub const RIDGE: u32 = 0x5100_0002;
pub const LAKESIDE: u32 = 0x5100_0003;
pub const BOB: u32 = 0x5100_0004;
pub const VALLEY: u32 = 0x5100_0005;
pub const CHALET: u32 = 0x5100_0006;
pub const FOREST: u32 = 0x5100_0007;
pub const HARBOUR: u32 = 0x5100_0008;
pub const SUMMIT: u32 = 0x5100_0009;
/// Ann's handheld: the asker.
pub const ANN: u32 = 0x5100_000a;
pub const TOWER: u32 = 0x5100_000b;
/// The node the tests hide (`[mesh] hidden`).
pub const CABIN: u32 = 0x5100_000c;

/// Degrees × 1e7.
fn e7(deg: f64) -> i32 {
    (deg * 1e7).round() as i32
}

fn at(p: SimPeer, lat: f64, lon: f64) -> SimPeer {
    p.at(e7(lat), e7(lon))
}

/// The twelve other nodes in our node's DB.
pub fn peers() -> Vec<SimPeer> {
    let p = SimPeer::new;
    vec![
        at(p(HILLTOP, "Hilltop Relay", "HILL"), 47.4100, 8.5500)
            .heard(240, 2, -6.5)
            .battery(87, 3.92),
        at(p(RIDGE, "Ridge Weather", "RWX"), 47.3500, 8.4800)
            .heard(300, 1, -3.0)
            .battery(101, 4.9),
        at(p(LAKESIDE, "Lakeside Node", "LAKE"), 47.3600, 8.5400)
            .heard(600, 0, 7.25)
            .battery(64, 3.8),
        at(p(BOB, "Bob's Base", "BOB"), 47.3900, 8.5200)
            .heard(1200, 1, 2.0)
            .battery(45, 3.7),
        at(p(VALLEY, "Valley Repeater", "VAL"), 47.3000, 8.6000)
            .heard(1800, 3, -9.0)
            .battery(92, 4.0),
        at(p(CHALET, "Chalet Müller", "CHM"), 47.4500, 8.4000)
            .heard(3000, 2, -1.0)
            .battery(30, 3.6),
        p(FOREST, "Forest Camp", "FCMP")
            .heard(7200, 2, -4.0)
            .battery(12, 3.4),
        at(p(HARBOUR, "Harbour Gateway", "HRBR"), 47.3650, 8.5500)
            .heard(120, 0, 9.5)
            .battery(101, 5.0),
        at(p(SUMMIT, "Summit Sensor", "SUMT"), 47.4200, 8.4900)
            .heard(900, 3, -11.0)
            .battery(77, 3.9),
        at(p(ANN, "Ann's Handheld", "ANN"), 47.3800, 8.5450)
            .heard(60, 1, 4.0)
            .battery(55, 3.75),
        at(p(TOWER, "Tower Relay", "TWR"), 47.3300, 8.5200).heard(5 * 86_400, 4, -12.0),
        at(p(CABIN, "Secret Cabin", "CABN"), 47.4000, 8.6000)
            .heard(400, 2, -5.0)
            .battery(50, 3.7),
    ]
}

/// A sim config with our node at Zürich's main station and the mesh's node DB.
pub fn sim_config(base: SimConfig) -> SimConfig {
    SimConfig {
        long_name: "Club Bot".to_string(),
        short_name: "BOT".to_string(),
        position: Some((e7(47.3779), e7(8.5403))),
        peers: peers(),
        device_metrics: Some((18.5, 2.25)),
        ..base
    }
}

/// The sensor nodes' readings, broadcast after the handshake: Ridge Weather 3.5 °C, 81 %,
/// 1012 hPa; Chalet Müller -1.5 °C, 90 %, 1005 hPa; Summit Sensor 1.0 °C, 70 %, 980 hPa.
pub fn broadcast_sensors(sim: &SimNode) {
    sim.inject_environment(RIDGE, 3.5, 81.0, 1012.0);
    sim.inject_environment(CHALET, -1.5, 90.0, 1005.0);
    sim.inject_environment(SUMMIT, 1.0, 70.0, 980.0);
}
