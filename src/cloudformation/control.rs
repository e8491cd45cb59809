//! The handle between a running stack operation and the API calls around it: the call that
//! started the operation waits on it until it is terminal or held by a fault (`settled`), and
//! CancelUpdateStack asks it to stop (`cancel`). Owns no stack state.

use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::{watch, Notify};

/// Where a running operation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Moving forward.
    Running,
    /// Waiting out a fault's `hold_seconds` (the n-th hold of this operation).
    Holding(u64),
    /// Finished: the stack is in a terminal status.
    Done,
}

/// Shared between the operation task and the API calls that wait on or cancel it.
#[derive(Debug)]
pub struct OperationControl {
    phase: watch::Sender<Phase>,
    holds: std::sync::atomic::AtomicU64,
    cancelled: AtomicBool,
    cancel_notify: Notify,
}

impl OperationControl {
    /// A control for a new operation (Running).
    pub fn new() -> OperationControl {
        let (phase, _) = watch::channel(Phase::Running);
        OperationControl {
            phase,
            holds: Default::default(),
            cancelled: AtomicBool::new(false),
            cancel_notify: Notify::new(),
        }
    }

    /// The current phase.
    pub fn phase(&self) -> Phase {
        *self.phase.borrow()
    }

    /// Waits until the operation is done, or held by a fault.
    pub async fn settled(&self) {
        let mut rx = self.phase.subscribe();
        let _ = rx.wait_for(|p| *p != Phase::Running).await;
    }

    /// Waits until the operation is done or held by a hold other than `seen`.
    pub async fn settled_after(&self, seen: Phase) {
        let mut rx = self.phase.subscribe();
        let _ = rx
            .wait_for(|p| match *p {
                Phase::Running => false,
                Phase::Done => true,
                held @ Phase::Holding(_) => held != seen,
            })
            .await;
    }

    /// Waits until the operation is done (past any hold).
    pub async fn done(&self) {
        let mut rx = self.phase.subscribe();
        let _ = rx.wait_for(|p| *p == Phase::Done).await;
    }

    /// The operation starts waiting out a hold.
    pub fn hold_started(&self) {
        let n = self.holds.fetch_add(1, Ordering::SeqCst) + 1;
        self.phase.send_replace(Phase::Holding(n));
    }

    /// The hold is over; the operation moves on.
    pub fn resumed(&self) {
        self.phase.send_replace(Phase::Running);
    }

    /// The operation reached a terminal status.
    pub fn finished(&self) {
        self.phase.send_replace(Phase::Done);
    }

    /// Asks the operation to stop (CancelUpdateStack); a hold in progress ends at once.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        self.cancel_notify.notify_waiters();
    }

    /// True once [`OperationControl::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }

    /// Resolves when the operation is cancelled.
    pub async fn cancelled(&self) {
        loop {
            let notified = self.cancel_notify.notified();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}

impl Default for OperationControl {
    fn default() -> Self {
        OperationControl::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    #[tokio::test]
    async fn waiters_wake_on_a_hold_and_on_the_end() {
        let control = Arc::new(OperationControl::new());
        let waiter = tokio::spawn({
            let c = control.clone();
            async move { c.settled().await }
        });
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished());
        control.hold_started();
        tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .unwrap()
            .unwrap();
        let held = control.phase();
        assert_eq!(held, Phase::Holding(1));
        let after = tokio::spawn({
            let c = control.clone();
            async move { c.settled_after(held).await }
        });
        control.resumed();
        tokio::task::yield_now().await;
        assert!(!after.is_finished());
        control.finished();
        tokio::time::timeout(Duration::from_secs(5), after)
            .await
            .unwrap()
            .unwrap();
    }

    #[tokio::test]
    async fn cancel_wakes_a_hold() {
        let control = Arc::new(OperationControl::new());
        let hold = tokio::spawn({
            let c = control.clone();
            async move { c.cancelled().await }
        });
        tokio::task::yield_now().await;
        control.cancel();
        tokio::time::timeout(Duration::from_secs(5), hold)
            .await
            .unwrap()
            .unwrap();
        assert!(control.is_cancelled());
    }
}
