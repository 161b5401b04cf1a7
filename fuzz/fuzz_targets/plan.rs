//! The CLI's plan reader (`retryplan check/explain/simulate FILE`) on any
//! text: a bare policy or a plan with policy, profiles, dependency and
//! scenario. What it accepts validates again in the core and explains
//! without a panic; what it refuses lists problems with bounded messages.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retryplan::{explain, Dependency, Policy};
use retryplan_cli::file::{load, FileError, Selection};

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let profile = ["default", "read", "fast", "a"].get(usize::from(flags >> 1) % 5).copied();
    let selection = Selection { profile, all_profiles: flags & 1 == 1 };
    match load(text, &selection) {
        Ok(plan) => {
            let policy = Policy::new(&plan.policy_config).expect("an accepted plan's policy validates");
            assert_eq!(policy.to_config(), plan.policy.to_config());
            Dependency::new(&plan.dependency_config).expect("an accepted plan's dependency validates");
            let timeline = explain(&plan.policy, None, 0).expect("times in range are never refused");
            let _ = retryplan_cli::explain::render(&plan.policy_source, &timeline);
        }
        Err(FileError::Invalid(problems)) => {
            assert!(!problems.is_empty());
            for problem in &problems {
                assert!(problem.field.len() <= 512 && problem.message.len() <= 2048, "{problem:?}");
            }
        }
        Err(FileError::Usage(message) | FileError::Io(message)) => assert!(message.len() <= 2048, "{message}"),
    }
});
