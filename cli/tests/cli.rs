//! The `retryplan` binary, driven as a person or a script would.
//!
//! Golden files live in `tests/golden/`; regenerate them after an intended
//! change with `UPDATE_GOLDEN=1 cargo test -p retryplan-cli --test cli`.

// A test, a benchmark or an example: a panic is its failure report (the workspace denies these elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The workspace root: commands run there so printed paths are stable.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}

struct Output {
    code: i32,
    stdout: String,
    stderr: String,
}

fn retryplan(args: &[&str]) -> Output {
    retryplan_in(&root(), args)
}

/// The binary run with `dir` as its working directory.
fn retryplan_in(dir: &Path, args: &[&str]) -> Output {
    let output =
        Command::new(env!("CARGO_BIN_EXE_retryplan")).args(args).current_dir(dir).output().expect("the binary runs");
    let out = Output {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    assert!(!out.stderr.contains("panicked"), "the binary panicked: {}", out.stderr);
    out
}

fn golden(name: &str, actual: &str) {
    let path = root().join("cli/tests/golden").join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).expect("write golden");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("missing golden {}", path.display()));
    assert_eq!(actual, expected, "output differs from {} (UPDATE_GOLDEN=1 to accept)", path.display());
}

/// A scratch file with this text; its path (absolute).
fn scratch(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("retryplan-cli-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write scratch file");
    path.to_string_lossy().into_owned()
}

fn simulate_json(path: &str, extra: &[&str]) -> Value {
    let mut args = vec!["simulate", path, "--json", "--no-svg"];
    args.extend_from_slice(extra);
    let out = retryplan(&args);
    assert_eq!(out.code, 0, "simulate failed: {}", out.stderr);
    serde_json::from_str(&out.stdout).expect("simulate --json prints JSON")
}

fn variant<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["variants"].as_array().expect("variants").iter().find(|v| v["name"] == name).expect("variant present")
}

fn summary_u64(report: &Value, name: &str, field: &str) -> u64 {
    variant(report, name)["summary"][field].as_u64().unwrap_or_else(|| panic!("{name}.{field}"))
}

// ---------------------------------------------------------------- explain

