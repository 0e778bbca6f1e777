//! One integration-test crate: drives the real daemon against a simulated node and a fake
//! OpenAI server, both on 127.0.0.1 port 0.

// A test, bench or example: its unwraps and panics are its assertions, and it prints.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod airtime;
mod bulletins;
mod cli;
mod crash;
mod daemon;
mod damage;
mod failover;
#[allow(dead_code)]
mod fair;
mod flood;
mod harness;
mod heard;
mod hops;
mod knowledge;
mod language;
mod layers;
mod licensed;
mod mail;
mod memory;
mod mesh;
mod more;
mod node_status;
mod prompt_cache;
mod radio;
mod real_llm;
mod renumber;
mod replay;
mod secrets;
mod sender;
mod sim_selftest;
mod soak;
mod streaming;
mod support;
mod systemd;
mod text_only;
mod traffic28;
mod trust;
mod watch;
