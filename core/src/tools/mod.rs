//! Floor 11, the tools: `check` (every problem of a configuration in one pass)
//! and `explain`'s worst-case timeline. Nothing in the engine uses them.

pub mod check;
pub mod timeline;
