//! Steady-state decisions allocate nothing: a counting global allocator
//! watches a whole retrying operation after it was created, and a driver's
//! happy path (made, first attempt planned, success handed in, finish read).
//! Each test counts its own thread's allocations (tests run in parallel).

// A test, a benchmark or an example: a panic is its failure report (the workspace denies these elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]
#![allow(unsafe_code)] // the counting global allocator below

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Arc;

use retryplan::{Action, Decision, Driver, DriverOptions, Operation, OperationOptions, Outcome, Policy, Receipt};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

fn count() {
    // A thread being torn down has no counter left: nothing to count there.
    let _ = ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
}

// SAFETY: every call is forwarded unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn decisions_allocate_nothing() {
    let policy = Policy::from_json(r#"{"max_attempts": 5, "total_timeout_ms": 60000}"#).expect("valid");
    let mut operation = Operation::new(&policy, 0, OperationOptions::new(42));
    let unavailable = Outcome::HttpStatus { status: 503, retry_after_ms: Some(150), error_code: None };
    let before = allocations();
    let mut now = 0;
    let mut decisions = 0;
    let mut decision = operation.poll(now).expect("first decision");
    while !decision.is_final() {
        decisions += 1;
        decision = match decision {
            Decision::StartAttempt { attempt, abort_at_ms, .. } => {
                now = abort_at_ms;
                operation.on_outcome(now, attempt, &unavailable).expect("running")
            }
            Decision::Wait { until_ms, .. } => {
                now = until_ms;
                operation.poll(now).expect("waiting")
            }
            other => panic!("unexpected {other:?}"),
        };
    }
    let allocations = allocations() - before;
    assert!(
        matches!(decision, Decision::GaveUp { reason: retryplan::GiveUpReason::AttemptsExhausted, attempts: 5, .. }),
        "{decision:?}"
    );
    assert!(decisions >= 9, "the operation retried ({decisions} decisions)");
    assert_eq!(allocations, 0, "{allocations} allocations in {decisions} decisions");
}

#[test]
fn a_drivers_happy_path_allocates_nothing() {
    let policy = Arc::new(Policy::from_json(r#"{"attempt_timeout": {"fixed_ms": 1000}}"#).expect("valid"));
    let before = allocations();
    let mut driver = Driver::new(&policy, 0, OperationOptions::new(7), DriverOptions::default()).expect("valid");
    let made = allocations() - before;
    let Action::StartAttempt(plan) = driver.poll_action(0).unwrap() else { panic!("a first attempt") };
    assert_eq!(driver.handle_result(10, plan.attempt, Outcome::Success), Ok(Receipt::Accepted));
    let finish = driver.poll_action(10).unwrap();
    drop(driver);
    let allocations = allocations() - before;
    assert!(matches!(finish, Action::Finish(ending) if matches!(ending.decision, Decision::Succeeded { .. })));
    assert_eq!((made, allocations), (0, 0), "allocations: (making the driver, in all)");
}
