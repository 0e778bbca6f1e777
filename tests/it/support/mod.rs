//! Test doubles shared by the integration tests: the simulated node and the fake LLM.
