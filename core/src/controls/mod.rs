//! Floor 4, the shared controls: state many operations share against one
//! dependency (retry budgets, circuit breakers, retry slots, and the
//! dependency holding them). Below the policy: its compiled form carries a
//! dependency's controls, and no control reads a policy.

pub mod breaker;
pub mod budget;
pub mod dependency;
pub mod retry_slots;
