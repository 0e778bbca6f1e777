//! meshai: a Meshtastic node you can text, answered by an OpenAI-compatible LLM.
//!
//! See `docs/architecture.md` for the codemap and the invariants.

pub mod chunk;
pub mod config;
pub mod llm;
pub mod memory;
pub mod node;
pub mod radio;
pub mod responder;
pub mod secret;
