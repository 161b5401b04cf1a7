//! gRPC as its users configure it: the service config's retry, hedging and
//! throttling settings ([`ServiceConfig`]), read to the letter of gRFC A6
//! ([`a6`] lists each rule and where the engine carries it).
//!
//! ```
//! use retryplan::dialects::grpc::ServiceConfig;
//! use retryplan::{Dependency, Operation, OperationOptions};
//! let config = ServiceConfig::from_json(r#"{
//!   "methodConfig": [{"name": [{"service": "echo.Echo"}], "timeout": "2s",
//!     "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s",
//!                     "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}],
//!   "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}
//! }"#, Default::default()).unwrap();
//! let policy = config.profile_for("echo.Echo", "Say").unwrap();
//! let throttling = Dependency::new(config.throttling.as_ref().unwrap()).unwrap(); // one per server name
//! let operation = Operation::new(policy, 0, OperationOptions::from_entropy().unwrap().with_dependency(throttling));
//! assert_eq!(operation.deadline_ms(), 2_000);
//! ```

pub mod a6;
mod duration;
mod findings;
pub mod service_config;

pub use findings::ConfigWarning;
pub use service_config::{MethodProfile, ServiceConfig, ServiceConfigOptions, DEFAULT_MAX_ATTEMPTS_CAP};

use alloc::string::String;

/// `path.key`, or `key` at the top level. The key is the config's own
/// spelling (matched without regard to case or underscores), so a path keeps
/// an excerpt of it: a megabyte of underscores never reaches a message.
pub(crate) fn join_path(path: &str, key: &str) -> String {
    crate::config::value::join(path, &crate::ground::text::excerpt(key))
}
