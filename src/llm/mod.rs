//! TODO(skeleton): the OpenAI-compatible client.

pub mod clean;
