//! The budget's clock (issue 32 item 5, decision 175). A validation's time budget is counted on
//! one [`Clock`]: wall-clock time (the default, what a user waits for) or the process's CPU time
//! (what BenchExec's CPU-time limit counts, and what does not depend on how loaded the machine
//! is). Every deadline of the library is a [`Deadline`] on that clock; nothing else reads a clock
//! to decide when to stop.

use std::time::Duration;

/// What a time budget counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Clock {
    /// Monotonic wall-clock time (`CLOCK_MONOTONIC`, the clock `std::time::Instant` reads).
    #[default]
    Wall,
    /// The CPU time of the whole process, user and system, all threads
    /// (`CLOCK_PROCESS_CPUTIME_ID`): a run that waits for the processor does not spend it.
    Cpu,
}

impl Clock {
    /// The clock's reading.
    pub fn now(self) -> Duration {
        let id = match self {
            Clock::Wall => libc::CLOCK_MONOTONIC,
            Clock::Cpu => libc::CLOCK_PROCESS_CPUTIME_ID,
        };
        let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `t` is a valid timespec to write; both clocks exist on Linux.
        unsafe { libc::clock_gettime(id, &mut t) };
        Duration::new(t.tv_sec.max(0) as u64, t.tv_nsec.clamp(0, 999_999_999) as u32)
    }

    /// The name the command line uses (`--clock`).
    pub fn name(self) -> &'static str {
        match self {
            Clock::Wall => "wall-clock",
            Clock::Cpu => "CPU",
        }
    }
}

/// A point on a [`Clock`] by which work must stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadline {
    clock: Clock,
    at: Duration,
}

impl Deadline {
    /// `budget` from now on `clock`.
    pub fn after(clock: Clock, budget: Duration) -> Deadline {
        Deadline { clock, at: clock.now().saturating_add(budget) }
    }

    /// The clock it is counted on.
    pub fn clock(self) -> Clock {
        self.clock
    }

    /// Time left before it (zero once passed).
    pub fn remaining(self) -> Duration {
        self.at.saturating_sub(self.clock.now())
    }

    /// Has it passed?
    pub fn passed(self) -> bool {
        self.clock.now() >= self.at
    }

    /// Is no more than `margin` left?
    pub fn within(self, margin: Duration) -> bool {
        self.clock.now().saturating_add(margin) >= self.at
    }

    /// `d` from now on the same clock, but no later than this deadline.
    pub fn sooner(self, d: Duration) -> Deadline {
        Deadline { clock: self.clock, at: self.at.min(self.clock.now().saturating_add(d)) }
    }

    /// This deadline moved `d` earlier (no earlier than the clock's zero).
    pub fn earlier_by(self, d: Duration) -> Deadline {
        Deadline { clock: self.clock, at: self.at.saturating_sub(d) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wall_deadline_passes_and_cpu_time_is_spent_only_by_work() {
        let d = Deadline::after(Clock::Wall, Duration::from_millis(30));
        assert!(!d.passed());
        assert!(d.within(Duration::from_millis(40)));
        std::thread::sleep(Duration::from_millis(35));
        assert!(d.passed());
        assert_eq!(d.remaining(), Duration::ZERO);
        // Work spends CPU time (whether sleeping does not cannot be told here: other tests'
        // threads spend the same process's CPU time; tests/e2e.rs checks it on the binary).
        let c = Deadline::after(Clock::Cpu, Duration::from_millis(30));
        assert!(c.remaining() <= Duration::from_millis(30));
        let mut x = 0u64;
        while !c.passed() {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        assert!(c.passed());
    }

    #[test]
    fn sooner_and_earlier_never_move_a_deadline_later() {
        let d = Deadline::after(Clock::Wall, Duration::from_secs(10));
        assert_eq!(d.sooner(Duration::from_secs(100)).at, d.at);
        assert!(d.sooner(Duration::from_secs(1)).remaining() <= Duration::from_secs(1));
        assert!(d.earlier_by(Duration::from_secs(20)).passed());
        assert_eq!(d.earlier_by(Duration::from_secs(2)).at + Duration::from_secs(2), d.at);
        assert_eq!(d.sooner(Duration::ZERO).clock(), Clock::Wall);
    }
}