#[test]
fn explain_the_800_ms_checkout_whose_third_attempt_cannot_run() {
    let out = retryplan(&["explain", "examples/policies/checkout.json", "--first-attempt-at-ms", "50"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("max_attempts is 3 but only 2 attempts fit in 800 ms"));
    assert!(out.stdout.contains("Attempt 3 can never run."));
    golden("explain_checkout_800.txt", &out.stdout);
}

#[test]
fn explain_one_second_times_three_against_a_two_second_deadline() {
    let out = retryplan(&["explain", "cli/tests/fixtures/one_second_x3.json", "--deadline-ms", "2000"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("Unbounded worst case: 3300 ms"));
    assert!(out.stdout.contains("worst case 3300 ms exceeds the 2000 ms deadline"));
    golden("explain_one_second_x3.txt", &out.stdout);
}

#[test]
fn explain_warns_when_the_guidance_cap_is_longer_than_the_budget() {
    let out = retryplan(&["explain", "cli/tests/fixtures/guidance_cap.json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("server_guidance.cap_ms (60000 ms) is not shorter than the whole 5000 ms deadline"));
    golden("explain_guidance_cap.txt", &out.stdout);
}

#[test]
fn explain_numbers_attempts_and_waits_from_one() {
    let out = retryplan(&["explain", "cli/tests/fixtures/one_second_x3.json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("attempt 1, effective timeout 1000 ms"), "{}", out.stdout);
    assert!(out.stdout.contains("wait 1, before attempt 2: 100 ms"), "{}", out.stdout);
    assert!(out.stdout.contains("wait 2, before attempt 3: 200 ms"), "{}", out.stdout);
    assert!(!out.stdout.contains("retry 0"), "{}", out.stdout);
    assert!(!out.stdout.contains("attempt(s)"), "{}", out.stdout);
}

#[test]
fn explain_strict_fails_on_warnings_only() {
    let warned = retryplan(&["explain", "examples/policies/checkout.json", "--first-attempt-at-ms", "50", "--strict"]);
    assert_eq!(warned.code, 1, "{}", warned.stderr);
    assert!(warned.stdout.contains("Warnings:"), "the timeline is still printed");
    assert!(warned.stderr.contains("1 warning, and --strict fails on warnings"), "{}", warned.stderr);
    let json =
        retryplan(&["explain", "examples/policies/checkout.json", "--first-attempt-at-ms", "50", "--json", "--strict"]);
    assert_eq!(json.code, 1, "--json --strict too");
    let clean = scratch(
        "clean.json",
        r#"{"max_attempts": 2, "total_timeout_ms": 5000, "attempt_timeout": {"fixed_ms": 1000},
            "server_guidance": {"honor": true, "cap_ms": 1000, "above_cap": "give_up"}}"#,
    );
    let fine = retryplan(&["explain", &clean, "--strict"]);
    assert_eq!(fine.code, 0, "{}{}", fine.stdout, fine.stderr);
    assert!(fine.stdout.contains("No warnings."), "{}", fine.stdout);
    assert_eq!(retryplan(&["explain", "examples/policies/checkout.json"]).code, 0, "warnings alone exit 0");
}

#[test]
fn explain_json_is_the_core_timeline() {
    let out = retryplan(&["explain", "examples/policies/checkout.json", "--first-attempt-at-ms", "50", "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let timeline: Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(timeline["deadline_ms"], 800);
    assert_eq!(timeline["attempts_that_fit"], 2);
    assert_eq!(timeline["ending"]["reason"], "deadline_insufficient");
    assert_eq!(timeline["warnings"][0]["type"], "attempts_do_not_fit");
    // The same as the library's own answer, field for field.
    let policy = retryplan::Policy::from_json(
        &std::fs::read_to_string(root().join("examples/policies/checkout.json")).expect("read"),
    )
    .expect("valid");
    let expected = serde_json::to_value(retryplan::explain(&policy, None, 50).expect("in range")).expect("serialize");
    assert_eq!(timeline, expected);
    golden("explain_checkout_800.json", &out.stdout);
}

#[test]
fn explain_picks_a_profile_from_the_file() {
    let path = scratch(
        "profiles.json",
        r#"{"profiles": {"fast": {"max_attempts": 2, "total_timeout_ms": 500, "attempt_timeout": {"fixed_ms": 100}},
                         "slow": {"max_attempts": 5, "total_timeout_ms": 1000, "attempt_timeout": {"fixed_ms": 400}}}}"#,
    );
    let out = retryplan(&["explain", &path, "--profile", "slow", "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let timeline: Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(timeline["configured_attempts"], 5);
    let ambiguous = retryplan(&["explain", &path]);
    assert_eq!(ambiguous.code, 2);
    assert!(ambiguous.stderr.contains("choose one with --profile (fast, slow)"), "{}", ambiguous.stderr);
    let unknown = retryplan(&["explain", &path, "--profile", "nope"]);
    assert_eq!(unknown.code, 2);
    assert!(unknown.stderr.contains("no profile `nope`"), "{}", unknown.stderr);
    let other_case = retryplan(&["explain", &path, "--profile", "Slow"]);
    assert_eq!(other_case.code, 2);
    assert!(other_case.stderr.contains("no profile `Slow` (did you mean `slow`?)"), "{}", other_case.stderr);
}

// ---------------------------------------------------------------- check

#[test]
fn check_accepts_the_examples() {
    let plan = retryplan(&["check", "examples/checkout.json"]);
    assert_eq!((plan.code, plan.stdout.as_str()), (0, "examples/checkout.json: ok (policy, dependency, scenario)\n"));
    let bare = retryplan(&["check", "examples/policies/checkout.json"]);
    assert_eq!((bare.code, bare.stdout.as_str()), (0, "examples/policies/checkout.json: ok (policy)\n"));
}

#[test]
fn check_lists_every_problem_with_its_field_and_rule() {
    let out = retryplan(&["check", "cli/tests/fixtures/invalid.json"]);
    assert_eq!(out.code, 1);
    golden("check_invalid.txt", &out.stdout);
}

#[test]
fn max_attempts_beyond_any_count_is_refused_with_the_policy_s_own_rule_not_the_u32_range() {
    for (written, shown) in [("4294967296", "4294967296"), ("-1", "-1"), ("\"3\"", "the string \"3\"")] {
        let path = scratch("attempts.json", &format!(r#"{{"policy": {{"max_attempts": {written}}}}}"#));
        let out = retryplan(&["check", &path]);
        assert_eq!(out.code, 1, "{}", out.stdout);
        let expected = format!(
            "policy.max_attempts ({shown}) must be a whole number in 1..=128 (it counts the first attempt: 3 means up to 2 retries)"
        );
        assert_eq!(out.stdout.lines().nth(1).map(str::trim_start), Some(expected.as_str()), "{}", out.stdout);
    }
}

#[test]
fn a_whole_number_beyond_any_count_is_refused_with_its_field_s_own_rule_not_the_u32_range() {
    // Each field with a rule of its own, in a plan that is otherwise valid: what no u32 holds states
    // the rule its validation states for 0 (or one past its range), at the same field.
    let scenario = |field: &str, value: &str| {
        let (clients, workers, layers) = match field {
            "clients" => (value, "4", "2"),
            "capacity.workers" => ("1", value, "2"),
            _ => ("1", "4", value),
        };
        format!(
            r#"{{"policy": {{}}, "scenario": {{"duration_ms": 1000, "arrivals_per_second": 1, "clients": {clients},
                "capacity": {{"workers": {workers}, "queue_limit": 4}}, "service_time": {{"kind": "constant", "ms": 10}},
                "layers": {layers}}}}}"#
        )
    };
    let policy = |field: &str, value: &str| match field {
        "retry_limits.connect" => format!(r#"{{"policy": {{"retry_limits": {{"connect": {value}}}}}}}"#),
        _ => format!(
            r#"{{"policy": {{"idempotency": "idempotent", "hedging": {{"delay_ms": 10, "max_hedged_attempts": {value}}}}}}}"#
        ),
    };
    let dependency = |_: &str, value: &str| {
        format!(
            r#"{{"policy": {{}}, "dependency": {{"budget": {{"kind": "token_bucket", "max_tokens": {value}, "token_ratio": 1}}}}}}"#
        )
    };
    // A plan with `value` written for the field.
    type Plan = fn(&str, &str) -> String;
    let plans: [(&str, &str, &str, Plan); 6] = [
        ("scenario.clients", "0", "must be a whole number in 1..=100000", scenario),
        ("scenario.capacity.workers", "0", "must be a whole number in 1..=1000000", scenario),
        ("scenario.layers", "0", "must be a whole number in 1..=6", scenario),
        (
            "policy.retry_limits.connect",
            "128",
            "must be a whole number in 0..=127 (no policy makes more attempts)",
            policy,
        ),
        ("policy.hedging.max_hedged_attempts", "0", "must be a whole number in 1..=4", policy),
        ("dependency.budget.max_tokens", "0", "must be a whole number in 1..=1000", dependency),
    ];
    for (field, refused, rule, plan) in plans {
        let inner = field.split_once('.').map_or(field, |(_, inner)| inner);
        for (written, shown) in
            [(refused, refused), ("4294967296", "4294967296"), ("-1", "-1"), ("\"3\"", "the string \"3\"")]
        {
            let path = scratch("whole_numbers.json", &plan(inner, written));
            let out = retryplan(&["check", &path]);
            assert_eq!(out.code, 1, "{field} {written}: {}", out.stdout);
            let expected = format!("{field} ({shown}) {rule}");
            assert_eq!(out.stdout.lines().nth(1).map(str::trim_start), Some(expected.as_str()), "{}", out.stdout);
        }
    }
    // A field whose rule is the u32's own keeps its words.
    let path =
        scratch("queue_limit.json", &scenario("clients", "1").replace(r#""queue_limit": 4"#, r#""queue_limit": -1"#));
    let out = retryplan(&["check", &path]);
    assert!(out.stdout.contains("expected a whole number from 0 to 4294967295, found the number -1"), "{}", out.stdout);
}

#[test]
fn check_reports_every_problem_in_one_run_with_suggestions() {
    // The issue's file: a misspelt field, a jitter name where an object goes,
    // and a cap below the base. One run, three problems, exit 1.
    let path = scratch(
        "three.json",
        r#"{"max_attempt": 3, "total_timeout_ms": 800, "jitter": "full",
            "backoff": {"kind": "exponential", "base_ms": 200, "multiplier": 2.0, "cap_ms": 100}}"#,
    );
    let out = retryplan(&["check", &path]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "a header and three problems:\n{}", out.stdout);
    assert!(lines[0].ends_with("invalid, 3 problems"), "{}", lines[0]);
    assert!(
        lines[1].starts_with("  max_attempt: unknown field `max_attempt` (did you mean `max_attempts`?)"),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2], r#"  jitter: expected an object, found the string "full" (did you mean `{"kind": "full"}`?)"#);
    // A rule names its field: the path is said once.
    assert_eq!(lines[3], "  backoff.cap_ms (100) must be >= backoff.base_ms (200)");
    // explain and simulate refuse the file with the same list.
    for command in ["explain", "simulate"] {
        let refused = retryplan(&[command, &path]);
        assert_eq!(refused.code, 1, "{command}");
        assert_eq!(refused.stderr, out.stdout, "{command}");
    }
}

#[test]
fn check_reads_on_past_structural_problems_in_every_section() {
    let path = scratch(
        "many.json",
        r#"{"policy": {"max_attempts": "3", "jitter": {"kind": "ful"}, "backoff": {"base_ms": 200, "cap_ms": 100}},
            "dependancy": {},
            "dependency": {"budgett": {}, "retry_slots": -1},
            "scenario": {"duration_ms": 1000, "arrivals_per_second": 1, "capacity": {"workers": 0, "queue_limit": 0, "extra": 1},
                         "service_time": {"kind": "constant", "ms": 1}, "outage": true,
                         "phases": [{"kind": "outag", "from_ms": 1, "to_ms": 2}]}}"#,
    );
    let out = retryplan(&["check", &path]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    let fields: Vec<&str> =
        out.stdout.lines().skip(1).filter_map(|line| line.trim_start().split([':', ' ']).next()).collect();
    assert_eq!(
        fields,
        [
            "dependancy",
            "policy.max_attempts",
            "policy.jitter.kind",
            "policy.backoff.cap_ms",
            "dependency.budgett",
            "dependency.retry_slots",
            "scenario.capacity.extra",
            "scenario.outage",
            "scenario.phases[0].kind",
            "scenario.capacity.workers",
        ],
        "{}",
        out.stdout
    );
    for suggestion in
        ["did you mean `dependency`?", "did you mean `full`?", "did you mean `budget`?", "did you mean `outage`?"]
    {
        assert!(out.stdout.contains(suggestion), "{suggestion}:\n{}", out.stdout);
    }
}

#[test]
fn check_refuses_a_retry_after_on_an_outage_that_sends_no_503() {
    // A Retry-After rides on a 503: an outage that stalls or restarts sends none, so the field was read and then
    // ignored (the run and its report as if it were absent). It is refused, naming it; under `unavailable` it counts.
    let phases = |failure: &str| {
        format!(
            r#"{{"policy": {{}}, "scenario": {{"duration_ms": 10000, "arrivals_per_second": 10, "capacity": {{"workers": 4, "queue_limit": 10}},
                "service_time": {{"kind": "constant", "ms": 10}},
                "phases": [{{"kind": "outage", "from_ms": 1000, "to_ms": 2000, "failure": "{failure}", "retry_after_ms": 500}}]}}}}"#
        )
    };
    for failure in ["timeout", "restart"] {
        let out = retryplan(&["check", &scratch(&format!("retry_after_{failure}.json"), &phases(failure))]);
        assert_eq!(out.code, 1, "{}", out.stdout);
        assert!(
            out.stdout.contains(&format!(
                "scenario.phases[0].retry_after_ms is read only with failure unavailable (a 503 carries it): failure {failure} sends no response, so it would be ignored"
            )),
            "{}",
            out.stdout
        );
    }
    let out = retryplan(&["check", &scratch("retry_after_unavailable.json", &phases("unavailable"))]);
    assert_eq!(out.code, 0, "{}", out.stdout);
}

#[test]
fn check_quotes_a_huge_slowdown_in_a_few_digits() {
    // 1e308 was quoted in all its 309 digits.
    let path = scratch(
        "huge_slowdown.json",
        r#"{"policy": {}, "scenario": {"duration_ms": 10000, "arrivals_per_second": 10, "capacity": {"workers": 4, "queue_limit": 10},
            "service_time": {"kind": "constant", "ms": 10},
            "phases": [{"kind": "brownout", "from_ms": 1000, "to_ms": 2000, "slowdown": 1e308}]}}"#,
    );
    let out = retryplan(&["check", &path]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(out.stdout.contains("scenario.phases[0].slowdown (1e308) must be a number in [1, 1000]"), "{}", out.stdout);
}

#[test]
fn check_reports_structural_and_rule_problems_in_one_run_each_once_at_its_own_path() {
    // Issue 25: a ratio of 1.5 under a misspelt name, a negative time, a misspelt
    // service-time kind, a phase named as the report names it, a phase that ends
    // before it starts and a slowdown below 1, behind the bad phase: one run.
    let path = scratch(
        "one_run.json",
        r#"{"policy": {"max_attempts": 3, "total_timeout_ms": 1000, "backoff": {"kind": "exponential", "base_ms": -5}},
            "dependency": {"budget": {"kind": "ratio", "ratio": 1.5, "min_retries_per_second": 1, "window_ms": 1000}},
            "scenario": {"duration_ms": 10000, "arrivals_per_second": 100, "capacity": {"workers": 4, "queue_limit": 10},
                         "service_time": {"kind": "constnt", "ms": 10},
                         "phases": [{"kind": "stall", "from_ms": 5000, "to_ms": 6000},
                                    {"kind": "outage", "from_ms": 7000, "to_ms": 6500, "failure": "timeout"},
                                    {"kind": "brownout", "from_ms": 8000, "to_ms": 9000, "slowdown": 0.5}]}}"#,
    );
    let out = retryplan(&["check", &path]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    let lines: Vec<&str> = out.stdout.lines().skip(1).map(str::trim_start).collect();
    assert_eq!(
        lines,
        [
            "policy.backoff.base_ms: expected a whole number of milliseconds, 0 or more, found the number -5",
            "dependency.budget.ratio: unknown field `ratio` (did you mean `retry_ratio`?), expected one of `kind`, `retry_ratio`, `min_retries_per_second`, `window_ms`",
            "dependency.budget.ratio (1.5) must be a number in [0, 1]",
            "scenario.service_time.kind: unknown variant `constnt` (did you mean `constant`?), expected one of `constant`, `uniform`, `exponential`",
            r#"scenario.phases[0].kind: unknown variant `stall`, expected `outage` or `brownout`: a stall is written `{"kind": "outage", "failure": "timeout", ...}`"#,
            "scenario.phases[1].to_ms (6500) must be > from_ms (7000)",
            "scenario.phases[2].slowdown (0.5) must be a number in [1, 1000]",
        ],
        "{}",
        out.stdout
    );
    // A scenario's negative time is said the same way as the core's.
    let negative = scratch(
        "negative.json",
        r#"{"policy": {}, "scenario": {"duration_ms": -5, "arrivals_per_second": 1, "capacity": {"workers": 0, "queue_limit": 1},
            "service_time": {"kind": "constant", "ms": 1}}}"#,
    );
    let out = retryplan(&["check", &negative]);
    let lines: Vec<&str> = out.stdout.lines().skip(1).map(str::trim_start).collect();
    assert_eq!(
        lines,
        [
            "scenario.duration_ms: expected a whole number of milliseconds, 0 or more, found the number -5",
            "scenario.capacity.workers (0) must be a whole number in 1..=1000000",
        ],
        "{}",
        out.stdout
    );
}

