//! The soak, bigger than the CI test: 1020 DMs from 30 nodes (34 rounds; the simulated node, like
//! the firmware, queues at most 32 packets for the client) through the real daemon while the
//! link drops every ~50 packets, the node reboots once, and the fake LLM fails 10 % of the calls
//! and stalls on 5 %. Panics if any DM got no answer, two answers or one out of order.
//!
//! Run: `cargo bench --bench soak` (numbers in docs/benchmarks.md).

// A test, bench or example: its unwraps and panics are its assertions, and it prints.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::print_stdout, clippy::print_stderr)]

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
    println!("{r} (30 nodes)");
}
