//! Steady-state decisions allocate nothing: a counting global allocator
//! watches a whole retrying operation after it was created.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use retryplan::{Decision, Operation, OperationOptions, Outcome, Policy};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn decisions_allocate_nothing() {
    let policy = Policy::from_json(r#"{"max_attempts": 5, "total_budget_ms": 60000}"#).expect("valid");
    let mut operation = Operation::new(&policy, 0, OperationOptions::new(42));
    let unavailable = Outcome::HttpStatus { status: 503, retry_after_ms: Some(150), error_code: None };
    let before = ALLOCATIONS.load(Ordering::SeqCst);
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
    let allocations = ALLOCATIONS.load(Ordering::SeqCst) - before;
    assert!(
        matches!(decision, Decision::GaveUp { reason: retryplan::GiveUpReason::AttemptsExhausted, attempts: 5, .. }),
        "{decision:?}"
    );
    assert!(decisions >= 9, "the operation retried ({decisions} decisions)");
    assert_eq!(allocations, 0, "{allocations} allocations in {decisions} decisions");
}
