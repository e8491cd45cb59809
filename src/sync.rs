//! Locking the cores' `std::sync::Mutex`es in one place: a poisoned lock (a thread panicked
//! while holding it) is taken over, not propagated. Critical sections in Cumulo are short and
//! leave their state consistent before anything can panic, so the state behind a poisoned lock
//! is still valid, and serving on beats answering every later request with a panic. Owns this
//! policy only; it must not hold any state.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `mutex`, taking over a poisoned lock.
pub fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_poisoned_lock_is_taken_over() {
        let m = std::sync::Arc::new(Mutex::new(1));
        let held = m.clone();
        let _ = std::thread::spawn(move || {
            let _guard = held.lock().unwrap();
            panic!("poison it");
        })
        .join();
        assert!(m.is_poisoned());
        *lock(&m) += 1;
        assert_eq!(*lock(&m), 2);
    }
}
