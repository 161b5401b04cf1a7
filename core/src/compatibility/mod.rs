//! How retryplan reads the retry dialects its users arrive with, and how
//! closely it follows each one.
//!
//! Each page below takes one family of peers (a specification or a library
//! whose documented behaviour users rely on) and lists, rule by rule, where the
//! engine follows it exactly, where it maps it approximately, and where it
//! deliberately does not, with the reason. Every rule marked as followed is
//! pinned by a conformance vector whose description names the section or
//! document it comes from.

#[doc = include_str!("grpc_aws.md")]
pub mod grpc_aws {}

#[doc = include_str!("http_clients.md")]
pub mod http_clients {}

#[doc = include_str!("propagation.md")]
pub mod propagation {}

#[doc = include_str!("telemetry.md")]
pub mod telemetry {}
