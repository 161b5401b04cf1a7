//! Floor 3, reading configurations and their messages: the caller's errors
//! (field, rule, blame), the format-neutral value tree every configuration is
//! read from, AWS error codes, single-use grants and idempotency keys.

pub mod error;
pub mod error_code;
pub mod grant;
pub mod idempotency_key;
pub mod value;
