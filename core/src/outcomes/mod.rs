//! Floor 7, outcomes and answers: an attempt's outcome and its classification
//! by a policy, the failure vocabulary, the HTTP conventions, and what the
//! engine answers (a [`Decision`](crate::Decision), and the one reader of a
//! decision a host hands back, [`Decision::from_value`](crate::Decision::from_value);
//! a driver's [`Action`](crate::Action) and [`Ending`](crate::Ending)). Below
//! [`crate::propagation`] (floor 8), which the engine uses.

pub mod action;
pub mod classify;
pub mod decision;
pub mod decision_kind;
/// [`Decision::from_value`](crate::Decision::from_value): a decision read from the core's data tree.
mod decision_reader;
pub mod failure;
pub mod http;
