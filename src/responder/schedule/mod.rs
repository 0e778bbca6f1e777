//! Who gets the LLM, and when, fairly under a flood of forged ids. The order of turns is pure
//! (`turns`: standing, then round-robin across nodes, within a bound); the LLM gate
//! (`gate`) holds it and hands out the slots, replies before summaries. At the intake: each
//! node's rate limit (`ratelimit`) and each message's admission among the waiting turns
//! (`admission`); for the answer: a new node's smaller budget (`fair`). Which llama.cpp
//! server slot a call names is `slots`'.

pub(crate) mod admission;
pub(crate) mod fair;
pub(crate) mod gate;
pub(crate) mod ratelimit;
pub(crate) mod slots;
pub(crate) mod standing;
pub(crate) mod turns;