#[test]
fn check_warns_when_attempts_cannot_fit_and_explain_never_warns_about_an_unwritten_default() {
    // 5 attempts of 400 ms in 1000 ms: only 2 fit. Valid (exit 0), with a warning.
    let path = scratch(
        "two_of_five.json",
        r#"{"max_attempts": 5, "total_timeout_ms": 1000, "attempt_timeout": {"fixed_ms": 400}}"#,
    );
    let out = retryplan(&["check", &path]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stdout.ends_with(
            "1 warning:\n  max_attempts is 5 but only 2 attempts fit in 1000 ms: attempts 3 to 5 can never run (`retryplan explain` shows the worst case)\n"
        ),
        "{}",
        out.stdout
    );
    let fits =
        scratch("fits.json", r#"{"max_attempts": 2, "total_timeout_ms": 1000, "attempt_timeout": {"fixed_ms": 400}}"#);
    let out = retryplan(&["check", &fits]);
    assert_eq!(out.stdout.lines().count(), 1, "no warning: {}", out.stdout);
    // The default server_guidance.cap_ms (60 s) is longer than this 1 s total timeout, but the file
    // does not write it: --strict passes (and fails once the file writes the same cap).
    let out = retryplan(&["explain", &fits, "--strict"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("No warnings."), "{}", out.stdout);
    let written = scratch(
        "cap_written.json",
        r#"{"max_attempts": 2, "total_timeout_ms": 1000, "attempt_timeout": {"fixed_ms": 400}, "server_guidance": {"cap_ms": 60000}}"#,
    );
    let out = retryplan(&["explain", &written, "--strict"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(out.stdout.contains("server_guidance.cap_ms (60000 ms) is not shorter than the whole 1000 ms deadline"));
}

#[test]
fn check_validates_every_profile() {
    let path = scratch(
        "bad_profile.json",
        r#"{"profiles": {"good": {}, "bad": {"backoff": {"base_ms": 200, "cap_ms": 100}}}}"#,
    );
    let out = retryplan(&["check", &path]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains("  profiles.bad.backoff.cap_ms (100) must be >= backoff.base_ms (200)\n"),
        "{}",
        out.stdout
    );
    let only_good = retryplan(&["check", &path, "--profile", "good"]);
    assert_eq!(only_good.code, 0, "{}", only_good.stdout);
}

// ---------------------------------------------------------------- compile

#[test]
fn compile_writes_the_cores_compiled_form_as_base64_or_raw_bytes() {
    let policy_path = "examples/policies/checkout.json";
    let text = retryplan(&["compile", policy_path]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert_eq!(text.stdout.lines().count(), 1, "{}", text.stdout);
    let out_path = scratch("checkout.rpc", "");
    let raw = retryplan(&["compile", policy_path, "--out", &out_path]);
    assert_eq!((raw.code, raw.stdout.as_str()), (0, ""), "{}", raw.stderr);
    let bytes = std::fs::read(&out_path).expect("the form was written");
    assert!(raw.stderr.contains(&format!("{} bytes written to {out_path}", bytes.len())), "{}", raw.stderr);
    // The text is the bytes in base64, and the bytes read back as the policy the JSON is.
    assert_eq!(text.stdout, format!("{}\n", retryplan_cli::compile::base64(&bytes)));
    let json = std::fs::read_to_string(root().join(policy_path)).expect("readable");
    let policy = retryplan::Policy::from_json(&json).expect("valid");
    assert_eq!(retryplan::Policy::from_compiled(&bytes), Ok(policy));
    assert!(bytes.len() * 4 < json.len(), "{} bytes against {} of JSON", bytes.len(), json.len());
}

#[test]
fn compile_picks_the_plans_policy_or_a_profile() {
    let path = scratch(
        "compile_profiles.json",
        r#"{"policy": {"max_attempts": 2}, "profiles": {"read": {"max_attempts": 5}}}"#,
    );
    let path = path.as_str();
    let read_back = |args: &[&str]| {
        let out_path = scratch(&format!("compile_{}.rpc", args.len()), "");
        let mut all = vec!["compile", path, "--out", out_path.as_str()];
        all.extend_from_slice(args);
        let out = retryplan(&all);
        assert_eq!(out.code, 0, "{}", out.stderr);
        retryplan::Policy::from_compiled(&std::fs::read(&out_path).expect("written")).expect("a compiled policy")
    };
    assert_eq!(read_back(&[]).max_attempts(), 2);
    assert_eq!(read_back(&["--profile", "read"]).max_attempts(), 5);
}

#[test]
fn compile_dependency_writes_the_plans_shared_controls() {
    let out_path = scratch("checkout_dependency.rpc", "");
    let out = retryplan(&["compile", "examples/checkout.json", "--dependency", "--out", &out_path]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("dependency compiled"), "{}", out.stderr);
    let form = std::fs::read(&out_path).expect("written");
    let plan: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("examples/checkout.json")).unwrap()).unwrap();
    let config = retryplan::DependencyConfig::from_json(&plan["dependency"].to_string()).expect("valid");
    assert_eq!(retryplan::DependencyConfig::from_compiled(&form), Ok(config));
    // A valid file without the section asked for is a usage error (2), as an
    // unknown profile is, not an invalid file (1): `check` calls it ok.
    let none = retryplan(&["compile", "examples/policies/checkout.json", "--dependency"]);
    assert_eq!((none.code, none.stdout.as_str()), (2, ""), "{}", none.stderr);
    assert!(
        none.stderr.starts_with(
            "retryplan: examples/policies/checkout.json: compile --dependency needs a `dependency` section"
        ),
        "{}",
        none.stderr
    );
    assert!(!none.stderr.contains("invalid"), "{}", none.stderr);
    assert_eq!(retryplan(&["check", "examples/policies/checkout.json"]).code, 0);
}

#[test]
fn empty_profiles_are_the_one_problem_of_a_plan_that_has_only_them() {
    for (text, problem) in [
        (r#"{"profiles": {}}"#, "profiles must name at least one policy"),
        (r#"{"profiles": 3}"#, "profiles must be an object of named policies"),
    ] {
        let path = scratch("empty_profiles.json", text);
        let out = retryplan(&["check", &path]);
        assert_eq!(out.code, 1, "{text}: {}", out.stdout);
        assert_eq!(out.stdout, format!("{path}: invalid, 1 problem\n  {problem}\n"), "{text}");
    }
    let path = scratch("no_policy.json", r#"{"scenario": {}}"#);
    let out = retryplan(&["check", &path]);
    assert!(out.stdout.contains("policy: the plan has no `policy` and no `profiles`"), "{}", out.stdout);
}

#[test]
fn compile_refuses_what_check_refuses_with_the_same_problems() {
    let check = retryplan(&["check", "cli/tests/fixtures/invalid.json"]);
    let out_path = scratch("never_written.rpc", "");
    std::fs::remove_file(&out_path).expect("removable");
    let compile = retryplan(&["compile", "cli/tests/fixtures/invalid.json", "--out", &out_path]);
    assert_eq!((compile.code, compile.stdout.as_str()), (1, ""));
    // check prints its problems as its output; compile's output is the form, so they go to stderr.
    assert_eq!(compile.stderr, check.stdout);
    assert!(compile.stderr.contains("policy.backoff.cap_ms (100) must be >= backoff.base_ms (200)"));
    assert!(!Path::new(&out_path).exists(), "nothing is written for an invalid policy");
    let misspelt = scratch("misspelt.json", r#"{"max_attemps": 3}"#);
    let out = retryplan(&["compile", &misspelt]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("max_attemps"), "{}", out.stderr);
    let missing = retryplan(&["compile", "no/such/file.json"]);
    assert_eq!(missing.code, 2);
    let unwritable = retryplan(&["compile", "examples/policies/checkout.json", "--out", "no/such/dir/x.rpc"]);
    assert_eq!(unwritable.code, 2);
    assert!(unwritable.stderr.contains("cannot write no/such/dir/x.rpc"), "{}", unwritable.stderr);
}

// ---------------------------------------------------------------- bad input

#[test]
fn bad_input_is_a_clear_message_and_a_non_zero_exit() {
    let cases: &[(&str, &str, i32, &str)] = &[
        ("malformed.json", r#"{"policy": {"max_attempts": 3"#, 1, "not valid JSON"),
        ("empty.json", "", 1, "not valid JSON"),
        ("list.json", "[1, 2]", 1, "must hold one JSON object"),
        (
            "repeated.json",
            r#"{"policy": {"max_attempts": 3, "backoff": {"base_ms": 10, "base_ms": 20}}}"#,
            1,
            "policy.backoff.base_ms: duplicate field `base_ms`",
        ),
        ("typo.json", r#"{"max_attemps": 3}"#, 1, "max_attemps: unknown field `max_attemps`"),
        ("top_typo.json", r#"{"policy": {}, "scenaro": {}}"#, 1, "unknown top-level field `scenaro`"),
        ("mixed.json", r#"{"policy": {}, "max_attempts": 3}"#, 1, "unknown top-level field `max_attempts`"),
        ("wrong_type.json", r#"{"policy": {"max_attempts": "three"}}"#, 1, "policy.max_attempts"),
        ("dep_typo.json", r#"{"dependency": {"budgett": {}}}"#, 1, "dependency.budgett"),
        (
            "scenario_typo.json",
            r#"{"scenario": {"duration_ms": 1000, "arrivals_per_second": 1, "capacity": {"workers": 1, "queue_limit": 0},
                "service_time": {"kind": "constant", "ms": 1}, "outage": true}}"#,
            1,
            "unknown field `outage`",
        ),
        (
            "phase_after_end.json",
            r#"{"scenario": {"duration_ms": 1000, "arrivals_per_second": 1, "capacity": {"workers": 1, "queue_limit": 0},
                "service_time": {"kind": "constant", "ms": 1},
                "phases": [{"kind": "outage", "from_ms": 500, "to_ms": 2000, "failure": "timeout"}]}}"#,
            1,
            "scenario.phases[0].to_ms (2000) must be <= duration_ms (1000)",
        ),
        (
            "backwards_phase.json",
            r#"{"scenario": {"duration_ms": 1000, "arrivals_per_second": 1, "capacity": {"workers": 1, "queue_limit": 0},
                "service_time": {"kind": "constant", "ms": 1},
                "phases": [{"kind": "brownout", "from_ms": 500, "to_ms": 500, "slowdown": 2}]}}"#,
            1,
            "scenario.phases[0].to_ms (500) must be > from_ms (500)",
        ),
        (
            "no_arrivals.json",
            r#"{"scenario": {"duration_ms": 1000, "arrivals_per_second": 0, "capacity": {"workers": 1, "queue_limit": 0},
                "service_time": {"kind": "constant", "ms": 1}}}"#,
            1,
            "scenario.arrivals_per_second (0) must be a number > 0",
        ),
        (
            "too_big.json",
            r#"{"scenario": {"duration_ms": 86400000, "arrivals_per_second": 1000000, "capacity": {"workers": 1, "queue_limit": 0},
                "service_time": {"kind": "constant", "ms": 1}}}"#,
            1,
            "at most 2000000 per run (the simulator's memory bound)",
        ),
        (
            "over_memory_bound.json",
            r#"{"scenario": {"duration_ms": 1200000, "arrivals_per_second": 2000, "capacity": {"workers": 1, "queue_limit": 0},
                "service_time": {"kind": "constant", "ms": 1}}}"#,
            1,
            "scenario.arrivals_per_second (2000) over duration_ms (1200000) makes 2400000 operations; at most 2000000 per run",
        ),
        (
            "over_work_bound.json",
            r#"{"policy": {"max_attempts": 100},
                "scenario": {"duration_ms": 60000, "arrivals_per_second": 1000, "capacity": {"workers": 1, "queue_limit": 0},
                "service_time": {"kind": "constant", "ms": 1}, "layers": 2}}"#,
            1,
            "makes 60000 operations of up to 10000 attempts each (max_attempts 100 of policy, 2 layer(s)): 600000000 attempts; at most 50000000 per variant (the simulator's work bound)",
        ),
        (
            "negative.json",
            r#"{"scenario": {"duration_ms": -5, "arrivals_per_second": 1, "capacity": {"workers": 1, "queue_limit": 0},
                "service_time": {"kind": "constant", "ms": 1}}}"#,
            1,
            "scenario.duration_ms",
        ),
    ];
    for (name, text, code, message) in cases {
        let path = scratch(name, text);
        for command in ["check", "explain", "simulate"] {
            let out = retryplan(&[command, &path]);
            let all = format!("{}{}", out.stdout, out.stderr);
            assert_eq!(out.code, *code, "{command} {name}: {all}");
            assert!(all.contains(message), "{command} {name}: expected {message:?} in {all}");
        }
    }
}

