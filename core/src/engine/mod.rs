//! Floor 9, the engine: one operation's state machine (outcome in, one
//! decision out), its backoff and server guidance, background redelivery and
//! the counters over many operations. The driver (floor 10,
//! [`crate::driver`]) carries it across a language boundary.

pub mod backoff;
pub(crate) mod guidance;
pub mod operation;
pub mod redelivery;
pub mod stats;
