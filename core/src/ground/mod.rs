//! Floor 1, the ground: numbers and their limits, text, enums as snake_case
//! names, messages as data, the failure vocabulary's codes, control clocks,
//! deadline arithmetic and the seeded generator. Imports nothing else of the
//! crate.

pub mod clock;
pub mod codes;
pub mod deadline;
pub(crate) mod lock;
pub mod message;
pub mod named;
pub(crate) mod rng;
pub(crate) mod suggest;
pub(crate) mod text;
pub mod units;
pub(crate) mod window;
