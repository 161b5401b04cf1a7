//! The operating system's random bits for the next operations, drawn ahead
//! in one system call.

use crate::config::error::Error;

use super::options::{OperationOptions, BYTES_PER_OPERATION};

/// How many operations' random bits one refill of an [`EntropyPool`] draws.
pub const OPERATIONS_PER_REFILL: usize = 16;

/// The operating system's random bits (`getrandom`) for the next
/// [`OPERATIONS_PER_REFILL`] operations, drawn in one call: each `getrandom`
/// call is a system call (about 350 ns for one operation's 24 bytes on a
/// virtual machine, about 80 ns each when drawn for 16). Every operation
/// still gets bits of its own, straight from the OS, as
/// [`OperationOptions::from_entropy`] gives them; none is derived or reused.
///
/// The crate holds no global: a host keeps one pool (behind its own lock) for
/// all its operations. A host whose process can fork must
/// [`forget`](EntropyPool::forget) the pool in the child, which would
/// otherwise draw the same seeds and idempotency keys as its parent (Python's
/// binding registers this with `os.register_at_fork`; a JVM does not fork).
///
/// ```
/// use retryplan::engine::operation::EntropyPool;
/// use retryplan::{Operation, Policy};
/// let policy = Policy::from_json("{}").unwrap();
/// let mut pool = EntropyPool::new();
/// let first = Operation::new(&policy, 0, pool.draw().unwrap());
/// let second = Operation::new(&policy, 0, pool.draw().unwrap());
/// assert_ne!(first.idempotency_key(), second.idempotency_key());
/// ```
#[derive(Debug)]
pub struct EntropyPool {
    bytes: [u8; BYTES_PER_OPERATION * OPERATIONS_PER_REFILL],
    /// How many of `bytes` are used: all of them when the pool is empty.
    used: usize,
}

impl EntropyPool {
    /// An empty pool: its first [`draw`](EntropyPool::draw) refills it.
    #[must_use]
    pub const fn new() -> EntropyPool {
        EntropyPool {
            bytes: [0; BYTES_PER_OPERATION * OPERATIONS_PER_REFILL],
            used: BYTES_PER_OPERATION * OPERATIONS_PER_REFILL,
        }
    }

    /// Options with the next operation's seed and key from the pool (as
    /// [`OperationOptions::from_random`] makes them), refilling it from the
    /// OS when it is empty.
    ///
    /// # Errors
    /// [`Error::EntropyUnavailable`] when the random source fails; the pool
    /// stays empty, and the next draw asks the OS again.
    pub fn draw(&mut self) -> Result<OperationOptions, Error> {
        if self.used >= self.bytes.len() {
            getrandom::fill(&mut self.bytes)
                .map_err(|error| Error::EntropyUnavailable { message: error.to_string() })?;
            self.used = 0;
        }
        let mut drawn = [0u8; BYTES_PER_OPERATION];
        if let Some(bytes) = self.bytes.get_mut(self.used..self.used + BYTES_PER_OPERATION) {
            drawn.copy_from_slice(bytes);
            bytes.fill(0); // never handed out twice
        }
        self.used += BYTES_PER_OPERATION;
        Ok(OperationOptions::from_drawn(drawn))
    }

    /// Forgets the bits drawn ahead: the next draw asks the OS. A forked
    /// child calls this, so that it never draws its parent's bits.
    pub fn forget(&mut self) {
        self.bytes.fill(0);
        self.used = self.bytes.len();
    }
}

impl Default for EntropyPool {
    fn default() -> EntropyPool {
        EntropyPool::new()
    }
}

#[cfg(test)]
mod tests {
    use super::{EntropyPool, OPERATIONS_PER_REFILL};
    use crate::{Operation, Policy};

    fn keys(pool: &mut EntropyPool, count: usize) -> Vec<String> {
        let policy = Policy::from_json("{}").expect("valid");
        (0..count)
            .map(|_| {
                Operation::new(&policy, 0, pool.draw().expect("the OS's randomness"))
                    .idempotency_key()
                    .as_str()
                    .to_owned()
            })
            .collect()
    }

    #[test]
    fn every_draw_has_its_own_bits_across_refills() {
        let mut pool = EntropyPool::new();
        let mut drawn = keys(&mut pool, 3 * OPERATIONS_PER_REFILL + 1);
        drawn.sort();
        drawn.dedup();
        assert_eq!(drawn.len(), 3 * OPERATIONS_PER_REFILL + 1);
    }

    #[test]
    fn a_forgotten_pool_asks_the_os_again() {
        let mut pool = EntropyPool::new();
        let _ = keys(&mut pool, 1);
        assert_eq!(pool.used, 24);
        pool.forget();
        assert_eq!(pool.used, pool.bytes.len());
        assert!(pool.bytes.iter().all(|&byte| byte == 0));
        let _ = keys(&mut pool, 1);
        assert_eq!(pool.used, 24);
    }

    #[test]
    fn a_drawn_operations_bits_are_cleared_from_the_pool() {
        let mut pool = EntropyPool::new();
        let _ = keys(&mut pool, 2);
        assert!(pool.bytes[..48].iter().all(|&byte| byte == 0));
        assert!(pool.bytes[48..].iter().any(|&byte| byte != 0));
    }
}
