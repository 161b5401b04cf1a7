//! Live engine objects by their uniffi handle: each object type's table
//! (`POLICIES`, `DRIVERS`, `OPERATIONS`, kept beside their types), through
//! which `wire.rs` finds an object without dereferencing a handle.

use std::collections::BTreeMap;
use std::sync::{Arc, PoisonError, RwLock, Weak};

/// Live objects of one type by their uniffi handle (the address `Arc::into_raw`
/// gives, which is `Arc::as_ptr`). Weak, so the table never keeps one alive.
pub(crate) struct Registry<T>(RwLock<BTreeMap<usize, Weak<T>>>);

impl<T> Registry<T> {
    pub(crate) const fn new() -> Registry<T> {
        Registry(RwLock::new(BTreeMap::new()))
    }

    /// Records a new object; its constructor calls it before handing the `Arc` to uniffi.
    pub(crate) fn register(&self, object: &Arc<T>) {
        let key = Arc::as_ptr(object) as usize;
        self.0.write().unwrap_or_else(PoisonError::into_inner).insert(key, Arc::downgrade(object));
    }

    /// Forgets an object being dropped (its address may be reused once it is freed).
    pub(crate) fn unregister(&self, object: &T) {
        let key = std::ptr::from_ref(object) as usize;
        self.0.write().unwrap_or_else(PoisonError::into_inner).remove(&key);
    }

    pub(crate) fn live(&self, handle: u64) -> Option<Arc<T>> {
        let key = usize::try_from(handle).ok()?;
        self.0.read().unwrap_or_else(PoisonError::into_inner).get(&key)?.upgrade()
    }
}
