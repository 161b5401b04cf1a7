//! The objects JS holds (policies, operations, controls, stats), in one table
//! and named by handles: the JS classes of `lib/` hold a handle each and pass
//! it with numbers and strings to the `_` functions. No wasm-bindgen class:
//! each of those costs a borrow-checked wrapper per method and a JS wrapper
//! per object, more than the work of most calls.
//!
//! A handle is a slot index in its low 20 bits and the slot's generation
//! above (never 0: the first generation is 1), so that a handle freed (and its
//! slot reused) is refused. A call never holds the table while it reads a JS
//! object or calls JS: it takes what it needs out first.

use alloc::boxed::Box;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::cell::RefCell;

use retryplan as rp;
use wasm_bindgen::JsValue;

use crate::{invalid, invalid_with, Global};

/// A control owned by its handle, or one of a dependency's.
#[cfg(feature = "controls")]
pub(crate) enum Control<T> {
    Own(T),
    Shared(Arc<rp::Dependency>),
}

#[cfg(feature = "controls")]
impl<T> Control<T> {
    /// The control, or the error when the dependency lacks it (a shared handle
    /// is made only when it has it).
    pub(crate) fn get<'a>(&'a self, pick: impl FnOnce(&'a rp::Dependency) -> Option<&'a T>) -> Result<&'a T, JsValue> {
        match self {
            Control::Own(control) => Ok(control),
            Control::Shared(dependency) => pick(dependency).ok_or_else(|| invalid("control", "control")),
        }
    }
}

/// Every kind of object JS holds. The slots of the table are as large as an
/// operation (288 B on wasm32); a driver (544 B on wasm32, measured with
/// `size_of`) is boxed, so that every slot, a forgotten object's until the
/// collector frees it, costs about half as much, for one allocation per
/// driver. An operation is not boxed: the allocator (a free list) searches
/// longer as forgotten operations pile up, ten times slower in
/// memory-bench.mjs than a slot copied in and out.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Object {
    Policy(Arc<rp::Policy>),
    Operation(rp::Operation),
    #[cfg(feature = "controls")]
    Dependency(Arc<rp::Dependency>),
    #[cfg(feature = "controls")]
    Budget(Control<rp::RetryBudget>),
    #[cfg(feature = "controls")]
    Breaker(Control<rp::CircuitBreaker>),
    #[cfg(feature = "controls")]
    /// A breaker's permit (whether it is a probe), settled once.
    Permit(bool, rp::config::grant::GrantCell<rp::controls::breaker::BreakerPermit>),
    #[cfg(feature = "controls")]
    /// A budget's charge (its cost), settled once.
    Charge(u32, rp::config::grant::GrantCell<rp::controls::budget::RetryCharge>),
    #[cfg(feature = "controls")]
    /// Retry slots.
    Slots(Control<rp::RetrySlots>),
    #[cfg(feature = "controls")]
    /// A retry slot, given back once.
    Slot(rp::config::grant::GrantCell<rp::controls::retry_slots::RetrySlot>),
    Stats(Arc<rp::engine::stats::SharedStats>),
    Driver(Box<retryplan::Driver>),
    /// An incoming request's context, with its policy's `propagation.reserve_ms`
    /// and the answer the endings of the operations made while serving it decide.
    #[cfg(feature = "propagation")]
    Incoming(Box<(rp::propagation::IncomingContext, u64, rp::propagation::Answer)>),
    #[cfg(feature = "tools")]
    ServiceConfig(rp::dialects::grpc::ServiceConfig),
}

struct Table {
    slots: Vec<(u32, Option<Object>)>,
    free: Vec<usize>,
}

static OBJECTS: Global<RefCell<Table>> = Global(RefCell::new(Table { slots: Vec::new(), free: Vec::new() }));

const INDEX_BITS: u32 = 20;
const INDEX_MASK: u32 = (1 << INDEX_BITS) - 1;
const GENERATIONS: u32 = 1 << (32 - INDEX_BITS);

