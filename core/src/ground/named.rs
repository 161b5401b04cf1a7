//! Enums written as their snake_case names: the [`Named`] table is the one
//! place each name is spelt. The configuration reader ([`crate::config::value`]), the
//! bindings and serde (through `named_serde!`) all read it, so a name
//! cannot differ between JSON and any language. A leaf: it depends on nothing
//! else in the crate.

use core::fmt;

/// An enum written as its snake_case name.
pub trait Named: Copy + 'static {
    /// Every variant, in the order the error message lists them.
    const ALL: &'static [Self];
    /// The snake_case name.
    fn name(self) -> &'static str;

    /// The variant called `name`, if any.
    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|variant| variant.name() == name)
    }
}

/// serde's `Serialize` and `Deserialize` for a [`Named`] enum, from its table:
/// the name as a string, as `#[serde(rename_all = "snake_case")]` writes a
/// unit variant, and the same error as the derived reader for an unknown name.
macro_rules! named_serde {
    ($type:ty) => {
        impl serde::Serialize for $type {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str($crate::ground::named::Named::name(*self))
            }
        }

        impl<'de> serde::Deserialize<'de> for $type {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                deserializer.deserialize_str($crate::ground::named::NameVisitor(core::marker::PhantomData))
            }
        }
    };
}
pub(crate) use named_serde;

/// Reads a [`Named`] enum from a string (see [`named_serde!`]).
pub(crate) struct NameVisitor<T>(pub(crate) core::marker::PhantomData<T>);

impl<T: Named> serde::de::Visitor<'_> for NameVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a variant name")
    }

    fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<T, E> {
        T::from_name(name).ok_or_else(|| E::custom(UnknownVariant::<T>(name, core::marker::PhantomData)))
    }
}

/// serde's own words for an unknown variant (`Error::unknown_variant`, which
/// needs the names as a static list): "unknown variant `x`, expected `a` or
/// `b`" (one of `a`, `b`, `c` for three or more).
struct UnknownVariant<'a, T>(&'a str, core::marker::PhantomData<T>);

impl<T: Named> fmt::Display for UnknownVariant<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown variant `{}`, ", self.0)?;
        match T::ALL {
            [] => f.write_str("there are no variants"),
            [only] => write!(f, "expected `{}`", only.name()),
            [first, second] => write!(f, "expected `{}` or `{}`", first.name(), second.name()),
            all => {
                f.write_str("expected one of ")?;
                for (index, variant) in all.iter().enumerate() {
                    f.write_str(if index == 0 { "`" } else { ", `" })?;
                    f.write_str(variant.name())?;
                    f.write_str("`")?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::error::ConfigKind;
    use crate::controls::breaker::BreakerState;
    use crate::dialects::aws::ErrorCodeTable;
    use crate::engine::redelivery::DeadLetterReason;
    use crate::ground::codes::{GrpcCode, TransportFailure};
    use crate::headers::retry_after::RetryAfterReading;
    use crate::policy::{AboveCap, BackoffKind, GuidanceMode};
    use crate::{AbortReason, Blame, GiveUpReason, Idempotency, Receipt, Verdict};

    /// Every variant's JSON is its name, and reads back as itself.
    fn round_trips<T>()
    where
        T: Named + serde::Serialize + serde::de::DeserializeOwned + PartialEq + fmt::Debug,
    {
        for variant in T::ALL {
            let json = serde_json::to_string(variant).unwrap();
            assert_eq!(json, format!("\"{}\"", variant.name()));
            assert_eq!(serde_json::from_str::<T>(&json).unwrap(), *variant);
            assert_eq!(T::from_name(variant.name()), Some(*variant));
        }
        assert!(T::ALL.iter().enumerate().all(|(i, a)| T::ALL.iter().skip(i + 1).all(|b| a.name() != b.name())));
    }

    #[test]
    fn every_named_enum_writes_and_reads_its_table_names() {
        round_trips::<GiveUpReason>();
        round_trips::<AbortReason>();
        round_trips::<Receipt>();
        round_trips::<Verdict>();
        round_trips::<GrpcCode>();
        round_trips::<TransportFailure>();
        round_trips::<ErrorCodeTable>();
        round_trips::<RetryAfterReading>();
        round_trips::<BackoffKind>();
        round_trips::<AboveCap>();
        round_trips::<GuidanceMode>();
        round_trips::<Idempotency>();
        round_trips::<BreakerState>();
        round_trips::<DeadLetterReason>();
    }

    /// The error vocabularies have their tables too (written by the bindings, never read back by serde).
    #[test]
    fn blame_and_config_kind_tables_list_every_name_once() {
        for table in [
            Blame::ALL.iter().map(|b| Named::name(*b)).collect::<alloc::vec::Vec<_>>(),
            ConfigKind::ALL.iter().map(|c| Named::name(*c)).collect(),
        ] {
            assert!(table.iter().enumerate().all(|(i, a)| table.iter().skip(i + 1).all(|b| a != b)), "{table:?}");
        }
        assert_eq!(<ConfigKind as Named>::from_name("service_config"), Some(ConfigKind::ServiceConfig));
        assert_eq!(<Blame as Named>::from_name("server"), Some(Blame::Server));
    }

    /// What serde's derive makes of the same names, to compare the words with.
    #[derive(serde::Deserialize, Debug)]
    #[serde(rename_all = "snake_case")]
    enum DerivedAboveCap {
        Clamp,
        GiveUp,
    }

    #[derive(serde::Deserialize, Debug)]
    #[serde(rename_all = "snake_case")]
    enum DerivedVerdict {
        Retryable,
        NotRetryable,
        Conflict,
        Ambiguous,
    }

    #[test]
    fn an_unknown_name_gets_the_words_of_serde_s_derived_reader() {
        for json in ["\"clip\"", "\"\"", "\"Clamp\""] {
            let ours = serde_json::from_str::<AboveCap>(json).unwrap_err().to_string();
            let derived = serde_json::from_str::<DerivedAboveCap>(json).unwrap_err().to_string();
            assert_eq!(ours, derived);
        }
        let ours = serde_json::from_str::<Verdict>("\"maybe\"").unwrap_err().to_string();
        let derived = serde_json::from_str::<DerivedVerdict>("\"maybe\"").unwrap_err().to_string();
        assert_eq!(ours, derived);
        assert!(ours.starts_with("unknown variant `maybe`, expected one of `retryable`"), "{ours}");
        // Not a string at all: serde's words for a wrong type, naming what was expected.
        let error = serde_json::from_str::<Verdict>("3").unwrap_err().to_string();
        assert!(error.starts_with("invalid type: integer `3`, expected a variant name"), "{error}");
    }
}
