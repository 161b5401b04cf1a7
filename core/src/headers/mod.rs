//! Floor 2, the header and date readers: what servers send (Retry-After and
//! HTTP-dates, RFC 9651 structured fields, rate-limit headers, `grpc-timeout`,
//! AWS error bodies), read on the ground floor alone.

pub(crate) mod email_date;
pub(crate) mod error_body;
pub mod grpc_timeout;
pub(crate) mod http_date;
pub mod rate_limit;
pub mod retry_after;
pub(crate) mod structured_field;
