//! The process's own memory: its resident size, and the default memory limit (the cgroup's
//! limit, else a fraction of physical memory). Reads `/proc` and `/sys/fs/cgroup` only; where
//! they are missing (not Linux), the answers are `None` and no limit applies.

/// Resident set size of this process in bytes (`/proc/self/statm`). System calls only, no
/// allocation: the search samples it every 1024 states, and the budget's guard calls it from a
/// signal handler (decision 173).
pub fn resident_bytes() -> Option<u64> {
    let mut buf = [0u8; 128];
    // SAFETY: a NUL-terminated path; `buf` is writable for its length; the descriptor is closed.
    let n = unsafe {
        let fd = libc::open(c"/proc/self/statm".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return None;
        }
        let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
        libc::close(fd);
        n
    };
    let text = buf.get(..usize::try_from(n).ok()?)?;
    // "size resident shared …": the second field, in pages.
    let second = text.split(|b| *b == b' ').nth(1)?;
    let digits = &second[..second.iter().take_while(|b| b.is_ascii_digit()).count()];
    if digits.is_empty() {
        return None;
    }
    let pages = digits.iter().fold(0u64, |a, b| a.saturating_mul(10).saturating_add(u64::from(b - b'0')));
    Some(pages * page_size())
}

fn page_size() -> u64 {
    // SAFETY: sysconf has no preconditions; it returns -1 for an unknown name.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as u64
    } else {
        4096
    }
}

/// Time the kernel takes to unmap this much resident memory when the process exits (decision
/// 173): measured 85 ms per GiB on the machine of issue 24 (8 GiB: 0.58–0.70 s, a second
/// process busy on the other core), kept back with a fifth more.
pub fn exit_cost(resident: u64) -> std::time::Duration {
    const NANOS_PER_GIB: u64 = 105_000_000;
    std::time::Duration::from_nanos(((resident as u128 * NANOS_PER_GIB as u128) >> 30) as u64)
}

/// Share of the limit the process may use before it stops (decision 68): the resident size is
/// sampled, not bounded, so some headroom keeps the kernel's out-of-memory killer away.
const SHARE_OF_CGROUP: f64 = 0.85;
/// Share of physical memory used without a cgroup limit.
const SHARE_OF_RAM: f64 = 0.5;

/// What `--memory-limit` says (decision 68).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryLimit {
    /// No limit.
    Off,
    /// This many bytes of resident memory.
    Bytes(u64),
    /// [`default_memory_limit`], looked up when the exploration first samples its memory (not
    /// at start: reading the cgroup files costs a tenth of a small task).
    Default,
}

impl MemoryLimit {
    /// The limit in bytes, if any.
    pub fn bytes(self) -> Option<u64> {
        static DEFAULT: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
        match self {
            MemoryLimit::Off => None,
            MemoryLimit::Bytes(b) => Some(b),
            MemoryLimit::Default => *DEFAULT.get_or_init(default_memory_limit),
        }
    }
}

/// The default memory limit in bytes: 85 % of the cgroup's limit (v2 `memory.max`, v1
/// `memory.limit_in_bytes`), else half of physical memory; `None` if neither is known.
pub fn default_memory_limit() -> Option<u64> {
    if let Some(l) = cgroup_limit() {
        return Some((l as f64 * SHARE_OF_CGROUP) as u64);
    }
    physical_memory().map(|m| (m as f64 * SHARE_OF_RAM) as u64)
}

fn cgroup_limit() -> Option<u64> {
    let table = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    cgroup_limit_in(&table, std::path::Path::new("/sys/fs/cgroup"))
}

/// The memory limit of the groups `table` (a `/proc/self/cgroup`) names, under the cgroup
/// mount `sys`: cgroup v2 "0::/path", v1 "N:memory:/path". The effective limit is the least
/// of the group's and of every group above it: BenchExec limits the run's group and starts the
/// tool in a group below it, whose own limit is none (under v1 we read none, and a run was
/// killed for memory instead of answering `unknown`).
fn cgroup_limit_in(table: &str, sys: &std::path::Path) -> Option<u64> {
    let mut limits = Vec::new();
    for line in table.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next(), parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        let (root, file) = if controllers.is_empty() {
            (sys.to_path_buf(), "memory.max")
        } else if controllers.split(',').any(|c| c == "memory") {
            (sys.join("memory"), "memory.limit_in_bytes")
        } else {
            continue;
        };
        let mut dir = root.join(path.trim().trim_start_matches('/'));
        loop {
            limits.extend(std::fs::read_to_string(dir.join(file)).ok().and_then(|t| parse_limit(&t)));
            if dir == root || !dir.starts_with(&root) || !dir.pop() {
                break;
            }
        }
    }
    for f in [sys.join("memory.max"), sys.join("memory/memory.limit_in_bytes")] {
        limits.extend(std::fs::read_to_string(f).ok().and_then(|t| parse_limit(&t)));
    }
    limits.into_iter().min()
}

/// A cgroup limit file's content: bytes, or `max` / a huge number for none.
fn parse_limit(text: &str) -> Option<u64> {
    let v: u64 = text.trim().parse().ok()?;
    // cgroup v1 writes "no limit" as a number near i64::MAX rounded to pages.
    (v < (1 << 60)).then_some(v)
}

fn physical_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kb: u64 =
        info.lines().find_map(|l| l.strip_prefix("MemTotal:"))?.trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_read_as_cgroups_write_them() {
        assert_eq!(parse_limit("max\n"), None);
        assert_eq!(parse_limit("7516192768\n"), Some(7516192768));
        assert_eq!(parse_limit("9223372036854771712\n"), None);
        assert_eq!(parse_limit("garbage"), None);
    }

    #[test]
    fn the_limit_of_a_group_above_the_own_counts() {
        // BenchExec under cgroup v1: the limit is on the run's group, the tool in a group below.
        let sys = std::env::temp_dir().join(format!("witness-check-cgroup-{}", std::process::id()));
        let run = sys.join("memory/process_api/benchmark_x");
        std::fs::create_dir_all(run.join("delegate_y")).unwrap();
        let write = |p: std::path::PathBuf, v: &str| std::fs::write(p, v).unwrap();
        write(sys.join("memory/memory.limit_in_bytes"), "9223372036854771712\n");
        write(run.join("memory.limit_in_bytes"), "3999997952\n");
        write(run.join("delegate_y/memory.limit_in_bytes"), "9223372036854771712\n");
        let v1 = "9:name=systemd:/\n4:memory:/process_api/benchmark_x/delegate_y\n";
        assert_eq!(cgroup_limit_in(v1, &sys), Some(3999997952));
        // cgroup v2: likewise through `memory.max`.
        std::fs::create_dir_all(sys.join("a/b")).unwrap();
        write(sys.join("a/memory.max"), "1048576000\n");
        write(sys.join("a/b/memory.max"), "max\n");
        assert_eq!(cgroup_limit_in("0::/a/b\n", &sys), Some(1048576000));
        assert_eq!(cgroup_limit_in("0::/\n", &sys.join("none")), None);
        let _ = std::fs::remove_dir_all(&sys);
    }

    #[test]
    fn this_process_has_a_resident_size() {
        let r = resident_bytes().expect("Linux has /proc/self/statm");
        assert!(r > 1 << 20, "a test process is larger than 1 MiB: {r}");
        assert!(default_memory_limit().is_some());
    }
}
