//! The one clock every part of Cumulo reads (`../shared/spec/extensions.md`, "Clock").
//!
//! `Clock` runs in `system` mode (wall time) or `manual` mode (frozen until a test moves it).
//! This module is the only code allowed to read the wall clock or to sleep: `clippy.toml`
//! forbids `SystemTime::now`, `Utc::now`, `Instant::now` and `tokio::time::sleep` elsewhere.
//! It knows nothing of schedules: firing what a manual move makes due is the dispatcher's job
//! (`crate::scheduler::dispatcher`), which steps the clock through each due instant with
//! [`Clock::step_manual`].

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::sync::lock;
use chrono::{DateTime, Utc};
use tokio::sync::watch;

/// How the clock advances. Serialised as `"system"` / `"manual"` on `/_cumulo/clock`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockMode {
    /// Wall time (UTC).
    System,
    /// Frozen; moved only by `POST /_cumulo/clock` (`set` / `advance_seconds`).
    Manual,
}

impl ClockMode {
    /// The wire name: `system` or `manual`.
    pub fn as_str(self) -> &'static str {
        match self {
            ClockMode::System => "system",
            ClockMode::Manual => "manual",
        }
    }

    /// Parses `system` / `manual` (the values of `CUMULO_CLOCK` and of the clock endpoint).
    pub fn parse(s: &str) -> Option<ClockMode> {
        match s {
            "system" => Some(ClockMode::System),
            "manual" => Some(ClockMode::Manual),
            _ => None,
        }
    }
}

/// Why a clock move was refused (HTTP 400 `ValidationException` on `/_cumulo/clock`).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ClockError {
    /// `set` / `advance_seconds` while the clock follows wall time.
    #[error("the clock is in system mode; switch it to manual first ({{\"mode\":\"manual\"}})")]
    NotManual,
    /// A manual clock only moves forward.
    #[error("the manual clock cannot move backwards (now {now}, requested {requested})")]
    Backwards {
        /// The current manual time.
        now: String,
        /// The requested time.
        requested: String,
    },
}

struct State {
    mode: ClockMode,
    /// The frozen instant while `mode` is manual.
    manual_now: DateTime<Utc>,
}

struct Inner {
    state: Mutex<State>,
    /// Bumped on every mode change or manual move, so sleepers re-evaluate their deadline.
    changed: watch::Sender<u64>,
}

/// A cheap handle (clone it freely) to the emulator's single clock.
#[derive(Clone)]
pub struct Clock {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Clock")
            .field("mode", &self.mode())
            .field("now", &self.now())
            .finish()
    }
}

/// The one wall-clock read in Cumulo.
#[allow(clippy::disallowed_methods)]
fn wall_now() -> DateTime<Utc> {
    Utc::now()
}

impl Clock {
    /// A clock in `mode`; a manual clock starts frozen at the current wall time.
    pub fn new(mode: ClockMode) -> Clock {
        let (changed, _) = watch::channel(0);
        Clock {
            inner: Arc::new(Inner {
                state: Mutex::new(State {
                    mode,
                    manual_now: wall_now(),
                }),
                changed,
            }),
        }
    }

    /// A manual clock frozen at `at` (tests).
    pub fn manual_at(at: DateTime<Utc>) -> Clock {
        let clock = Clock::new(ClockMode::Manual);
        lock(&clock.inner.state).manual_now = at;
        clock
    }

