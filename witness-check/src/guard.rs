//! The budget's guard (decisions 173 and 174): a wall-clock interval timer whose signal handler
//! answers `unknown` alone, and ends the process, once what is left of the budget is what the
//! exit takes (unmapping the resident memory) and three ticks. It leaves the validation behind
//! wherever it is (e.g. inside a solver query past its own deadline). No thread: a small task
//! starts none and hands nothing over between threads, and the timer only fires in the last
//! seconds of the budget.
//!
//! On the CPU clock (`--clock cpu`, decision 175) the timer counts the process's CPU time
//! (`ITIMER_PROF`, `SIGPROF`) and the handler compares the process's CPU time with the budget.
//!
//! The handler runs in signal context: it only reads atomics and a message written before the
//! timer is armed, and calls `clock_gettime`, `resources::resident_bytes` (`open`, `read`,
//! `close`, `sysconf` for the page size), `write` and `_exit`: system calls, no allocation.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use witness_core::budget::Clock;

/// How often the handler looks at the clock and the resident memory, in the last seconds.
const TICK: Duration = Duration::from_millis(20);

/// The last part of the budget, in which the timer fires; before it no exit can take what is
/// left (28 GiB would take 3 s).
const WINDOW: Duration = Duration::from_secs(3);

/// Who answers, the validation or the guard: the first to set it prints.
static ANSWERED: AtomicBool = AtomicBool::new(false);
/// `CLOCK_MONOTONIC` nanoseconds at the process's start.
static START_NS: AtomicU64 = AtomicU64::new(0);
/// When the budget is spent, on the budget's clock (nanoseconds).
static END_NS: AtomicU64 = AtomicU64::new(u64::MAX);
/// The budget counts the process's CPU time (else wall-clock time).
static CPU: AtomicBool = AtomicBool::new(false);
/// The guard's answer: the text before the elapsed milliseconds and after them (JSON), or the
/// whole text (`None` after).
static MESSAGE: OnceLock<(Vec<u8>, Option<Vec<u8>>)> = OnceLock::new();

/// `CLOCK_MONOTONIC` in nanoseconds (the clock `Instant` reads).
pub fn now_ns() -> u64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid timespec to write; CLOCK_MONOTONIC exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// Now on the budget's clock, in nanoseconds.
fn budget_now_ns() -> u64 {
    if CPU.load(Ordering::SeqCst) {
        Clock::Cpu.now().as_nanos() as u64
    } else {
        now_ns()
    }
}

