//! The interior mutability of the shared controls (budgets, breakers, stats):
//! a `Mutex` with the standard library, so one control serves many threads;
//! a `RefCell` without it (`no_std`, the JS binding's single-threaded wasm).
//! Likewise the pointer a control shares with the grants it hands out
//! ([`Shared`], [`SharedWeak`]): an `Arc` with the standard library, an `Rc`
//! without it (an `Arc` of a `RefCell` would claim a thread safety it lacks).
//! A leaf: it depends on nothing else in the crate.

#[cfg(feature = "std")]
mod imp {
    use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

    /// A value behind a lock.
    #[derive(Debug, Default)]
    pub(crate) struct Lock<T>(Mutex<T>);

    impl<T> Lock<T> {
        pub(crate) const fn new(value: T) -> Lock<T> {
            Lock(Mutex::new(value))
        }

        /// The value, locked. The controls never leave their state half
        /// updated across a panic, so a poisoned lock holds a valid state.
        pub(crate) fn lock(&self) -> MutexGuard<'_, T> {
            self.0.lock().unwrap_or_else(PoisonError::into_inner)
        }
    }

    /// A value computed once, on first use.
    pub(crate) type Once<T> = OnceLock<T>;

    pub(crate) use alloc::sync::{Arc as Shared, Weak as SharedWeak};
}

#[cfg(not(feature = "std"))]
mod imp {
    use core::cell::{OnceCell, RefCell, RefMut};

    /// A value behind a lock (one thread: a `RefCell`).
    #[derive(Debug, Default)]
    pub(crate) struct Lock<T>(RefCell<T>);

    impl<T> Lock<T> {
        pub(crate) const fn new(value: T) -> Lock<T> {
            Lock(RefCell::new(value))
        }

        /// The value, borrowed. The controls never call out while they hold
        /// it, so it is never borrowed twice.
        pub(crate) fn lock(&self) -> RefMut<'_, T> {
            self.0.borrow_mut()
        }
    }

    /// A value computed once, on first use.
    pub(crate) type Once<T> = OnceCell<T>;

    pub(crate) use alloc::rc::{Rc as Shared, Weak as SharedWeak};
}

pub(crate) use imp::{Lock, Once, Shared, SharedWeak};