#[test]
fn usage_and_io_errors_exit_with_two() {
    let missing = retryplan(&["check", "no/such/file.json"]);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("cannot read no/such/file.json"), "{}", missing.stderr);
    assert_eq!(retryplan(&["explain"]).code, 2, "missing argument");
    let unknown = retryplan(&["frobnicate"]);
    assert_eq!(unknown.code, 2, "unknown command");
    assert!(
        unknown.stderr.contains("unrecognized subcommand 'frobnicate'") && unknown.stdout.is_empty(),
        "{}",
        unknown.stderr
    );
    // Help and the version are no error: on stdout, exit 0.
    let help = retryplan(&["--help"]);
    assert_eq!(help.code, 0, "{}", help.stderr);
    assert!(help.stdout.starts_with("See what a retry policy does") && help.stderr.is_empty(), "{}", help.stdout);
    let version = retryplan(&["--version"]);
    assert_eq!((version.code, version.stdout.as_str()), (0, concat!("retryplan ", env!("CARGO_PKG_VERSION"), "\n")));
    let variant = retryplan(&["simulate", "examples/checkout.json", "--variants", "as-written,bogus"]);
    assert_eq!(variant.code, 2);
    assert!(variant.stderr.contains("unknown variant `bogus`"), "{}", variant.stderr);
}

#[test]
fn simulate_needs_a_scenario_and_a_simulable_depth() {
    let out = retryplan(&["simulate", "examples/policies/checkout.json"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("simulate needs a `scenario`"), "{}", out.stderr);
    let deep = scratch(
        "deep.json",
        r#"{"policy": {"max_attempts": 100},
            "scenario": {"duration_ms": 1000, "arrivals_per_second": 1, "capacity": {"workers": 1, "queue_limit": 0},
                         "service_time": {"kind": "constant", "ms": 1}, "layers": 3}}"#,
    );
    let out = retryplan(&["simulate", &deep, "--no-svg"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("could send 100^3 attempts per operation"), "{}", out.stderr);
    // `check` refuses what `simulate` would refuse, naming the field and the bound.
    let out = retryplan(&["check", &deep]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("scenario.layers"), "{}", out.stdout);
    assert!(out.stdout.contains("at most 100000 are simulated"), "{}", out.stdout);
}

// ---------------------------------------------------------------- simulate

/// Every operation fails: a 503 outage over the whole run, arrivals only at
/// t = 0 (`clients` operations at once), no shared controls, waits of 1 ms.
fn all_fail(max_attempts: u32, layers: u32, propagate_deadline: bool) -> String {
    scratch(
        &format!("all_fail_{max_attempts}_{layers}_{propagate_deadline}.json"),
        &format!(
            r#"{{
  "policy": {{"max_attempts": {max_attempts}, "total_timeout_ms": 60000, "attempt_timeout": {{"fixed_ms": 10000}},
             "response_reserve_ms": 0, "minimum_useful_attempt_ms": 1,
             "backoff": {{"kind": "constant", "base_ms": 1, "multiplier": 1.0, "cap_ms": 1}}, "jitter": {{"kind": "none"}}}},
  "scenario": {{"duration_ms": 10000, "arrivals_per_second": 0.5, "arrival": "synchronized", "clients": 5,
               "capacity": {{"workers": 10, "queue_limit": 100}}, "service_time": {{"kind": "constant", "ms": 1}},
               "layers": {layers}, "propagate_deadline": {propagate_deadline},
               "phases": [{{"kind": "outage", "from_ms": 0, "to_ms": 10000, "failure": "unavailable"}}]}}
}}"#
        ),
    )
}

