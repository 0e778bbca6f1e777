//! Test doubles shared by the integration tests: the simulated node and the fake LLM.
//!
//! Each test uses only part of their API, so unused items are expected here.
#![allow(dead_code)]

pub mod fake_llm;
pub mod proxy;
pub mod sim_node;
