//! Large stacks on the calling thread (decision 174): lang-c's parser recurses deeply, and a
//! thread of its own costs a small task a fifth of its time (creation, and the hand-over between
//! cores). [`with_stack`] runs a closure on a fresh stack segment of the current thread (`psm`),
//! mapped lazily, with a guard page below it; nested calls that fit in the segment they run on
//! use it as it is.

use std::cell::Cell;

thread_local! {
    /// The segment this thread runs on, if one of ours: its lowest usable and highest address.
    static SEGMENT: Cell<Option<(usize, usize)>> = const { Cell::new(None) };
}

/// Runs `f` with at least `size` bytes of stack. A panic in `f` propagates.
pub fn with_stack<R>(size: usize, f: impl FnOnce() -> R) -> R {
    // An address in this frame: where the stack is now.
    let here = std::ptr::addr_of!(size) as usize;
    if SEGMENT.get().is_some_and(|(low, high)| low < here && here <= high && here - low >= size) {
        return f();
    }
    on_new_segment(size, f)
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn on_new_segment<R>(size: usize, f: impl FnOnce() -> R) -> R {
    const PAGE: usize = 4096;
    let size = size.next_multiple_of(PAGE);
    let len = size + PAGE;
    // SAFETY: an anonymous private mapping of `len` bytes, checked below; nothing aliases it.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_STACK,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        // No address space for it: the segment's own fallback (a heap allocation or a thread).
        return stacker::grow(size, f);
    }
    // SAFETY: the first page of the mapping becomes the guard page.
    unsafe { libc::mprotect(p, PAGE, libc::PROT_NONE) };
    let low = p as usize + PAGE;
    let outer = SEGMENT.replace(Some((low, low + size)));
    let run = std::panic::AssertUnwindSafe(f);
    // SAFETY: `low` is page-aligned and `size` bytes above it are mapped read-write; the
    // callback does not unwind (the panic is caught and resumed below, on the old stack).
    let r = unsafe { psm::on_stack(low as *mut u8, size, move || std::panic::catch_unwind(run)) };
    SEGMENT.set(outer);
    // SAFETY: the mapping is ours and nothing runs on it any more.
    unsafe { libc::munmap(p, len) };
    match r {
        Ok(v) => v,
        Err(payload) => std::panic::resume_unwind(payload),
    }
}

#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
fn on_new_segment<R>(size: usize, f: impl FnOnce() -> R) -> R {
    stacker::grow(size, f)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth(n: u32) -> u32 {
        // About 4 KiB a frame: 20 000 frames need 80 MiB, far more than a test thread has.
        let pad = std::hint::black_box([0u8; 4000]);
        if n == 0 {
            u32::from(pad[0])
        } else {
            depth(n - 1) + 1 + u32::from(pad[1])
        }
    }

    #[test]
    fn deep_recursion_runs_on_the_segment_and_nests() {
        assert_eq!(with_stack(256 << 20, || depth(20_000)), 20_000);
        // A nested call that fits runs on the same segment (same stack region).
        let (outer, inner) = with_stack(64 << 20, || {
            let a = std::hint::black_box(0u8);
            let here = std::ptr::addr_of!(a) as usize;
            let inner = with_stack(1 << 20, || {
                let b = std::hint::black_box(0u8);
                std::ptr::addr_of!(b) as usize
            });
            (here, inner)
        });
        assert!(outer.abs_diff(inner) < 1 << 20, "{outer:#x} {inner:#x}");
        // Panics come out as panics.
        let r = std::panic::catch_unwind(|| with_stack(1 << 20, || panic!("inside")));
        assert!(r.is_err());
    }
}
