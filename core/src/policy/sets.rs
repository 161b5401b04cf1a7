//! The validated classification sets: HTTP statuses, gRPC codes and
//! transport failures as bit sets, so classifying an outcome is a lookup.

use crate::config::error_code::ErrorCodeTables;
use crate::ground::codes::{GrpcCode, TransportFailure};

/// A set of HTTP statuses (100..=599) as a bit set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HttpStatusSet([u64; 8]);

impl HttpStatusSet {
    /// True when `status` is in the set (false for anything outside 100..=599).
    #[must_use]
    pub fn contains(&self, status: u16) -> bool {
        match status.checked_sub(100) {
            Some(bit) => self.0.get(usize::from(bit / 64)).is_some_and(|word| word & (1 << (bit % 64)) != 0),
            _ => false,
        }
    }

    pub(super) fn insert(&mut self, status: u16) {
        if let Some(bit) = status.checked_sub(100).filter(|bit| *bit < 500) {
            if let Some(word) = self.0.get_mut(usize::from(bit / 64)) {
                *word |= 1 << (bit % 64);
            }
        }
    }

    /// The statuses in ascending order.
    pub fn iter(&self) -> impl Iterator<Item = u16> + '_ {
        (100u16..600).filter(|status| self.contains(*status))
    }
}

/// A set of gRPC codes as a bit set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct GrpcCodeSet(u32);

impl GrpcCodeSet {
    /// True when `code` is in the set.
    #[must_use]
    pub fn contains(&self, code: GrpcCode) -> bool {
        self.0 & (1 << code.number()) != 0
    }

    pub(super) fn insert(&mut self, code: GrpcCode) {
        self.0 |= 1 << code.number();
    }

    /// The codes in ascending numeric order.
    pub fn iter(&self) -> impl Iterator<Item = GrpcCode> + '_ {
        GrpcCode::ALL.into_iter().filter(|code| self.contains(*code))
    }
}

/// A set of transport classes (`TransportFailure`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TransportSet(u8);

impl TransportSet {
    /// True when `failure` is in the set.
    #[must_use]
    pub fn contains(&self, failure: TransportFailure) -> bool {
        self.0 & (1 << failure as u8) != 0
    }

    pub(super) fn insert(&mut self, failure: TransportFailure) {
        self.0 |= 1 << failure as u8;
    }

    /// The kinds in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = TransportFailure> + '_ {
        TransportFailure::ALL.into_iter().filter(|failure| self.contains(*failure))
    }
}

/// Validated classification sets (see [`classify()`](crate::outcomes::classify::classify())).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Classification {
    /// Retryable HTTP statuses.
    pub retry_http: HttpStatusSet,
    /// Retryable gRPC codes.
    pub retry_grpc: GrpcCodeSet,
    /// Retryable transport failures.
    pub retry_transport: TransportSet,
    /// HTTP statuses whose request may have been processed.
    pub ambiguous_http: HttpStatusSet,
    /// gRPC codes whose request may have been processed.
    pub ambiguous_grpc: GrpcCodeSet,
    /// HTTP statuses that mean a conflict.
    pub conflict_http: HttpStatusSet,
    /// gRPC codes that mean a conflict.
    pub conflict_grpc: GrpcCodeSet,
    /// Tables of error codes that are retryable.
    pub retry_error_codes: ErrorCodeTables,
    /// `retry_on.all_server_errors`: every 5xx not in `conflict_http` is in
    /// `retry_http` (kept to write the configuration back as written).
    pub retry_all_server_errors: bool,
}

/// The server errors `retry_on.all_server_errors` retries.
pub(super) const SERVER_ERRORS: core::ops::RangeInclusive<u16> = 500..=599;
