//! The compiled-form readers on any bytes: `Policy::from_compiled`,
//! `DependencyConfig::from_compiled` and `Dependency::from_compiled`, on the
//! bytes as given and on the bytes behind a header whose checksum is made
//! right (so the fuzzer reaches the body's reader, not only the CRC). What
//! reads writes back to the same bytes and runs an operation; what is
//! refused has its code and a bounded message. Never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retryplan::ground::codes::TransportFailure;
use retryplan::policy::compiled::FORM_VERSION;
use retryplan::{CompiledFormError, Dependency, DependencyConfig, Operation, OperationOptions, Outcome, Policy};

/// CRC-32 (zlib's).
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for byte in bytes {
        crc ^= u32::from(*byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// `body` behind a header of `kind` in this core's version, with its checksum right.
fn sealed(kind: u8, body: &[u8]) -> Vec<u8> {
    let head = [b'r', b'p', kind, FORM_VERSION];
    let covered: Vec<u8> = head.iter().chain(body).copied().collect();
    let mut form = head.to_vec();
    form.extend_from_slice(&crc32(&covered).to_le_bytes());
    form.extend_from_slice(body);
    form
}

fn refused(error: &CompiledFormError) {
    assert!(CompiledFormError::CODES.contains(&error.code()));
    assert!(error.to_string().len() <= 512, "{error}");
}

fn policy(form: &[u8]) {
    match Policy::from_compiled(form) {
        Ok(policy) => {
            assert_eq!(Policy::from_compiled(&policy.to_compiled()), Ok(policy));
            let _ = retryplan::explain(&policy, None, 0);
            let mut operation = Operation::new(&policy, 0, OperationOptions::new(1));
            let mut now = 0;
            for _ in 0..8 {
                match operation.poll(now) {
                    Ok(retryplan::Decision::StartAttempt { attempt, .. }) => {
                        let lost =
                            Outcome::Transport { failure: TransportFailure::ConnectionLost, retry_after_ms: None };
                        let _ = operation.on_outcome(now.saturating_add(5), attempt, &lost);
                    }
                    Ok(retryplan::Decision::Wait { until_ms, .. }) => now = until_ms.max(now),
                    _ => break,
                }
            }
        }
        Err(error) => refused(&error),
    }
}

fn dependency(form: &[u8]) {
    match DependencyConfig::from_compiled(form) {
        Ok(config) => match Dependency::from_compiled(form) {
            Ok(dependency) => {
                assert_eq!(config.to_compiled().as_deref(), Ok(form));
                let _ = dependency.snapshot(0);
            }
            Err(error) => refused(&error),
        },
        Err(error) => refused(&error),
    }
}

fuzz_target!(|data: &[u8]| {
    policy(data);
    dependency(data);
    policy(&sealed(b'p', data));
    dependency(&sealed(b'd', data));
});
