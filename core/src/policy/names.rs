//! The snake_case names of the policy's enums, as JSON spells them: one
//! table per enum, read by `read.rs`, written and read by serde (through
//! `named_serde!`) and used in validation messages.

use super::config::{AboveCap, BackoffKind, GuidanceHeaders, GuidanceMode, HeaderFamily, Idempotency, RetryLayer};
use crate::ground::named::Named;

impl Named for BackoffKind {
    const ALL: &'static [Self] = &[BackoffKind::Exponential, BackoffKind::Linear, BackoffKind::Constant];
    fn name(self) -> &'static str {
        match self {
            BackoffKind::Exponential => "exponential",
            BackoffKind::Linear => "linear",
            BackoffKind::Constant => "constant",
        }
    }
}

crate::ground::named::named_serde!(BackoffKind);

impl Named for AboveCap {
    const ALL: &'static [Self] = &[AboveCap::Clamp, AboveCap::GiveUp];
    fn name(self) -> &'static str {
        match self {
            AboveCap::Clamp => "clamp",
            AboveCap::GiveUp => "give_up",
        }
    }
}

crate::ground::named::named_serde!(AboveCap);

impl Named for Idempotency {
    const ALL: &'static [Self] = &[Idempotency::Safe, Idempotency::Idempotent, Idempotency::Keyed, Idempotency::Unsafe];
    fn name(self) -> &'static str {
        match self {
            Idempotency::Safe => "safe",
            Idempotency::Idempotent => "idempotent",
            Idempotency::Keyed => "keyed",
            Idempotency::Unsafe => "unsafe",
        }
    }
}

crate::ground::named::named_serde!(Idempotency);

/// The names of [`JitterConfig`](super::JitterConfig)'s variants (its `kind` tag).
#[derive(Clone, Copy)]
pub(super) enum JitterKind {
    None,
    Full,
    Equal,
    Decorrelated,
    Proportional,
    A6,
    FullThenCap,
    Polly,
    Additive,
}

impl Named for JitterKind {
    const ALL: &'static [Self] = &[
        JitterKind::None,
        JitterKind::Full,
        JitterKind::Equal,
        JitterKind::Decorrelated,
        JitterKind::Proportional,
        JitterKind::A6,
        JitterKind::FullThenCap,
        JitterKind::Polly,
        JitterKind::Additive,
    ];
    fn name(self) -> &'static str {
        match self {
            JitterKind::None => "none",
            JitterKind::Full => "full",
            JitterKind::Equal => "equal",
            JitterKind::Decorrelated => "decorrelated",
            JitterKind::Proportional => "proportional",
            JitterKind::Polly => "polly",
            JitterKind::A6 => "a6",
            JitterKind::FullThenCap => "full_then_cap",
            JitterKind::Additive => "additive",
        }
    }
}

impl Named for GuidanceMode {
    const ALL: &'static [Self] = &[GuidanceMode::Floor, GuidanceMode::A6, GuidanceMode::Replace];
    fn name(self) -> &'static str {
        match self {
            GuidanceMode::Floor => "floor",
            GuidanceMode::A6 => "a6",
            GuidanceMode::Replace => "replace",
        }
    }
}

crate::ground::named::named_serde!(GuidanceMode);

impl Named for GuidanceHeaders {
    const ALL: &'static [Self] = &[GuidanceHeaders::All, GuidanceHeaders::RetryAfter];
    fn name(self) -> &'static str {
        match self {
            GuidanceHeaders::All => "all",
            GuidanceHeaders::RetryAfter => "retry_after",
        }
    }
}

crate::ground::named::named_serde!(GuidanceHeaders);

impl Named for RetryLayer {
    const ALL: &'static [Self] = &[RetryLayer::Outermost, RetryLayer::Every];
    fn name(self) -> &'static str {
        match self {
            RetryLayer::Outermost => "outermost",
            RetryLayer::Every => "every",
        }
    }
}

crate::ground::named::named_serde!(RetryLayer);

impl Named for HeaderFamily {
    const ALL: &'static [Self] = &[HeaderFamily::Grpc, HeaderFamily::Envoy, HeaderFamily::Retryplan];
    fn name(self) -> &'static str {
        match self {
            HeaderFamily::Grpc => "grpc",
            HeaderFamily::Envoy => "envoy",
            HeaderFamily::Retryplan => "retryplan",
        }
    }
}

crate::ground::named::named_serde!(HeaderFamily);
