//! Floor 6, the peers' dialects, built on the policy (floor 5, [`crate::policy`]):
//! AWS SDK retry modes, gRPC service configs, urllib3's `Retry`, and the named profiles.

pub mod aws;
pub mod grpc;
pub mod profiles;
pub mod urllib3;