#[test]
fn layered_retries_multiply_to_27_and_64_when_everything_fails() {
    for (attempts, expected, propagate) in [(3, 27, true), (4, 64, true), (3, 27, false), (4, 64, false)] {
        let path = all_fail(attempts, 3, propagate);
        let report = simulate_json(&path, &["--variants", "as-written,layered"]);
        let operations = summary_u64(&report, "layered", "operations");
        assert_eq!(operations, 5);
        assert_eq!(
            summary_u64(&report, "layered", "attempts"),
            expected * operations,
            "{attempts}x{attempts}x{attempts}"
        );
        assert_eq!(variant(&report, "layered")["summary"]["amplification"], f64::from(expected as u32));
        assert_eq!(summary_u64(&report, "as-written", "attempts"), u64::from(attempts) * operations);
        assert_eq!(summary_u64(&report, "layered", "succeeded"), 0);
    }
}

#[test]
fn simulate_is_deterministic_for_a_seed() {
    // The example's world, shorter: a restart, then a 5 s stall in 30 s, every variant.
    let example: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("examples/checkout.json")).expect("read"))
            .expect("JSON");
    let mut plan = example.clone();
    plan["scenario"]["duration_ms"] = 30_000.into();
    plan["scenario"]["arrivals_per_second"] = 500.into();
    plan["scenario"]["capacity"]["workers"] = 16.into();
    plan["scenario"]["phases"] = serde_json::json!([
        {"kind": "outage", "from_ms": 5_000, "to_ms": 5_300, "failure": "timeout"},
        {"kind": "outage", "from_ms": 5_300, "to_ms": 5_310, "failure": "restart"},
        {"kind": "outage", "from_ms": 10_000, "to_ms": 15_000, "failure": "timeout"}
    ]);
    let path = scratch("deterministic.json", &plan.to_string());
    let run = |seed: &str| retryplan(&["simulate", &path, "--json", "--no-svg", "--seed", seed]);
    let first = run("7");
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(first.stdout == run("7").stdout, "same seed, same JSON");
    assert!(first.stdout != run("8").stdout, "another seed, another run");
    let report: Value = serde_json::from_str(&first.stdout).expect("JSON");
    assert_eq!(report["seed"], 7);
    assert_eq!(report["variants"].as_array().map(Vec::len), Some(5));
    assert_eq!(report["variants"][0]["buckets"].as_array().map(Vec::len), Some(30));
}

/// A sustained 503 outage: every first attempt fails.
fn sustained_outage(budget: &str) -> String {
    scratch(
        "sustained.json",
        &format!(
            r#"{{
  "policy": {{"max_attempts": 3, "total_timeout_ms": 2000, "attempt_timeout": {{"fixed_ms": 500}},
             "response_reserve_ms": 0, "minimum_useful_attempt_ms": 10,
             "backoff": {{"kind": "exponential", "base_ms": 20, "multiplier": 2.0, "cap_ms": 100}}, "jitter": {{"kind": "full"}}}},
  "dependency": {{"budget": {budget}}},
  "scenario": {{"duration_ms": 20000, "arrivals_per_second": 1000, "clients": 4,
               "capacity": {{"workers": 100, "queue_limit": 100}}, "service_time": {{"kind": "constant", "ms": 5}},
               "phases": [{{"kind": "outage", "from_ms": 0, "to_ms": 20000, "failure": "unavailable"}}]}}
}}"#
        ),
    )
}

#[test]
fn a_budget_caps_the_extra_load_of_a_sustained_outage_and_no_budget_multiplies_it() {
    let path =
        sustained_outage(r#"{"kind": "ratio", "retry_ratio": 0.1, "min_retries_per_second": 0, "window_ms": 10000}"#);
    let report = simulate_json(&path, &["--variants", "as-written,no-budget"]);
    let operations = summary_u64(&report, "as-written", "operations") as f64;
    let budgeted = summary_u64(&report, "as-written", "retries") as f64;
    let unbudgeted = summary_u64(&report, "no-budget", "retries") as f64;
    assert!(budgeted <= 0.1 * operations, "budgeted retries {budgeted} exceed 10% of {operations} operations");
    assert!(budgeted >= 0.09 * operations, "the budget is used: {budgeted}");
    assert!(unbudgeted >= 1.9 * operations, "no budget: every operation retries twice ({unbudgeted})");
    assert!(summary_u64(&report, "as-written", "budget_refusals") > 0);
    let amplification = |name| variant(&report, name)["summary"]["amplification"].as_f64().expect("number");
    assert!(amplification("as-written") <= 1.1 && amplification("no-budget") >= 2.9);
    // Per bucket too: once the window is warm, each second's retries stay within the share.
    for bucket in variant(&report, "as-written")["buckets"].as_array().expect("buckets").iter().skip(10) {
        let (retries, arrivals) =
            (bucket["retries"].as_f64().unwrap_or(0.0), bucket["arrivals"].as_f64().unwrap_or(0.0));
        assert!(retries <= 0.2 * arrivals, "bucket {}: {retries} retries for {arrivals} arrivals", bucket["start_ms"]);
    }
}

#[test]
fn jitter_spreads_synchronized_retries() {
    // 200 clients fire together once a second into a 503 outage; buckets of 10 ms.
    let path = scratch(
        "herd.json",
        r#"{
  "policy": {"max_attempts": 3, "total_timeout_ms": 2000, "attempt_timeout": {"fixed_ms": 500},
             "response_reserve_ms": 0, "minimum_useful_attempt_ms": 10,
             "backoff": {"kind": "exponential", "base_ms": 100, "multiplier": 2.0, "cap_ms": 400}, "jitter": {"kind": "full"}},
  "scenario": {"duration_ms": 5000, "bucket_ms": 10, "arrivals_per_second": 200, "arrival": "synchronized", "clients": 200,
               "capacity": {"workers": 100, "queue_limit": 100}, "service_time": {"kind": "constant", "ms": 5},
               "phases": [{"kind": "outage", "from_ms": 0, "to_ms": 5000, "failure": "unavailable"}]}
}"#,
    );
    let report = simulate_json(&path, &["--variants", "as-written,no-jitter"]);
    let peak = |name: &str| {
        variant(&report, name)["buckets"]
            .as_array()
            .expect("buckets")
            .iter()
            .filter_map(|b| b["retries"].as_u64())
            .max()
    };
    let (jittered, synchronized) = (peak("as-written").expect("peak"), peak("no-jitter").expect("peak"));
    assert_eq!(synchronized, 200, "without jitter every client retries in the same 10 ms");
    assert!(jittered * 2 < synchronized, "full jitter spreads them: peak {jittered} vs {synchronized}");
    assert_eq!(summary_u64(&report, "as-written", "attempts"), summary_u64(&report, "no-jitter", "attempts"));
}

#[test]
fn the_main_job_writes_a_chart() {
    let svg = std::env::temp_dir().join(format!("retryplan-cli-tests-{}-chart.svg", std::process::id()));
    let svg_arg = svg.to_string_lossy().into_owned();
    let out = retryplan(&["simulate", "examples/checkout.json", "--svg", &svg_arg]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains(&format!("chart written to {svg_arg}")), "{}", out.stderr);
    let text = std::fs::read_to_string(&svg).expect("the chart exists");
    assert!(text.starts_with("<svg"), "an SVG document");
    // Every variant has its own row, each trigger is named by its kind, and
    // the verdicts, the budget's refills and the restart's burst are on the chart.
    // plotters writes each text on a line of its own.
    let texts: Vec<&str> = text.lines().map(str::trim).collect();
    for label in
        ["as-written", "no-jitter", "no-budget", "layered", "propagated", "stall + restart", "stall", "restart"]
    {
        assert!(texts.contains(&label), "the chart shows {label}");
    }
    for label in ["recovered +3.0 s", "METASTABLE", "NEVER HEALTHY", "budget refills", "in 10 ms"] {
        assert!(text.contains(label), "the chart shows {label}");
    }
    assert!(!texts.iter().any(|line| line.starts_with("outage")), "a stall is not called an outage");
    for label in [
        "attempt amplification",
        "success rate",
        "largest 10 ms burst",
        "gave up: budget_exhausted",
        "METASTABLE",
        "recovered",
    ] {
        assert!(out.stdout.contains(label), "the table shows {label}:\n{}", out.stdout);
    }
    // The throughput line says what it measured.
    assert!(out.stderr.contains("attempts at the dependency) in"), "{}", out.stderr);
    assert!(out.stderr.contains("cargo bench -p retryplan-cli"), "{}", out.stderr);
}

