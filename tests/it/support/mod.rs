//! Test doubles shared by the integration tests: the simulated node, the fake LLM, and a rival
//! API client that keeps taking the node; for the benchmarks, the release binary (`release`).
//!
//! Each test uses only part of their API, so unused items are expected here.
#![allow(dead_code)]

pub mod fake_llm;
pub mod mesh;
pub mod proxy;
pub mod release;
pub mod rival;
pub mod sim_node;
