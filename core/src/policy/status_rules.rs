//! Per-status guidance rules: `server_guidance.statuses` in a policy.
//!
//! HTTP clients disagree on which statuses honour `Retry-After` and which are
//! retried only when the server sends guidance (urllib3 and ky: 413, 429 and
//! 503; OkHttp retries a 503 only when told `Retry-After: 0`). A rule names
//! one status and overrides the section's defaults for it:
//!
//! ```json
//! "server_guidance": {
//!   "honor": true, "cap_ms": 60000, "above_cap": "give_up",
//!   "statuses": [
//!     {"status": 413, "requires_guidance": true},
//!     {"status": 503, "requires_guidance": true, "cap_ms": 0}
//!   ]
//! }
//! ```
//!
//! | field | meaning | default |
//! |---|---|---|
//! | `status` | the HTTP status, 100..=599, each at most once | required |
//! | `honor` | this status's guidance is a floor for the delay | the section's `honor` |
//! | `requires_guidance` | a retryable answer with this status is retried only when it carries guidance (a readable `Retry-After`, rate-limit wait, ...); without, it is not retryable | `false` |
//! | `cap_ms` | the longest guidance honoured as given for this status | the section's `cap_ms` |
//! | `above_cap` | what a longer wait does for this status | the section's `above_cap` |
//!
//! A policy holds at most [`MAX_STATUS_RULES`] rules. The default policy has
//! none, so nothing changes unless rules are written.

use alloc::string::String;
use alloc::vec::Vec;

use super::config::{AboveCap, StatusGuidanceConfig};
use crate::config::error::Violation;
use crate::config::value::{item, join};
use crate::ground::message::{message, Message};
use crate::ground::units::MAX_MS;

/// The most per-status rules a policy holds.
pub const MAX_STATUS_RULES: usize = 16;

/// A validated rule, every field resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StatusGuidance {
    /// The HTTP status.
    pub status: u16,
    /// Whether its guidance is honoured.
    pub honor: bool,
    /// Retried only with guidance.
    pub requires_guidance: bool,
    /// Longest guidance honoured as given, in ms.
    pub cap_ms: u64,
    /// What a longer wait does.
    pub above_cap: AboveCap,
}

/// The validated rules of a policy (no heap data, so a policy stays `Copy`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StatusRules {
    rules: [Option<StatusGuidance>; MAX_STATUS_RULES],
    /// The rules written (they fill `rules` from the start): most policies
    /// have none, and an outcome's lookup then costs one comparison.
    len: u8,
}

impl StatusRules {
    /// The rule for `status`, if the policy has one.
    #[must_use]
    pub fn get(&self, status: u16) -> Option<StatusGuidance> {
        if self.len == 0 {
            return None;
        }
        self.rules.iter().take(usize::from(self.len)).flatten().find(|rule| rule.status == status).copied()
    }