#[test]
fn each_lever_of_the_main_job_visibly_matters() {
    let report = simulate_json("examples/checkout.json", &[]);
    let summary = |name: &str, field: &str| variant(&report, name)["summary"][field].clone();
    let burst = |name: &str| summary(name, "peak_attempts_in_10ms").as_u64().expect("burst");
    // Jitter: the requests the restart broke come back in the same 10 ms without it.
    assert!(burst("no-jitter") >= 3 * burst("as-written"), "{} vs {}", burst("no-jitter"), burst("as-written"));
    let zoom = &variant(&report, "no-jitter")["zoom"];
    assert_eq!(zoom["slot_ms"], 10);
    let wave = zoom["attempts"].as_array().expect("slots").iter().filter_map(Value::as_u64).max().expect("a slot");
    assert_eq!(wave, burst("no-jitter"), "the largest burst is the restart's wave");
    // The budget: without it the fleet never recovers from the stall.
    assert_eq!(summary("as-written", "recovery")["verdict"], "recovered");
    assert_eq!(summary("no-budget", "recovery")["verdict"], "metastable");
    // Three propagating hops of 200 ms attempts cannot serve at all: that is
    // no recovery, whatever the success ratio after the trigger.
    assert_eq!(summary("propagated", "recovery")["verdict"], "never_healthy");
    assert_eq!(summary("propagated", "recovery")["baseline_success_ratio"], 0.0);
    // Layering without deadline propagation multiplies the peak load.
    let peak = |name: &str| summary(name, "peak_attempts_per_second").as_f64().expect("peak");
    assert!(peak("layered") >= 2.0 * peak("as-written"), "{} vs {}", peak("layered"), peak("as-written"));
}

#[test]
fn a_restart_resets_what_the_dependency_holds_and_refuses_connections_until_it_is_back() {
    // One client, one operation every 100 ms, each served in 50 ms; the
    // dependency restarts at 1025 ms (holding the request of 1000 ms) and is
    // back at 1200 ms, refusing the requests of 1100 ms meanwhile.
    let path = scratch(
        "restart.json",
        r#"{
  "policy": {"max_attempts": 2, "total_timeout_ms": 5000, "attempt_timeout": {"fixed_ms": 1000},
             "response_reserve_ms": 0, "minimum_useful_attempt_ms": 1,
             "backoff": {"kind": "constant", "base_ms": 300, "multiplier": 1.0, "cap_ms": 300},
             "jitter": {"kind": "none"}, "idempotency": "keyed"},
  "scenario": {"duration_ms": 2000, "bucket_ms": 100, "arrivals_per_second": 10, "arrival": "synchronized",
               "capacity": {"workers": 4, "queue_limit": 4}, "service_time": {"kind": "constant", "ms": 50},
               "phases": [{"kind": "outage", "from_ms": 1025, "to_ms": 1200, "failure": "restart"}]}
}"#,
    );
    let report = simulate_json(&path, &["--variants", "as-written"]);
    let buckets = variant(&report, "as-written")["buckets"].as_array().expect("buckets").clone();
    let at = |ms: u64, field: &str| buckets[(ms / 100) as usize][field].as_u64().expect("a count");
    // Both broken requests retry once, 300 ms later, and then succeed.
    assert_eq!((at(1000, "attempts"), at(1100, "attempts")), (1, 1));
    assert_eq!(at(1300, "retries"), 1, "the reset request of 1000 ms retries at 1325 ms");
    assert_eq!(at(1400, "retries"), 1, "the refused request of 1100 ms retries at 1400 ms");
    assert_eq!(summary_u64(&report, "as-written", "succeeded"), summary_u64(&report, "as-written", "operations"));
    assert_eq!(summary_u64(&report, "as-written", "retries"), 2);
}

