//! A simulated Meshtastic node on 127.0.0.1 to try `meshai run` without a radio: point
//! `[radio] tcp` at the address it prints, then type `FROM TEXT` lines (FROM as `!a1b2c3d4`,
//! hex or decimal) to send DMs to the bot; every packet the bot sends is printed. A line
//! `channel CU [TX]` makes the node report that channel utilization (and our sending, both in
//! percent) as its telemetry does once a minute, to try `[airtime]`.
//!
//! Run: `cargo run --example simnode -- [PORT]` (PORT 0 or absent: any free port).

// A test, bench or example: its unwraps and panics are its assertions, and it prints.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::print_stdout, clippy::print_stderr)]

#[path = "../tests/it/support/mod.rs"]
#[allow(unused_imports)]
mod support;

use std::time::Duration;

use meshai::node::NodeId;
use support::sim_node::{SimConfig, SimNode};
use tokio::io::{AsyncBufReadExt, BufReader};

#[tokio::main]
async fn main() {
    let port: u16 = std::env::args()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    let config = SimConfig {
        ack_delay: Duration::from_millis(800),
        ..SimConfig::default()
    };
    let sim = if port == 0 {
        SimNode::start(config).await
    } else {
        SimNode::start_on(config, port).await
    };
    println!(
        "simulated node !{:08x} listening on {}",
        sim.node_num(),
        sim.addr()
    );
    println!(
        "put `tcp = \"{}\"` under [radio], start meshai, then type: !a1b2c3d4 hello",
        sim.addr()
    );
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut shown = 0;
    let mut tick = tokio::time::interval(Duration::from_millis(200));
    loop {
        tokio::select! {
            line = lines.next_line() => {
                let Ok(Some(line)) = line else { break };
                if let Some(args) = line.trim().strip_prefix("channel ") {
                    let mut nums = args.split_whitespace().map(str::parse::<f32>);
                    match (nums.next(), nums.next().unwrap_or(Ok(0.0))) {
                        (Some(Ok(cu)), Ok(tx)) if (0.0..=100.0).contains(&cu) && (0.0..=100.0).contains(&tx) => {
                            sim.inject_telemetry(cu, tx);
                            println!("→ telemetry: channel utilization {cu} %, our sending {tx} %");
                        }
                        _ => println!("type: channel CU [TX], percentages 0–100, e.g. channel 32 4.5"),
                    }
                    continue;
                }
                let Some((from, text)) = line.trim().split_once(' ') else {
                    println!("type: FROM TEXT, e.g. !a1b2c3d4 what is LoRa?");
                    continue;
                };
                match from.parse::<NodeId>() {
                    Ok(node) => {
                        let id = sim.inject_dm(node.0, text.trim(), None);
                        println!("→ DM {id:#010x} from {node}: {}", text.trim());
                    }
                    Err(e) => println!("{e}"),
                }
            }
            _ = tick.tick() => {
                let texts = sim.texts();
                for t in texts.iter().skip(shown) {
                    println!(
                        "← to {} ch {} hop_limit {} ({} chars, {} bytes): {}",
                        NodeId(t.to), t.channel, t.hop_limit, t.text.chars().count(), t.payload.len(), t.text
                    );
                }
                shown = texts.len();
            }
        }
    }
}