    /// The rules in the order written.
    pub fn iter(&self) -> impl Iterator<Item = StatusGuidance> + '_ {
        self.rules.iter().flatten().copied()
    }

    /// The rules as configuration, every field written out.
    #[must_use]
    pub fn to_config(&self) -> Vec<StatusGuidanceConfig> {
        self.iter()
            .map(|rule| StatusGuidanceConfig {
                status: rule.status,
                honor: Some(rule.honor),
                requires_guidance: rule.requires_guidance,
                cap_ms: Some(rule.cap_ms),
                above_cap: Some(rule.above_cap),
            })
            .collect()
    }

    /// Appends a compiled form's rule as read, false when the policy holds
    /// [`MAX_STATUS_RULES`] already: the form's reader checks the status's
    /// range and that no rule names it already (see `compiled/form.md`).
    pub(super) fn push(&mut self, rule: StatusGuidance) -> bool {
        match self.rules.get_mut(usize::from(self.len)) {
            Some(slot) => {
                *slot = Some(rule);
                self.len = self.len.saturating_add(1);
                true
            }
            None => false,
        }
    }

    /// Validates `configs` under the section's defaults; every broken rule is
    /// pushed to `violations`, naming `server_guidance.statuses[i].field`.
    pub(super) fn new(
        configs: &[StatusGuidanceConfig],
        defaults: (bool, u64, AboveCap),
        violations: &mut Vec<Violation>,
    ) -> StatusRules {
        let (honor, cap_ms, above_cap) = defaults;
        let mut rules = StatusRules::default();
        let fail = |violations: &mut Vec<Violation>, field: String, message: Message| {
            violations.push(Violation { field, message });
        };
        if configs.len() > MAX_STATUS_RULES {
            let message = message!(StatusRulesCount, configs.len(), MAX_STATUS_RULES);
            fail(violations, String::from("server_guidance.statuses"), message);
        }
        // Past the most rules only the count is reported (above): the rules
        // themselves are checked up to it, so finding a repeated status (a
        // scan of the rules before) never costs more than 16 x 16 steps.
        for (index, config) in configs.iter().enumerate().take(MAX_STATUS_RULES) {
            let path = item("server_guidance.statuses", index);
            let status_path = join(&path, "status");
            if !(100..=599).contains(&config.status) {
                let message = message!(FieldNotHttpStatus, &status_path, config.status);
                fail(violations, status_path.clone(), message);
            }
            if configs.iter().take(index).any(|earlier| earlier.status == config.status) {
                let message = message!(StatusRuleTwice, &status_path, config.status);
                fail(violations, status_path.clone(), message);
            }
            let rule_cap = config.cap_ms.unwrap_or(cap_ms);
            if rule_cap > MAX_MS {
                let cap_path = join(&path, "cap_ms");
                fail(violations, cap_path.clone(), message!(MsAboveMax, cap_path, rule_cap, MAX_MS));
            }
            let rule = StatusGuidance {
                status: config.status,
                honor: config.honor.unwrap_or(honor),
                requires_guidance: config.requires_guidance,
                cap_ms: rule_cap,
                above_cap: config.above_cap.unwrap_or(above_cap),
            };
            if let Some(slot) = rules.rules.get_mut(index) {
                *slot = Some(rule);
                rules.len = rules.len.saturating_add(1);
            }
        }
        rules
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(status: u16) -> StatusGuidanceConfig {
        StatusGuidanceConfig { status, honor: None, requires_guidance: false, cap_ms: None, above_cap: None }
    }

    #[test]
    fn rules_take_the_section_defaults() {
        let mut violations = Vec::new();
        let configs = [
            StatusGuidanceConfig { requires_guidance: true, ..rule(413) },
            StatusGuidanceConfig { cap_ms: Some(0), ..rule(503) },
        ];
        let rules = StatusRules::new(&configs, (true, 60_000, AboveCap::GiveUp), &mut violations);
        assert!(violations.is_empty());
        let expected = StatusGuidance {
            status: 413,
            honor: true,
            requires_guidance: true,
            cap_ms: 60_000,
            above_cap: AboveCap::GiveUp,
        };
        assert_eq!(rules.get(413), Some(expected));
        assert_eq!(rules.get(503).map(|rule| rule.cap_ms), Some(0));
        assert_eq!(rules.get(429), None);
        assert_eq!(rules.to_config().len(), 2);
    }

    #[test]
    fn bad_rules_name_their_field() {
        let mut violations = Vec::new();
        let configs = [rule(700), rule(503), rule(503), StatusGuidanceConfig { cap_ms: Some(u64::MAX), ..rule(429) }];
        StatusRules::new(&configs, (true, 60_000, AboveCap::GiveUp), &mut violations);
        let fields: Vec<&str> = violations.iter().map(|v| v.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "server_guidance.statuses[0].status",
                "server_guidance.statuses[2].status",
                "server_guidance.statuses[3].cap_ms"
            ]
        );
        let too_many: Vec<StatusGuidanceConfig> = (400..417).map(rule).collect();
        let mut violations = Vec::new();
        StatusRules::new(&too_many, (true, 0, AboveCap::Clamp), &mut violations);
        assert_eq!(violations.first().map(|v| v.field.as_str()), Some("server_guidance.statuses"));
    }
}