/// Arms the guard for a budget counted from `start_ns` ([`now_ns`] at the process's start) on
/// the wall clock, or from the process's start on the CPU clock.
pub fn install(start_ns: u64, budget: Duration, clock: Clock, json: bool) -> std::io::Result<()> {
    let reason =
        format!("{}time budget of {} s exhausted", if clock == Clock::Cpu { "CPU " } else { "" }, budget.as_secs());
    let message = if json {
        // The answer's JSON as every other (serde_json), cut where the elapsed time goes.
        let whole =
            serde_json::json!({"result": "unknown", "verdict": "unknown", "reason": reason, "stats": {"wall_ms": 0}})
                .to_string();
        let (head, tail) = whole.split_once(r#""wall_ms":0"#).unwrap_or((&whole, ""));
        (format!(r#"{head}"wall_ms":"#).into_bytes(), Some(format!("{tail}\n").into_bytes()))
    } else {
        (format!("{reason}\nRESULT: unknown\n").into_bytes(), None)
    };
    let _ = MESSAGE.set(message);
    START_NS.store(start_ns, Ordering::SeqCst);
    let cpu = clock == Clock::Cpu;
    CPU.store(cpu, Ordering::SeqCst);
    let origin = if cpu { 0 } else { start_ns };
    END_NS.store(origin.saturating_add(budget.as_nanos() as u64), Ordering::SeqCst);
    // SAFETY: a zeroed sigaction is a valid value to fill; the handler is an `extern "C"`
    // function of the signature `sa_sigaction` expects without SA_SIGINFO.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_alarm as extern "C" fn(libc::c_int) as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigfillset(&mut action.sa_mask);
        if libc::sigaction(timer_signal(), &action, std::ptr::null_mut()) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    let window_ns = END_NS.load(Ordering::SeqCst).saturating_sub(WINDOW.as_nanos() as u64);
    // A zero value would disarm the timer: at least a microsecond.
    let first = Duration::from_nanos(window_ns.saturating_sub(budget_now_ns()).max(1_000));
    arm(first, TICK)
}

/// The validation answers: the guard stays silent (`false` if the guard has answered already;
/// it ends the process).
pub fn take_answer() -> bool {
    if ANSWERED.swap(true, Ordering::SeqCst) {
        return false;
    }
    let _ = arm(Duration::ZERO, Duration::ZERO);
    true
}

/// The signal of the budget's timer.
fn timer_signal() -> libc::c_int {
    if CPU.load(Ordering::SeqCst) {
        libc::SIGPROF
    } else {
        libc::SIGALRM
    }
}

fn arm(first: Duration, every: Duration) -> std::io::Result<()> {
    let tv = |d: Duration| libc::timeval { tv_sec: d.as_secs() as libc::time_t, tv_usec: d.subsec_micros() as _ };
    let timer = libc::itimerval { it_value: tv(first), it_interval: tv(every) };
    // SAFETY: `timer` is a valid itimerval; the old value is not asked for.
    let which = if CPU.load(Ordering::SeqCst) { libc::ITIMER_PROF } else { libc::ITIMER_REAL };
    if unsafe { libc::setitimer(which, &timer, std::ptr::null_mut()) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The guard answers when the time left is no more than the exit takes and three ticks.
fn must_answer(now_ns: u64, end_ns: u64, resident: u64) -> bool {
    let exit = witness_core::resources::exit_cost(resident) + 3 * TICK;
    now_ns.saturating_add(exit.as_nanos() as u64) >= end_ns
}

extern "C" fn on_alarm(_signal: libc::c_int) {
    let resident = witness_core::resources::resident_bytes().unwrap_or(0);
    if !must_answer(budget_now_ns(), END_NS.load(Ordering::SeqCst), resident) {
        return;
    }
    if ANSWERED.swap(true, Ordering::SeqCst) {
        return;
    }
    if let Some((head, tail)) = MESSAGE.get() {
        write_all(head);
        if let Some(tail) = tail {
            let ms = now_ns().saturating_sub(START_NS.load(Ordering::SeqCst)) / 1_000_000;
            let mut digits = [0u8; 20];
            write_all(decimal(ms, &mut digits));
            write_all(tail);
        }
    }
    // SAFETY: `_exit` is async-signal-safe and never returns. No exit handlers: the validation
    // may be inside Z3, whose global destructors would run under it.
    unsafe { libc::_exit(0) }
}

/// `n` in decimal, in the tail of `buf`.
fn decimal(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[i..];
        }
    }
}

fn write_all(mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: the pointer and length describe `bytes`.
        let n = unsafe { libc::write(1, bytes.as_ptr().cast(), bytes.len()) };
        if n > 0 {
            bytes = &bytes[n as usize..];
        } else if n < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        } else {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decision 174: the binary links gcc's unwinder statically; panics still unwind and are
    /// caught (the validation's internal errors are reported this way).
    #[test]
    fn panics_unwind_with_the_linked_unwinder() {
        let r = std::panic::catch_unwind(|| -> u32 { panic!("caught") });
        assert!(r.is_err());
        let r = witness_core::stack::with_stack(1 << 20, || std::panic::catch_unwind(|| -> u32 { panic!("deep") }));
        assert!(r.is_err());
    }

    #[test]
    fn answers_when_only_the_exit_is_left() {
        let s = 1_000_000_000u64;
        // 10 ms of RAM: a megabyte; 3 ticks are 60 ms.
        assert!(!must_answer(0, s, 1 << 20));
        assert!(!must_answer(s - 70_000_000, s, 1 << 20));
        assert!(must_answer(s - 60_000_000, s, 1 << 20));
        // 4 GiB take 420 ms to unmap.
        assert!(must_answer(s - 450_000_000, s, 4 << 30));
        assert!(!must_answer(s - 500_000_000, s, 4 << 30));
        assert!(must_answer(2 * s, s, 0));
    }

    #[test]
    fn writes_numbers() {
        let mut b = [0u8; 20];
        assert_eq!(decimal(0, &mut b), b"0");
        assert_eq!(decimal(90_123, &mut b), b"90123");
        assert_eq!(decimal(u64::MAX, &mut b), b"18446744073709551615");
    }
}