/// The error for a handle that names no object: freed, or never made.
pub(crate) fn freed(name: &str) -> JsValue {
    invalid(name, "freed")
}

/// Keeps `object`; its handle.
pub(crate) fn insert(object: Object) -> Result<u32, JsValue> {
    let mut table = OBJECTS.0.try_borrow_mut().map_err(|_| freed("object"))?;
    let index = match table.free.pop() {
        Some(index) => index,
        None if table.slots.len() < INDEX_MASK as usize => {
            table.slots.push((1, None));
            table.slots.len() - 1
        }
        None => return Err(invalid_with("object", "objects", &JsValue::from(INDEX_MASK), &JsValue::UNDEFINED)),
    };
    let slot = table.slots.get_mut(index).ok_or_else(|| freed("object"))?;
    slot.1 = Some(object);
    Ok(slot.0 << INDEX_BITS | index as u32)
}

/// Drops the object `handle` names (a stale handle is ignored). It is dropped
/// outside the table: dropping an operation gives back what it holds from
/// shared controls, never calling JS.
pub(crate) fn remove(handle: u32) {
    let dropped = OBJECTS.0.try_borrow_mut().ok().and_then(|mut table| {
        let index = (handle & INDEX_MASK) as usize;
        let (generation, object) = table.slots.get_mut(index)?;
        if *generation != handle >> INDEX_BITS || object.is_none() {
            return None;
        }
        *generation = (*generation + 1) % GENERATIONS;
        if *generation == 0 {
            *generation = 1;
        }
        let dropped = object.take();
        table.free.push(index);
        dropped
    });
    drop(dropped);
}

/// Runs `use_object` on the object `handle` names (`name`, for the error of a stale handle).
pub(crate) fn with<T>(
    handle: u32,
    name: &str,
    use_object: impl FnOnce(&mut Object) -> Result<T, JsValue>,
) -> Result<T, JsValue> {
    let mut table = OBJECTS.0.try_borrow_mut().map_err(|_| freed(name))?;
    match table.slots.get_mut((handle & INDEX_MASK) as usize) {
        Some((generation, Some(object))) if *generation == handle >> INDEX_BITS => use_object(object),
        _ => Err(freed(name)),
    }
}

/// The policy `handle` names (shared, so the table is not held while it is used).
pub(crate) fn policy(handle: u32) -> Result<Arc<rp::Policy>, JsValue> {
    with(handle, "policy", |object| match object {
        Object::Policy(policy) => Ok(Arc::clone(policy)),
        _ => Err(freed("policy")),
    })
}

/// The incoming context `handle` names (a copy: the table is not held while it is used) and its reserve.
#[cfg(feature = "propagation")]
pub(crate) fn incoming(handle: u32) -> Result<(rp::propagation::IncomingContext, u64), JsValue> {
    with(handle, "incoming", |object| match object {
        Object::Incoming(read) => Ok((read.0.clone(), read.1)),
        _ => Err(freed("incoming")),
    })
}

/// The dependency `handle` names, or none for handle 0.
#[cfg(feature = "controls")]
pub(crate) fn dependency(handle: u32) -> Result<Option<Arc<rp::Dependency>>, JsValue> {
    shared(
        handle,
        "dependency",
        |object| if let Object::Dependency(dependency) = object { Some(dependency) } else { None },
    )
}

/// The stats `handle` names, or none for handle 0.
pub(crate) fn stats(handle: u32) -> Result<Option<Arc<rp::engine::stats::SharedStats>>, JsValue> {
    shared(handle, "stats", |object| if let Object::Stats(stats) = object { Some(stats) } else { None })
}

/// What `pick` finds shared in the object `handle` names (`name`, for the
/// error of a stale or foreign handle), or none for handle 0.
fn shared<T>(handle: u32, name: &str, pick: fn(&Object) -> Option<&Arc<T>>) -> Result<Option<Arc<T>>, JsValue> {
    if handle == 0 {
        return Ok(None);
    }
    with(handle, name, |object| pick(object).map(|found| Some(Arc::clone(found))).ok_or_else(|| freed(name)))
}
