//! The table of every [`Rule`]: its stable id and its template, one line each.
//! Only the table lives here; [`Message`](super::Message) composes the text.

/// Declares [`Rule`]: each variant with its stable id and its template.
macro_rules! rules {
    ($( $(#[$doc:meta])* $variant:ident = $id:literal : $template:literal, )*) => {
        /// What a message says, one variant per sentence: its stable id
        /// ([`Rule::id`]) and its template ([`Rule::template`]). New rules are
        /// added at the end of their group; a rule's text may be reworded,
        /// its id may not.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Rule {
            $( $(#[$doc])* $variant, )*
        }

        impl Rule {
            /// Every rule, in declaration order (the order of the JavaScript table).
            pub const ALL: &'static [Rule] = &[$(Rule::$variant),*];

            /// The stable snake_case id, the same in every language.
            #[must_use]
            pub fn id(self) -> &'static str {
                match self {
                    $(Rule::$variant => $id,)*
                }
            }

            /// The rule's place in [`Rule::ALL`] (how the JavaScript binding's
            /// wasm names it to its table).
            #[must_use]
            pub fn index(self) -> u16 {
                self as u16
            }

            /// The template its text is composed from (see the module docs).
            #[must_use]
            pub fn template(self) -> &'static str {
                match self {
                    $(Rule::$variant => $template,)*
                }
            }
        }
    };
}

rules! {
    // A message composed elsewhere (another library's error, a binding's own words).
    /// Free text, for messages the engine does not compose (a JSON parser's
    /// error, a binding's words about its own arguments).
    Text = "text": "{0}",

    // The errors, one per `Error` variant (and one per `HeaderError` variant).
    /// [`Error::ConfigViolations`](crate::Error::ConfigViolations): the
    /// configuration's name ([`ConfigKind::subject`](crate::config::error::ConfigKind::subject)), its violations.
    ConfigViolations = "config_violations": "invalid {0}: {1}",
    /// [`Error::InvalidConfig`](crate::Error::InvalidConfig): the configuration's words, field, message.
    InvalidConfig = "invalid_config": "invalid {0} configuration at `{1}`: {2}",
    /// [`Error::InvalidConfig`](crate::Error::InvalidConfig) of the whole
    /// configuration (an empty field path: not JSON, not an object): the
    /// configuration's words, message.
    InvalidConfigWhole = "invalid_config_whole": "invalid {0} configuration: {1}",
    /// [`Error::UnknownProfile`](crate::Error::UnknownProfile): name, hint ([`Rule::DidYouMean`] or nothing), known names.
    UnknownProfile = "unknown_profile": "unknown profile `{0}`{1} (known: {2})",
    /// [`Error::OperationEnded`](crate::Error::OperationEnded).
    OperationEnded = "operation_ended": "the operation already ended; start a new operation",
    /// [`Error::AttemptNotRunning`](crate::Error::AttemptNotRunning): attempt, running.
    AttemptNotRunning = "attempt_not_running": "attempt {0} is not running (running: {1})",
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument): name, rule.
    InvalidArgument = "invalid_argument": "invalid argument `{0}`: {1}",
    /// [`Error::Unsupported`](crate::Error::Unsupported): field, rule.
    Unsupported = "unsupported": "`{0}` cannot run here: {1}",
    /// [`Error::EntropyUnavailable`](crate::Error::EntropyUnavailable): what the source said.
    EntropyUnavailable = "entropy_unavailable": "no entropy available: {0}",
    /// [`HeaderError::Empty`](crate::headers::retry_after::HeaderError::Empty): header.
    HeaderEmpty = "header_empty": "{0}: value is empty",
    /// [`HeaderError::Malformed`](crate::headers::retry_after::HeaderError::Malformed): header, expected, value.
    HeaderMalformed = "header_malformed": "{0}: expected {1}, got {2:q}",
    /// [`HeaderError::OutOfRange`](crate::headers::retry_after::HeaderError::OutOfRange): header, value, limit.
    HeaderOutOfRange = "header_out_of_range": "{0}: {1:q} is out of range ({2})",
    /// [`Error::InvalidRequestHeader`](crate::Error::InvalidRequestHeader): the header's message.
    InvalidRequestHeader = "invalid_request_header": "invalid request header {0}",

    // Reading a configuration: what was expected, what was found.
    /// What was expected, what was found.
    Expected = "expected": "expected {0}, found {1}",
    /// A list (expected or found).
    List = "list": "a list",
    /// An object (expected or found).
    Object = "object": "an object",
    /// `true` or `false` expected.
    Boolean = "boolean": "true or false",
    /// A finite number expected.
    FiniteNumber = "finite_number": "a finite number",
    /// A whole number up to a maximum expected (a bounded count: `max_attempts`, a status).
    WholeNumber = "whole_number": "a whole number from 0 to {0}",
    /// One of the names expected.
    OneOf = "one_of": "one of {0}",
    /// A list of names expected.
    ListOfNames = "list_of_names": "a list of names",
    /// A string expected.
    String = "string": "a string",
    /// `null` found.
    FoundNull = "found_null": "null",
    /// A boolean found.
    FoundBoolean = "found_boolean": "the boolean {0}",
    /// A number found.
    FoundNumber = "found_number": "the number {0}",
    /// A string found.
    FoundString = "found_string": "the string {0:q}",
    /// A name the enum does not have: name, hint, the names.
    UnknownVariant = "unknown_variant": "unknown variant `{0}`{1}, expected one of {2}",
    /// A field the object does not have: field, hint, the fields.
    UnknownField = "unknown_field": "unknown field `{0}`{1}, expected one of {2}",
    /// The closest known name to a misspelt one.
    DidYouMean = "did_you_mean": " (did you mean `{0}`?)",
    /// A key given twice.
    DuplicateField = "duplicate_field": "duplicate field `{0}`",
    /// A required key missing.
    MissingField = "missing_field": "missing field `{0}`",
    /// A tagged object written as its tag alone: what was found, the tag.
    KindAsString = "kind_as_string": "expected an object, found {0} (did you mean `{{\"kind\": \"{1}\"}}`?)",
    /// A tagged object without its tag: the tags.
    MissingKind = "missing_kind": "missing field `kind` (one of {0})",
    /// An object that must have exactly one of some keys.
    ExactlyOneOf = "exactly_one_of": "expected an object with exactly one of {0}",
    /// A field given under both its name and its old name: the name, the old name.
    BothOldAndNewName = "both_old_and_new_name": "both `{0}` and its old name `{1}` are given; keep `{0}` only",
    /// A whole number with no practical maximum expected (as a person says it, not `0..=2^64-1`).
    WholeNumberFromZero = "whole_number_from_zero": "a whole number, 0 or more",
    /// A time in milliseconds expected (a field named `..._ms`).
    WholeMilliseconds = "whole_milliseconds": "a whole number of milliseconds, 0 or more",
    /// A millisecond argument outside the range of every time the engine
    /// keeps: the largest (2^53 - 1), the value as the caller wrote it.
    MsOutOfRange = "ms_out_of_range": "must be a whole number of milliseconds in 0..=2^53 - 1 ({0}), got {1}",

    // The rules of a policy and of the shared controls.
    /// A time above the largest: field, value, the largest.
    MsAboveMax = "ms_above_max": "{0} ({1}) must be <= {2} (2^53 - 1)",
    /// A decimal out of its range: field, value, `(` or `[`, low, high.
    DecimalOutOfRange = "decimal_out_of_range": "{0} ({1}) must be a number in {2}{3}, {4}]",
    /// A decimal with more than three decimals: field, value.
    TooManyDecimals = "too_many_decimals": "{0} ({1}) must have at most three decimals",
    /// A listed status outside the HTTP range: field, index, status.
    StatusOutOfRange = "status_out_of_range": "{0}[{1}] ({2}) must be an HTTP status in 100..=599",
    /// max_attempts out of range: field, value, the largest.
    MaxAttemptsRange = "max_attempts_range": "{0} ({1}) must be a whole number in 1..={2} (it counts the first attempt: 3 means up to 2 retries)",
    /// A zero total timeout.
    TotalTimeoutZero = "total_timeout_zero": "total_timeout_ms (0) must be >= 1: every operation needs a finite, non-zero timeout",
    /// A total timeout no attempt fits in: the timeout, reserve, minimum.
    NoAttemptFits = "no_attempt_fits": "total_timeout_ms ({0}) must be > response_reserve_ms ({1}) + minimum_useful_attempt_ms ({2}), or no attempt could ever start",
    /// A count of at least 1 that fits 32 bits (a breaker's), refused at reading (-1, 2.5, 2^32, a string) and
    /// validation (0) alike:
    /// field, value found.
    AtLeastOne = "at_least_one": "{0} ({1}) must be a whole number in 1..=4294967295",
    /// A fixed timeout below the minimum useful attempt: timeout, minimum.
    FixedTimeoutTooShort = "fixed_timeout_too_short": "attempt_timeout.fixed_ms ({0}) must be >= minimum_useful_attempt_ms ({1}), or every attempt would be too short to be useful",
    /// A backoff cap below its base: cap, base.
    CapBelowBase = "cap_below_base": "backoff.cap_ms ({0}) must be >= backoff.base_ms ({1})",
    /// A throttling base above the cap: throttling base, cap.
    ThrottlingBaseAboveCap = "throttling_base_above_cap": "backoff.throttling_base_ms ({0}) must be <= backoff.cap_ms ({1})",
    /// A zero throttling base where the base must be at least 1.
    ThrottlingBaseZero = "throttling_base_zero": "backoff.throttling_base_ms (0) must be >= 1, as backoff.base_ms must",
    /// `max_above_backoff_ms` under a mode other than floor: the mode.
    AboveBackoffNeedsFloor = "above_backoff_needs_floor": "server_guidance.max_above_backoff_ms needs mode floor: under mode {0} the guidance replaces the backoff",
    /// A growing backoff from 0: the kind.
    BaseZero = "base_zero": "backoff.base_ms (0) must be >= 1 for {0} backoff (use kind \"constant\" for immediate retries)",
    /// Decorrelated jitter from a base of 0.
    DecorrelatedNeedsBase = "decorrelated_needs_base": "jitter.kind decorrelated needs backoff.base_ms >= 1 (it grows from the base)",
    /// A conflict status below 400: the item's field, status.
    ConflictNotError = "conflict_not_error": "{0} ({1}) must be an error status (>= 400)",
    /// A status both conflict and retried: the item's field, status.
    ConflictAlsoRetried = "conflict_also_retried": "{0} ({1}) must not also be in retry_on.http_statuses: a conflict is redone, not repeated",
    /// A retried 1xx or 3xx status: the item's field, status.
    RetriedNotError = "retried_not_error": "{0} ({1}) must be a 2xx (polled again) or an error status (>= 400): 1xx and 3xx count as success",
    /// A gRPC code both conflict and retried: the item's field, code.
    GrpcConflictAlsoRetried = "grpc_conflict_also_retried": "{0} ({1}) must not also be in retry_on.grpc_codes",
    /// `ok` in a list of gRPC failures: the item's field.
    GrpcOkListed = "grpc_ok_listed": "{0} (ok) must not be listed: it counts as success",
    /// A whole number out of its range: field, value, the largest.
    OutOfRange = "out_of_range": "{0} ({1}) must be a whole number in 1..={2}",
    /// Hedging an unsafe operation.
    HedgingUnsafe = "hedging_unsafe": "hedging needs an operation that may be repeated: idempotency must be safe, idempotent or keyed, not unsafe",
    /// Too few or too many redelivery delays: count, the most.
    RedeliveryDelays = "redelivery_delays": "redelivery.delays_ms has {0} values; it must have 1 to {1}",
    /// A policy's per-kind retry limit out of its range: field, limit, the largest.
    RetryLimitRange = "retry_limit_range": "{0} ({1}) must be a whole number in 0..={2} (no policy makes more attempts)",

    // Arguments.
    /// A status outside the HTTP range: status.
    NotHttpStatus = "not_http_status": "an HTTP status must be in 100..=599, got {0}",
    /// More retries than any policy makes: the most, retries.
    TooManyRetries = "too_many_retries": "must be <= {0} (no policy makes more attempts), got {1}",
    /// Text of the wrong length: the longest, length.
    TextLength = "text_length": "must be 1 to {0} bytes long, got {1}",
    /// Text with a character that is not visible ASCII: the character.
    NotVisibleAscii = "not_visible_ascii": "must be visible ASCII (no spaces or control characters), found {0:q}",
    /// Not an HTTP method.
    NotMethodToken = "not_method_token": "must be an HTTP method token (RFC 9110 §9.1): one or more letters, digits or !#$%&'*+-.^_`|~",
    /// Zero deliveries.
    NoDeliveries = "no_deliveries": "counts deliveries including this one: >= 1",
    /// A quota operation on another kind of budget: the call.
    NotAQuota = "not_a_quota": "{0} needs a budget of kind quota (units to take and give back)",
    /// A sequential host given a hedging policy.
    CannotHedge = "cannot_hedge": "this helper runs one attempt at a time and cannot hedge; use a concurrent helper (async or threads), or opt into sequential attempts without hedges",
    /// A grant (permit, charge, slot) used a second time.
    GrantSettled = "grant_settled": "was already settled (reported, released or refunded); each is used once",
    /// A grant handed to a control that did not issue it: the kind of control.
    GrantForeign = "grant_foreign": "was issued by another {0}",
    /// A word of the driver's wire encoding out of its range: what it must be, the word.
    WireWord = "wire_word": "must be {0}, got {1}",
    /// A wire record shorter than its kind needs: the words needed, the words given.
    WireRecordShort = "wire_record_short": "needs {0} words for its kind, got {1}",
    /// A standalone reader of a response given both a `Retry-After` reading and a policy, which carries its own.
    ReadingWithPolicy = "reading_with_policy": "give `reading` or `policy`, not both: the policy carries its reading (`server_guidance.retry_after_reading`) and its guidance headers (`server_guidance.headers`)",
    /// A host's timer for a wait ran out with its clock nearly still: the ms the clock moved, the wait's ms.
    StillClock = "still_clock": "the clock moved {0} ms during a wait of {1} ms: a fake sleep or timer needs a clock that moves with it",
    /// An HTTP helper's error hook that called a thrown error a success: the helper has no response to return.
    ErrorAsSuccess = "error_as_success": "answered a success for a thrown error, but this helper returns the response of a success and an error has none: answer a failure for it, or nothing (the failure table's reading)",

    // gRPC service configs.
    /// A client-side cap on maxAttempts below 2: the cap.
    /// A selector named twice: the name.
    SelectorTwice = "selector_twice": "the selector {0:q} is named twice; each name must be unique across the service config",
    /// Both a retry and a hedging policy.
    RetryAndHedging = "retry_and_hedging": "retryPolicy and hedgingPolicy are one of a kind: give at most one",
    /// A method config without names (a warning).
    NoNames = "no_names": "a method config without names applies to no method; it was skipped",
    /// A number that must be positive: field, value.
    NotPositive = "not_positive": "{0} ({1}) must be a number > 0",
    /// A positive number expected.
    PositiveNumber = "positive_number": "a number > 0",
    /// An empty list: field.
    Empty = "empty": "{0} must not be empty",
    /// A negative duration: field.
    Negative = "negative": "{0} must not be negative",
    /// maxAttempts of 1 or less: field, value.
    AttemptsNotAboveOne = "attempts_not_above_one": "{0} ({1}) must be an integer > 1",
    /// An integer above 1 expected.
    IntegerAboveOne = "integer_above_one": "a JSON integer > 1",
    /// maxAttempts above the client-side cap (a warning): field, value, cap.
    AboveAttemptsCap = "above_attempts_cap": "{0} ({1}) is above the client-side cap of {2} and is treated as {2}",
    /// maxTokens out of range: field, value.
    TokensOutOfRange = "tokens_out_of_range": "{0} ({1}) must be an integer in (0, 1000]",
    /// maxTokens expected.
    TokensInteger = "tokens_integer": "a JSON integer in (0, 1000]",
    /// A method without a service: the method.
    MethodWithoutService = "method_without_service": "a name with method {0:q} needs a service (only the default config has neither)",
    /// A Duration string that does not read: what was expected, the text.
    DurationSyntax = "duration_syntax": "expected {0}, found the string {1:q}",
    /// A Duration string expected.
    Duration = "duration": "a duration string such as \"0.25s\"",
    /// A Duration without its `s`.
    DurationUnit = "duration_unit": "a duration ending in \"s\", such as \"0.25s\"",
    /// A Duration without digits.
    DurationDigits = "duration_digits": "at least one digit before the \"s\"",
    /// A Duration with other characters.
    DurationCharacters = "duration_characters": "only ASCII digits, one optional \".\" and a leading \"-\" before the \"s\"",
    /// A Duration below the nanosecond.
    DurationNanoseconds = "duration_nanoseconds": "at most 9 digits after the \".\" (nanoseconds)",
    /// A Duration beyond 10,000 years.
    DurationSeconds = "duration_seconds": "at most 315576000000 seconds",
    /// A Duration that must be positive: field.
    DurationNotPositive = "duration_not_positive": "{0} must be a duration > 0",
    /// `OK` among the failures: field.
    GrpcOkRefused = "grpc_ok_refused": "{0} must not be OK (OK is never a failure)",
    /// A status code expected.
    StatusCode = "status_code": "a gRPC status code: an integer 0..=16 or a name such as \"UNAVAILABLE\"",
    /// A key given twice, up to case and underscores: the name.
    KeyTwice = "key_twice": "`{0}` is given more than once (names match without regard to case or underscores)",
    /// A required field missing: field.
    Required = "required": "{0} is required",
    /// A timeout below 1 ms: field.
    TimeoutBelowMs = "timeout_below_ms": "{0} must be at least 1 ms: the engine counts whole milliseconds",
    /// A timeout truncated to whole ms (a warning): field, ms.
    TimeoutTruncated = "timeout_truncated": "{0} is kept as {1} ms: the engine counts whole milliseconds and never rounds a deadline up",
    /// A multiplier too large to hold (a warning: it changes nothing): field, value, the largest.
    MultiplierCapped = "multiplier_capped": "{0} ({1}) is kept as {2}: the first retry already waits maxBackoff with either, so every delay is the same",
    /// A multiplier too large to hold: field, value, the largest.
    MultiplierTooLarge = "multiplier_too_large": "{0} ({1}) must be at most {2} unless initialBackoff * {2} reaches maxBackoff: the engine cannot hold a larger growth factor",
    /// A multiplier kept in whole thousandths (a warning): field, value, kept.
    MultiplierThousandths = "multiplier_thousandths": "{0} ({1}) is kept as {2}: the engine computes backoffs with the multiplier in whole thousandths",
    /// A duration rounded up to whole ms (a warning): field, ms.
    RoundedUp = "rounded_up": "{0} is rounded up to {1} ms: the engine counts whole milliseconds",
    /// A token ratio truncated to three decimals (a warning): field, value, kept.
    RatioDecimals = "ratio_decimals": "{0} ({1}) keeps three decimals: {2} (A6 ignores the decimals beyond the third)",
    /// A token ratio above maxTokens (a warning): field, value, maxTokens.
    RatioAboveTokens = "ratio_above_tokens": "{0} ({1}) is above maxTokens ({2}): one success refills the bucket either way, so it is kept as {2}",
    /// A token ratio truncated to 0 (a warning): field.
    RatioZero = "ratio_zero": "{0} is 0 after truncation: the bucket never refills; kept as 0.001, the least the engine holds",

    // The HTTP clients' dialects.
    /// A Polly base beyond a day: field, base, the most.
    PollyBaseRange = "polly_base_range": "{0} ({1}) must be <= {2} (1 day, Polly's range for Delay) for jitter polly",
    /// A Polly multiplier other than 2: multiplier.
    PollyMultiplier = "polly_multiplier": "backoff.multiplier ({0}) must be 2 for jitter polly (Polly's exponential factor is fixed)",
    /// Too many per-status rules: count, the most.
    StatusRulesCount = "status_rules_count": "server_guidance.statuses holds {0} rules, at most {1}",
    /// A field that must be an HTTP status: field, status.
    FieldNotHttpStatus = "field_not_http_status": "{0} ({1}) must be an HTTP status in 100..=599",
    /// A status with two rules: field, status.
    StatusRuleTwice = "status_rule_twice": "{0} ({1}) has a rule already; each status has at most one",
    /// A per-kind retry limit too high: field, limit, the bound.
    LimitTooHigh = "limit_too_high": "{0} ({1}) must be < {2} (no policy makes more attempts)",
    /// A method `retry_methods` cannot name: index, method, the methods.
    UnknownMethod = "unknown_method": "retry_methods[{0}] ({1:q}) must be one of {2} (methods are case-sensitive)",
    /// A list of per-status rules expected.
    ListOfStatusRules = "list_of_status_rules": "a list of per-status rules",
    /// A method name expected.
    MethodName = "method_name": "a method name",
    /// A list of method names expected.
    ListOfMethodNames = "list_of_method_names": "a list of method names",
    /// A urllib3 retry counter expected (`Retry.total`, `connect`, ...).
    Urllib3Count = "retry_counter": "a whole number, None or False",
    /// A number of seconds expected (`Retry.backoff_factor`, ...).
    Seconds = "seconds": "a number of seconds",
    /// urllib3's `allowed_methods` expected.
    Urllib3Methods = "method_collection": "a list of methods, None or False",
    /// urllib3's `status_forcelist` expected.
    Urllib3Statuses = "status_collection": "a list of statuses, None or False",
    /// urllib3's `RETRY_AFTER_STATUS_CODES` expected (urllib3 tests `status in` it: None would raise).
    Urllib3StatusSet = "status_set": "a collection of statuses (urllib3 tests `status in` it)",
    /// A positive urllib3 `redirect` count: the count.
    Urllib3Redirect = "redirect_not_retried": "redirect ({0}) must be 0, None or False: the HTTP client follows redirects",
    /// A NaN number of seconds: field.
    SecondsNan = "seconds_nan": "{0} must not be NaN",
    /// Seconds that are not whole milliseconds, or beyond 2^53 - 1 ms: field, seconds.
    SecondsNotMs = "seconds_not_ms": "{0} ({1} s) must be whole milliseconds up to 2^53 - 1",
    /// A urllib3 backoff beyond every clock with no cap: the factor.
    Urllib3BackoffNoCap = "backoff_beyond_clocks": "backoff_factor ({0} s) needs a finite backoff_max",
    /// urllib3 methods no policy names: the methods, the known ones.
    Urllib3UnknownMethods = "allowed_methods_unknown": "allowed_methods holds {0}, none of {1} as written (urllib3 matches the upper-cased method)",
    /// A number of `status_forcelist` or `RETRY_AFTER_STATUS_CODES` that is no 2xx or 400-599 status: the
    /// attribute, the number.
    Urllib3StatusRange = "forced_status_range": "{0} ({1}) must be a 2xx or 400-599 status (1xx are interim, 3xx followed)",

    // The typed endings the helpers raise ([`Decision::ending_message`](crate::Decision::ending_message)):
    // what happened and what to do, the same words in every language.
    /// An operation that gave up: the operation, its attempts (`one_attempt` or `attempts`), the reason.
    EndingGaveUp = "ending_gave_up": "retryplan: {0}: gave up after {1}: {2}",
    /// An unsafe write that may have happened: the operation, its idempotency key.
    EndingReconcile = "ending_reconcile": "retryplan: {0}: the write may have happened; do not repeat it blindly: look it up (reconcile it) by its idempotency key {1:q}",
    /// An unsafe write that may have happened, whose helper sent no idempotency key (JS's `idempotencyKeyHeader:
    /// null`): the operation. Nothing names a key the server never saw.
    EndingReconcileKeyNotSent = "ending_reconcile_key_not_sent": "retryplan: {0}: the write may have happened; do not repeat it blindly: look it up (reconcile it) by other means: no idempotency key was sent with it",
    /// A conflict: the operation.
    EndingRestart = "ending_restart": "retryplan: {0}: a conflict: re-read the current state, recompute the change and restart the unit of work within its deadline",
    /// One attempt.
    OneAttempt = "one_attempt": "1 attempt",
    /// Attempts: how many (not 1).
    Attempts = "attempts": "{0} attempts",
    // Issue 26 and 25: transport guidance, the caller's key.
    /// A retry-after wait given with the caller's cancel.
    CancelHasNoServerDelay = "cancel_has_no_server_delay": "a cancelled attempt carries no retry-after wait: give none (the server's wait goes with a transport failure or a response)",
    /// A request's own Idempotency-Key header that is empty: the longest key.
    RequestKeyEmpty = "request_key_empty": "is empty: a request's own key makes it keyed and is sent on every attempt, so it must hold 1 to {0} characters; set a key or leave the header out",
    /// A request's own Idempotency-Key header that is neither form: the value.
    RequestKeySyntax = "request_key_syntax": "must be a Structured Field String (draft-ietf-httpapi-idempotency-key-header: printable ASCII in double quotes, only \\\" and \\\\ escaped) or a bare key of visible ASCII characters other than a comma (which joins two field lines: RFC 9110 section 5.3), got {0:q}",
    /// The hint of an ending after an error nothing classified: the hook that classifies errors.
    UnknownErrorHint = "unknown_error_hint": "the last attempt raised an error the failure table does not know, which counts as ambiguous (retried while the operation may repeat an attempt that may have had its effect, reconciled when it may not); to decide otherwise, return an outcome from {0} (an application verdict: retryable, not_retryable, conflict)",
    /// An ending with a hint: the ending's words, the hint (`unknown_error_hint` after an error nothing
    /// classified, `malformed_status` after a response whose status was no HTTP status, `interim_status` after an
    /// interim 1xx).
    EndingWithHint = "ending_with_hint": "{0}; {1}",
    /// The hint of an ending after a response whose status was outside 100..=599: the status.
    MalformedStatus = "malformed_status": "the last response's status {0} is no HTTP status (100..=599): read as a malformed response, the server's fault",
    /// The hint of an ending after a response whose status was an interim 1xx: the status.
    InterimStatus = "interim_status": "the last response's status {0} is an interim answer (1xx), never the final one: read as a malformed response (the HTTP client returned it in place of the answer that follows it)",
    // Issue 25 item 10: a decision in words, for a log line ([`Decision::describe`](crate::Decision::describe)):
    // attempts count from 1, waits are durations, never a clock's readings.
    /// An attempt started: its number, its effective timeout.
    StepStartAttempt = "step_start_attempt": "start attempt {0} (timeout {1} ms)",
    /// A hedge started: its number, its effective timeout.
    StepStartHedge = "step_start_hedge": "start attempt {0}, a hedge (timeout {1} ms)",
    /// A wait: its delay, the attempt it comes before.
    StepWait = "step_wait": "wait {0} ms, before attempt {1}",
    /// A wait the server asked for: its delay, the attempt it comes before, the retry after as honored.
    StepWaitServer = "step_wait_server": "wait {0} ms, before attempt {1} (the server asked for {2} ms)",
    /// Attempts running: how many (`one_attempt` or `attempts`).
    StepAwait = "step_await": "await the outcome of {0} still running",
    /// Success: the winning attempt, the attempts made (`one_attempt` or `attempts`).
    StepSucceeded = "step_succeeded": "succeeded on attempt {0} (after {1})",
    /// Given up: the attempts made (`one_attempt` or `attempts`), the reason.
    StepGaveUp = "step_gave_up": "gave up after {0}: {1}",
    /// An unsafe write that may have happened: the attempts made (`one_attempt` or `attempts`).
    StepReconcile = "step_reconcile": "reconcile after {0}: the write may have happened",
    /// A conflict: the attempts made (`one_attempt` or `attempts`).
    StepRestart = "step_restart": "restart after {0}: a conflict",
    // Issue 23: a decision a host hands back, read by the core ([`Decision::from_value`](crate::Decision::from_value)).
    /// A request id expected (as [`RequestId`](crate::outcomes::decision::RequestId) is written).
    RequestIdDigits = "request_id_digits": "a request id of 16 hex digits",
    /// [`tools::check`](crate::tools::check) stopped reading a configuration with this many problems.
    CheckStopped = "check_stopped": "{0} problems found; checking stopped there (fix these and check again)",
}