#[test]
fn the_chart_goes_beside_the_plan_file_not_into_the_working_directory() {
    let base = std::env::temp_dir().join(format!("retryplan-cli-tests-{}-beside", std::process::id()));
    let (plans, elsewhere) = (base.join("plans"), base.join("elsewhere"));
    std::fs::create_dir_all(&plans).expect("dir");
    std::fs::create_dir_all(&elsewhere).expect("dir");
    let plan = plans.join("small.json");
    std::fs::write(
        &plan,
        r#"{"policy": {}, "scenario": {"duration_ms": 2000, "arrivals_per_second": 10,
            "capacity": {"workers": 2, "queue_limit": 2}, "service_time": {"kind": "constant", "ms": 5}}}"#,
    )
    .expect("write");
    let out = retryplan_in(&elsewhere, &["simulate", &plan.to_string_lossy(), "--variants", "as-written"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let chart = plans.join("small.svg");
    assert!(out.stderr.contains(&format!("chart written to {}", chart.display())), "{}", out.stderr);
    assert!(std::fs::read_to_string(&chart).expect("the chart beside the plan").starts_with("<svg"));
    let left: Vec<_> = std::fs::read_dir(&elsewhere).expect("dir").collect();
    assert!(left.is_empty(), "nothing written to the working directory: {left:?}");
}

#[test]
fn a_plan_s_problems_quote_its_keys_as_excerpts() {
    // Found by fuzz/plan: an unknown top-level key was copied whole into the
    // problem's field and message (and so is any key serde names).
    use retryplan_cli::file::{load, FileError, Selection};
    let huge = "k".repeat(1 << 20);
    for text in [
        format!(r#"{{"policy": {{}}, "{huge}": 1}}"#),
        format!(r#"{{"policy": {{}}, "scenario": {{"{huge}": 1}}}}"#),
        format!(r#"{{"profiles": {{"{huge}": {{}}, "b": {{}}}}}}"#),
    ] {
        match load(&text, &Selection::default()) {
            Err(FileError::Invalid(problems)) => {
                for problem in problems {
                    assert!(problem.field.len() <= 1024 && problem.message.len() <= 2048, "{problem:?}");
                }
            }
            Err(FileError::Usage(message)) => assert!(message.len() <= 2048, "{} bytes", message.len()),
            other => panic!("{other:?}"),
        }
    }
}

// ---------------------------------------------------------------- output

/// The binary run with its stdout on `stdout`; its exit code and stderr.
fn retryplan_to(stdout: std::process::Stdio, args: &[&str]) -> (i32, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_retryplan"))
        .args(args)
        .current_dir(root())
        .stdout(stdout)
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "the binary panicked: {stderr}");
    (output.status.code().unwrap_or(-1), stderr)
}

#[cfg(target_os = "linux")]
#[test]
fn a_failed_write_to_stdout_is_an_io_error_with_exit_two() {
    // Help and the version too (clap's own exit ignored the failure: `--help > /dev/full` exited 0).
    let commands: [&[&str]; 10] = [
        &["compile", "examples/policies/checkout.json"],
        &["explain", "examples/policies/checkout.json"],
        &["explain", "examples/policies/checkout.json", "--json"],
        &["check", "examples/checkout.json"],
        &["simulate", "examples/checkout.json", "--no-svg", "--variants", "as-written"],
        &["--help"],
        &["-h"],
        &["--version"],
        &["help", "check"],
        &["explain", "--help"],
    ];
    for args in commands {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
        let (code, stderr) = retryplan_to(full.into(), args);
        assert_eq!(code, 2, "{args:?} > /dev/full: {stderr}");
        assert!(stderr.contains("retryplan: cannot write to stdout: "), "{args:?} > /dev/full: {stderr}");
    }
}

#[test]
fn a_closed_pipe_on_stdout_ends_the_output_quietly() {
    // The reader goes away before the binary writes (as `| head -c1` does once
    // it has its byte): no message, and the command's own exit code.
    for (args, expected) in [
        (&["explain", "examples/policies/checkout.json"][..], 0),
        (&["compile", "examples/policies/checkout.json"][..], 0),
        (&["explain", "examples/policies/checkout.json", "--first-attempt-at-ms", "50", "--strict"][..], 1),
        (&["--help"][..], 0),
        (&["--version"][..], 0),
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_retryplan"))
            .args(args)
            .current_dir(root())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the binary runs");
        drop(child.stdout.take());
        let output = child.wait_with_output().expect("the binary ends");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked") && !stderr.contains("cannot write"), "{args:?} | closed: {stderr}");
        assert_eq!(output.status.code(), Some(expected), "{args:?} | closed: {stderr}");
    }
}

#[test]
fn a_negative_number_is_an_invalid_value_of_its_option() {
    for (args, option) in [
        (&["explain", "examples/policies/checkout.json", "--deadline-ms", "-5"][..], "--deadline-ms"),
        (&["explain", "examples/policies/checkout.json", "--first-attempt-at-ms", "-5"][..], "--first-attempt-at-ms"),
        (&["simulate", "examples/checkout.json", "--no-svg", "--seed", "-1"][..], "--seed"),
    ] {
        let out = retryplan(args);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        let value = args.last().unwrap();
        assert!(out.stderr.contains(&format!("invalid value '{value}' for '{option}")), "{args:?}: {}", out.stderr);
    }
}

#[test]
fn simulate_refuses_a_chart_path_and_no_chart_together() {
    let out = retryplan(&["simulate", "examples/checkout.json", "--svg", "out.svg", "--no-svg"]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("cannot be used with"), "{}", out.stderr);
    assert!(!root().join("out.svg").exists(), "no chart written");
}

#[test]
fn simulate_refuses_a_chart_in_a_missing_directory_as_compile_out_does() {
    let dir = std::env::temp_dir().join(format!("retryplan-cli-tests-{}-missing", std::process::id()));
    let svg = dir.join("x.svg").to_string_lossy().into_owned();
    let out = retryplan(&["simulate", "examples/checkout.json", "--svg", &svg]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains(&format!("cannot write the chart to {svg}")), "{}", out.stderr);
    assert!(out.stdout.is_empty(), "refused before the run: {}", out.stdout);
    assert!(!dir.exists(), "no directory created");
    let bin = dir.join("x.bin").to_string_lossy().into_owned();
    let compiled = retryplan(&["compile", "examples/policies/checkout.json", "--out", &bin]);
    assert_eq!(compiled.code, 2, "{}", compiled.stderr);
    assert!(compiled.stderr.contains(&format!("cannot write {bin}")), "{}", compiled.stderr);
    assert!(!dir.exists(), "no directory created");
}

#[test]
fn a_one_field_object_whose_field_is_refused_is_one_problem_at_that_field() {
    for (timeout, problem) in [
        (r#"{"fixed_ms": 2.5}"#, "attempt_timeout.fixed_ms (2.5) must be a whole number in 1..=9007199254740991"),
        (
            r#"{"fixed_ms": 200, "fraction_of_remaining": 0.5}"#,
            "attempt_timeout: expected an object with exactly one of `fixed_ms`, `fraction_of_remaining`",
        ),
        (r#"{}"#, "attempt_timeout: expected an object with exactly one of `fixed_ms`, `fraction_of_remaining`"),
    ] {
        let path = scratch("one_of.json", &format!(r#"{{"attempt_timeout": {timeout}}}"#));
        let out = retryplan(&["check", &path]);
        assert_eq!(out.code, 1, "{timeout}: {}", out.stdout);
        assert_eq!(out.stdout, format!("{path}: invalid, 1 problem\n  {problem}\n"), "{timeout}");
    }
}

#[test]
fn a_missing_required_field_is_read_with_a_stand_in_so_the_rest_of_its_object_is_checked() {
    // Every missing field of the scenario, and the dependency's bad window beside its missing ratio.
    let path = scratch(
        "missing_required.json",
        r#"{"policy": {"hedging": {}},
            "dependency": {"budget": {"kind": "ratio", "min_retries_per_second": 5, "window_ms": -1}},
            "scenario": {"duration_ms": 1000}}"#,
    );
    let out = retryplan(&["check", &path]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    let lines: Vec<&str> = out.stdout.lines().skip(1).map(str::trim_start).collect();
    assert_eq!(
        lines,
        [
            "policy.hedging.delay_ms: missing field `delay_ms`",
            "policy.hedging.max_hedged_attempts: missing field `max_hedged_attempts`",
            "dependency.budget.retry_ratio: missing field `retry_ratio`",
            "dependency.budget.window_ms (-1) must be a whole number in 1..=9007199254740991",
            "scenario.arrivals_per_second: missing field `arrivals_per_second`",
            "scenario.capacity: missing field `capacity`",
            "scenario.service_time: missing field `service_time`",
        ],
        "{}",
        out.stdout
    );
}

#[test]
fn a_bad_field_of_a_service_time_or_a_phase_is_reported_at_its_own_path_and_hides_nothing() {
    let with = |service_time: &str, phases: &str| {
        let path = scratch(
            "tagged.json",
            &format!(
                r#"{{"policy": {{}}, "scenario": {{"duration_ms": 1000, "arrivals_per_second": -3,
                    "capacity": {{"workers": 0, "queue_limit": 1}}, "service_time": {service_time}, "phases": {phases}}}}}"#
            ),
        );
        let out = retryplan(&["check", &path]);
        assert_eq!(out.code, 1, "{}", out.stdout);
        out.stdout.lines().skip(1).map(|line| line.trim_start().to_owned()).collect::<Vec<String>>()
    };
    let rules = [
        "scenario.arrivals_per_second (-3) must be a number > 0",
        "scenario.capacity.workers (0) must be a whole number in 1..=1000000",
    ];
    assert_eq!(
        with(r#"{"kind": "constant", "ms": -1}"#, "[]"),
        [
            "scenario.service_time.ms: expected a whole number of milliseconds, 0 or more, found the number -1",
            rules[0],
            rules[1]
        ]
    );
    assert_eq!(
        with(r#"{"kind": "uniform", "min_ms": -1, "max_ms": 2.5}"#, "[]"),
        [
            "scenario.service_time.min_ms: expected a whole number of milliseconds, 0 or more, found the number -1",
            "scenario.service_time.max_ms: expected a whole number of milliseconds, 0 or more, found the number 2.5",
            rules[0],
            rules[1]
        ]
    );
    assert_eq!(
        with(r#"{"kind": "constant", "mss": 1}"#, "[]"),
        ["scenario.service_time.mss: unknown field `mss` (did you mean `ms`?), expected `ms`", rules[0], rules[1]]
    );
    assert_eq!(
        with(
            r#"{"kind": "constant", "ms": 1}"#,
            r#"[{"kind": "outage", "from_ms": -1, "to_ms": 2000, "failure": "unavailable"},
                {"kind": "brownout", "from_ms": 10, "to_ms": -2, "slowdown": 2}]"#
        ),
        [
            "scenario.phases[0].from_ms: expected a whole number of milliseconds, 0 or more, found the number -1",
            "scenario.phases[1].to_ms: expected a whole number of milliseconds, 0 or more, found the number -2",
            rules[0],
            rules[1],
            "scenario.phases[0].to_ms (2000) must be <= duration_ms (1000): the scenario would end during the outage",
            "scenario.phases[1].from_ms (10) must be >= the previous phase's to_ms (2000): phases are in time order and do not overlap",
        ]
    );
}

#[test]
fn a_misspelt_phase_kind_is_offered_and_hides_no_other_mistake_in_that_phase() {
    // `outgae` is read as `outage` (the guess reported with its did-you-mean); a wrong name in a field
    // outage has, a misspelt field of its own, and a broken rule are each reported too.
    let path = scratch(
        "misspelt-kind.json",
        r#"{"policy": {}, "scenario": {"duration_ms": 100000, "arrivals_per_second": 10,
            "capacity": {"workers": 1, "queue_limit": 1}, "service_time": {"kind": "constant", "ms": 1},
            "phases": [{"kind": "outgae", "from_ms": 20000, "to_ms": 10, "failure": "timeot"},
                       {"kind": "outgae", "form_ms": 30000, "to_ms": 40000, "failure": "timeout"}]}}"#,
    );
    let out = retryplan(&["check", &path]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    let lines: Vec<&str> = out.stdout.lines().skip(1).map(str::trim_start).collect();
    assert_eq!(
        lines,
        [
            "scenario.phases[0].kind: unknown variant `outgae` (did you mean `outage`?), expected `outage` or `brownout`",
            "scenario.phases[0].failure: unknown variant `timeot` (did you mean `timeout`?), expected one of `unavailable`, `timeout`, `restart`",
            "scenario.phases[1].kind: unknown variant `outgae` (did you mean `outage`?), expected `outage` or `brownout`",
            "scenario.phases[1].form_ms: unknown field `form_ms` (did you mean `from_ms`?), expected one of `from_ms`, `to_ms`, `failure`, `retry_after_ms`",
            "scenario.phases[0].to_ms (10) must be > from_ms (20000)",
        ],
        "{}",
        out.stdout
    );
}

// ---------------------------------------------------------------- hedging, ranges, pipes, overwrites

const HEDGED: &str = r#"{"max_attempts": 3, "total_timeout_ms": 1000, "attempt_timeout": {"fixed_ms": 500},
    "idempotency": "idempotent", "hedging": {"delay_ms": 100, "max_hedged_attempts": 2}}"#;

#[test]
fn explain_and_check_follow_the_engine_s_hedges_whose_windows_overlap() {
    let path = scratch("hedged.json", HEDGED);
    let checked = retryplan(&["check", &path]);
    assert_eq!(checked.code, 0, "{}", checked.stdout);
    assert_eq!(checked.stdout, format!("{path}: ok (policy)\n"), "all three attempts fit: no warning");
    let explained = retryplan(&["explain", "--strict", &path]);
    assert_eq!(explained.code, 0, "{}{}", explained.stdout, explained.stderr);
    let rows: Vec<&str> = explained.stdout.lines().skip(6).take(4).map(str::trim).collect();
    assert_eq!(
        rows,
        [
            "0       500  attempt 1, effective timeout 500 ms",
            "100       600  attempt 2, a hedge beside attempt 1, effective timeout 500 ms",
            "200       700  attempt 3, a hedge beside attempts 1 and 2, effective timeout 500 ms",
            "700            gives up: attempts_exhausted after 3 attempts with 250 ms of time left after the reserve",
        ],
        "{}",
        explained.stdout
    );
    assert!(explained
        .stdout
        .contains("Hedged: a hedge starts 100 ms after the latest start while attempts run, up to 3 at once.\n"));
    assert!(explained.stdout.contains("3 configured (max_attempts), 3 can run before the deadline."));
    assert!(explained.stdout.contains("Unbounded worst case: 700 ms from the first attempt"), "{}", explained.stdout);
    let json: Value = serde_json::from_str(&retryplan(&["explain", "--json", &path]).stdout).expect("JSON");
    let starts: Vec<u64> =
        json["steps"].as_array().unwrap().iter().map(|step| step["start_ms"].as_u64().unwrap()).collect();
    assert_eq!(starts, [0, 100, 200]);
    assert_eq!(json["unbounded_worst_case_ms"], 700);
}

#[test]
fn a_time_no_clock_reads_is_a_usage_error_naming_its_option() {
    for (option, value) in [
        ("--first-attempt-at-ms", "9007199254740992"),
        ("--first-attempt-at-ms", "18446744073709551615"),
        ("--deadline-ms", "9007199254740992"),
        ("--deadline-ms", "18446744073709551615"),
    ] {
        let out = retryplan(&["explain", "examples/policies/checkout.json", option, value]);
        assert_eq!(out.code, 2, "{option} {value}: {}", out.stdout);
        assert!(out.stdout.is_empty(), "{option} {value}: nothing explained: {}", out.stdout);
        assert!(
            out.stderr.contains(&format!("invalid value '{value}' for '{option}"))
                && out.stderr.contains("must be a whole number of milliseconds in 0..=2^53 - 1"),
            "{option} {value}: {}",
            out.stderr
        );
    }
    // The largest time a clock reads is explained: the engine gives up before any attempt.
    let out = retryplan(&["explain", "examples/policies/checkout.json", "--first-attempt-at-ms", "9007199254740991"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("gives up: deadline_insufficient after 0 attempts"), "{}", out.stdout);
}

/// The binary run with its stdout and stderr on one connection whose other
/// end is closed before it starts (as `2>&1 | head -c1` is once `head` has
/// its byte: every write fails with a broken pipe, whenever it comes); its
/// exit code.
#[cfg(unix)]
fn with_output_closed(args: &[&str]) -> i32 {
    let (reader, writer) = std::os::unix::net::UnixStream::pair().expect("a connected pair");
    drop(reader);
    let output = std::os::fd::OwnedFd::from(writer.try_clone().expect("clone"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_retryplan"))
        .args(args)
        .current_dir(root())
        .stdout(output)
        .stderr(std::os::fd::OwnedFd::from(writer))
        .spawn()
        .expect("the binary runs");
    child.wait().expect("the binary ends").code().unwrap_or(-1)
}

#[cfg(unix)]
#[test]
fn a_closed_pipe_on_stderr_ends_the_messages_quietly() {
    let svg = std::env::temp_dir().join(format!("retryplan-cli-tests-{}-closed.svg", std::process::id()));
    let svg = svg.to_string_lossy().into_owned();
    for (args, expected) in [
        (&["explain", "nonexistent.json"][..], 2),
        (&["check", "cli/tests/fixtures/invalid.json"][..], 1),
        (&["explain", "examples/policies/checkout.json", "--first-attempt-at-ms", "50", "--strict"][..], 1),
        (&["compile", "cli/tests/fixtures/invalid.json"][..], 1),
        (&["simulate", "examples/checkout.json", "--variants", "as-written", "--svg", &svg][..], 0),
    ] {
        // A panic exits with 101.
        assert_eq!(with_output_closed(args), expected, "{args:?} 2>&1 | closed");
    }
    let _ = std::fs::remove_file(&svg);
}

#[test]
fn an_output_path_that_is_the_input_file_is_refused() {
    let plan = std::fs::read_to_string(root().join("examples/checkout.json")).expect("example");
    let path = scratch("overwrite.json", &plan);
    let compiled = retryplan(&["compile", &path, "--out", &path]);
    assert_eq!(compiled.code, 2, "{}", compiled.stderr);
    assert!(compiled.stderr.contains("is the file being compiled"), "{}", compiled.stderr);
    let charted = retryplan(&["simulate", &path, "--variants", "as-written", "--svg", &path]);
    assert_eq!(charted.code, 2, "{}", charted.stderr);
    assert!(charted.stderr.contains("is the plan file"), "{}", charted.stderr);
    assert!(charted.stdout.is_empty(), "refused before the run: {}", charted.stdout);
    // The same file by another path is the same file.
    let dir = Path::new(&path).parent().unwrap();
    let other = retryplan_in(dir, &["compile", &path, "--out", "./overwrite.json"]);
    assert_eq!(other.code, 2, "{}", other.stderr);
    assert_eq!(std::fs::read_to_string(&path).expect("still there"), plan, "the input is untouched");
}

#[test]
fn a_scenario_of_the_wrong_shape_is_told_in_the_policy_s_words_never_in_rust_s() {
    let base = r#""arrivals_per_second": 10, "duration_ms": 1000, "capacity": {"workers": 4, "queue_limit": 8}, "service_time": {"kind": "constant", "ms": 10}"#;
    for (scenario, problem) in [
        (r#""x""#.to_owned(), r#"scenario: expected an object, found the string "x""#),
        ("[1]".to_owned(), "scenario: expected an object, found a list"),
        (
            format!(r#"{{{base}, "capacity": 5}}"#).replacen(
                r#""capacity": {"workers": 4, "queue_limit": 8}, "#,
                "",
                1,
            ),
            "scenario.capacity: expected an object, found the number 5",
        ),
        (
            format!(r#"{{{base}}}"#).replace(r#"{"kind": "constant", "ms": 10}"#, r#""constant""#),
            r#"scenario.service_time: expected an object, found the string "constant""#,
        ),
        (
            format!(r#"{{{base}}}"#).replace(r#"{"kind": "constant", "ms": 10}"#, "[1, 2]"),
            "scenario.service_time: expected an object, found a list",
        ),
        (format!(r#"{{{base}, "phases": [5]}}"#), "scenario.phases[0]: expected an object, found the number 5"),
        (format!(r#"{{{base}, "phases": [[]]}}"#), "scenario.phases[0]: expected an object, found a list"),
        (format!(r#"{{{base}, "phases": "no"}}"#), r#"scenario.phases: expected a list, found the string "no""#),
        (
            format!(r#"{{{base}, "propagate_deadline": "yes"}}"#),
            r#"scenario.propagate_deadline: expected a boolean, found the string "yes""#,
        ),
    ] {
        let path = scratch("shape.json", &format!(r#"{{"policy": {{}}, "scenario": {scenario}}}"#));
        let out = retryplan(&["check", &path]);
        assert_eq!(out.code, 1, "{scenario}: {}", out.stdout);
        assert_eq!(out.stdout, format!("{path}: invalid, 1 problem\n  {problem}\n"), "{scenario}");
    }
}

#[test]
fn a_misspelt_plan_key_is_offered_not_a_policy_s_fields() {
    for (text, key, meant) in [
        (r#"{"polcy": {"max_attempts": 2}}"#, "polcy", "policy"),
        (r#"{"profile": {"read": {}}}"#, "profile", "profiles"),
        (r#"{"Policy": {}}"#, "Policy", "policy"),
        (r#"{"scenaro": {}}"#, "scenaro", "scenario"),
    ] {
        let path = scratch("misspelt_plan.json", text);
        let out = retryplan(&["check", &path]);
        assert_eq!(out.code, 1, "{text}: {}", out.stdout);
        assert_eq!(
            out.stdout,
            format!(
                "{path}: invalid, 1 problem\n  {key}: unknown field `{key}` (did you mean `{meant}`?): the file was read as a bare policy, as none of its keys is a plan's (policy, profiles, dependency, scenario)\n"
            ),
            "{text}"
        );
    }
    // A policy's own misspelt field is still offered the policy's field.
    let path = scratch("misspelt_field.json", r#"{"backof": {}}"#);
    let out = retryplan(&["check", &path]);
    assert!(
        out.stdout.contains("unknown field `backof` (did you mean `backoff`?), expected one of `max_attempts`"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_file_that_is_not_utf8_or_starts_with_a_byte_order_mark_is_invalid_and_says_where() {
    let dir = std::env::temp_dir().join(format!("retryplan-cli-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let latin1 = dir.join("latin1.json");
    std::fs::write(&latin1, b"{\"max_attempts\": 3, \"note\": \"caf\xe9\"}").expect("write");
    let out = retryplan(&["check", &latin1.to_string_lossy()]);
    assert_eq!(out.code, 1, "an invalid file, not an unreadable one: {}", out.stderr);
    assert!(out.stderr.contains("not valid UTF-8: the byte at offset 32 starts no character"), "{}", out.stderr);
    let bom = scratch("bom.json", "\u{feff}{\"max_attempts\": 3}");
    let out = retryplan(&["check", &bom]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("starts with a byte order mark (U+FEFF)"), "{}", out.stderr);
}
