//! `retryplan`, the command-line tool: check a policy file, explain its worst
//! case, simulate a fleet running it through an outage, compile it for a
//! runtime that reads no JSON.
//!
//! The CLI makes no retry decision of its own: `explain` prints
//! [`retryplan::explain`], and every attempt, wait and give-up in `simulate`
//! comes from a [`retryplan::Operation`] with its client's
//! [`retryplan::Dependency`]. The simulator only models the world.

#![forbid(unsafe_code)]
// Not yet under the workspace's indexing rule: 9 sites index tables of their
// own by construction (the simulator's timer wheel and buckets, base64's
// alphabet, a list of one profile); the rest of the list (no unwrap, expect
// or panic) holds here too.
#![allow(clippy::indexing_slicing)]

pub mod chart;
pub mod compile;
pub mod explain;
pub mod file;
pub mod problem;
pub mod queue;
pub mod report;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod simulate;