    fn bump(&self) {
        self.inner.changed.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// The current instant (UTC, nanosecond precision).
    pub fn now(&self) -> DateTime<Utc> {
        let state = lock(&self.inner.state);
        match state.mode {
            ClockMode::System => wall_now(),
            ClockMode::Manual => state.manual_now,
        }
    }

    /// The current mode.
    pub fn mode(&self) -> ClockMode {
        lock(&self.inner.state).mode
    }

    /// Switches mode. Switching to manual freezes the clock at the current instant; switching
    /// to system returns to wall time (which may be earlier than a manual time set before).
    pub fn set_mode(&self, mode: ClockMode) {
        {
            let mut state = lock(&self.inner.state);
            if state.mode == mode {
                return;
            }
            if mode == ClockMode::Manual {
                state.manual_now = wall_now();
            }
            state.mode = mode;
        }
        self.bump();
    }

    /// Checks that a manual move to `to` is allowed (manual mode, not backwards) without
    /// moving anything.
    pub fn check_manual_move(&self, to: DateTime<Utc>) -> Result<(), ClockError> {
        let state = lock(&self.inner.state);
        if state.mode != ClockMode::Manual {
            return Err(ClockError::NotManual);
        }
        if to < state.manual_now {
            return Err(ClockError::Backwards {
                now: crate::time::rfc3339(state.manual_now),
                requested: crate::time::rfc3339(to),
            });
        }
        Ok(())
    }

    /// Moves a manual clock forward to `to` (used by the dispatcher as it fires each due
    /// instant in turn). Refused in system mode or backwards.
    pub fn step_manual(&self, to: DateTime<Utc>) -> Result<(), ClockError> {
        {
            let mut state = lock(&self.inner.state);
            if state.mode != ClockMode::Manual {
                return Err(ClockError::NotManual);
            }
            if to < state.manual_now {
                return Err(ClockError::Backwards {
                    now: crate::time::rfc3339(state.manual_now),
                    requested: crate::time::rfc3339(to),
                });
            }
            if to == state.manual_now {
                return Ok(());
            }
            state.manual_now = to;
        }
        self.bump();
        Ok(())
    }

    /// A receiver that changes whenever the mode or the manual time changes.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.inner.changed.subscribe()
    }

    /// Sleeps until the clock reads `deadline` or later. In system mode this is a timer; in
    /// manual mode it returns once the clock is moved to or past `deadline`. Any mode change
    /// or manual move re-evaluates the deadline, so a sleeper never oversleeps a jump.
    #[allow(clippy::disallowed_methods)]
    pub async fn sleep_until(&self, deadline: DateTime<Utc>) {
        let mut changes = self.subscribe();
        loop {
            changes.borrow_and_update();
            let (mode, now) = {
                let state = lock(&self.inner.state);
                (
                    state.mode,
                    if state.mode == ClockMode::System {
                        wall_now()
                    } else {
                        state.manual_now
                    },
                )
            };
            if now >= deadline {
                return;
            }
            match mode {
                ClockMode::System => {
                    let wait = (deadline - now).to_std().unwrap_or(Duration::ZERO);
                    tokio::select! {
                        _ = tokio::time::sleep(wait) => {}
                        _ = changes.changed() => {}
                    }
                }
                ClockMode::Manual => {
                    if changes.changed().await.is_err() {
                        return;
                    }
                }
            }
        }
    }

    /// Sleeps for a span of wall time whatever the mode. Only for transport-level waits that
    /// are not domain time (SQS long polling, fault `hold_seconds`): a manual clock must not
    /// turn a 20 s long poll into a hang.
    #[allow(clippy::disallowed_methods)]
    pub async fn sleep_wall(&self, span: Duration) {
        tokio::time::sleep(span).await;
    }

    /// A monotonic instant for measuring elapsed wall time (tracing of durations only).
    #[allow(clippy::disallowed_methods)]
    pub fn monotonic(&self) -> std::time::Instant {
        std::time::Instant::now()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn manual_clock_moves_only_forward() {
        let t0 = Utc.with_ymd_and_hms(2026, 3, 8, 6, 59, 0).unwrap();
        let clock = Clock::manual_at(t0);
        assert_eq!(clock.now(), t0);
        let t1 = t0 + chrono::Duration::seconds(90);
        clock.step_manual(t1).unwrap();
        assert_eq!(clock.now(), t1);
        assert!(matches!(
            clock.step_manual(t0),
            Err(ClockError::Backwards { .. })
        ));
        assert_eq!(clock.now(), t1);
    }

    #[test]
    fn system_mode_refuses_manual_moves() {
        let clock = Clock::new(ClockMode::System);
        assert_eq!(clock.step_manual(wall_now()), Err(ClockError::NotManual));
    }

    #[tokio::test]
    async fn manual_sleeper_wakes_when_the_clock_passes_its_deadline() {
        let t0 = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap();
        let clock = Clock::manual_at(t0);
        let deadline = t0 + chrono::Duration::seconds(60);
        let sleeper = tokio::spawn({
            let clock = clock.clone();
            async move { clock.sleep_until(deadline).await }
        });
        tokio::task::yield_now().await;
        clock
            .step_manual(t0 + chrono::Duration::seconds(30))
            .unwrap();
        tokio::task::yield_now().await;
        assert!(!sleeper.is_finished());
        clock.step_manual(deadline).unwrap();
        tokio::time::timeout(Duration::from_secs(5), sleeper)
            .await
            .unwrap()
            .unwrap();
    }
}
