//! The soak, bigger than the CI test: 1020 DMs from 30 nodes (34 rounds; the simulated node, like
//! the firmware, queues at most 32 packets for the client) through the real daemon while the
//! link drops every ~50 packets, the node reboots once, and the fake LLM fails 10 % of the calls
//! and stalls on 5 %. Panics if any DM got no answer, two answers or one out of order.
//!
//! Run: `cargo bench --bench soak` (numbers in docs/benchmarks.md).

#[path = "../tests/it/harness.rs"]
#[allow(dead_code)]
mod harness;
#[path = "../tests/it/soak.rs"]
#[allow(dead_code)]
mod soak;
#[path = "../tests/it/support/mod.rs"]
#[allow(unused_imports)]
mod support;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let r = soak::soak(30, 34).await;
    println!(
        "soak: {} DMs from 30 nodes → {} packets ({} answers, {} failure notices), duplicates 0, \
         order kept; {} link drops + 1 reboot = {} handshakes; {} rate-limit refusals; \
         daemon RSS {} KiB after a third of the run, {} KiB at the end, {} KiB peak; {:.0} s",
        r.dms,
        r.packets,
        r.packets - r.notices,
        r.notices,
        r.drops,
        r.handshakes,
        r.refusals,
        r.rss_early_kib,
        r.rss_end_kib,
        r.rss_peak_kib,
        r.seconds
    );
}
