//! A child's stdout and stderr read on the calling thread with `poll(2)`:
//! no reader threads, so a hook call that runs one condition starts no
//! thread at all for it. Each pipe is read to its end (what passes the cap
//! is read and dropped, so a chatty script never blocks on a full pipe).
//! The `poll(2)` calls themselves ([`poll`], [`wait_readable`]) serve the
//! `exec` wrapper's reader and the wait for a child's exit too.

use std::fs::File;
use std::io::Read;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::time::Instant;

/// How a [`Pipes::pump`] ended.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Pumped {
    /// Every pipe reached its end.
    Closed,
    /// `until` came first, or the wait between checks ran out.
    Waiting,
}

/// The output pipes of one child and what was read of each.
pub(crate) struct Pipes {
    /// Each open pipe, with which output it is (0 stdout, 1 stderr).
    open: Vec<(File, usize)>,
    /// What was read of stdout and stderr, each up to the cap.
    pub(crate) read: [Vec<u8>; 2],
    cap: usize,
}

impl Pipes {
    /// Reads `stdout` and `stderr` (either may be absent), keeping `cap`
    /// bytes of each.
    pub(crate) fn new(stdout: Option<OwnedFd>, stderr: Option<OwnedFd>, cap: usize) -> Pipes {
        let open = [stdout, stderr]
            .into_iter()
            .enumerate()
            .filter_map(|(i, fd)| Some((File::from(fd?), i)))
            .collect();
        Pipes {
            open,
            read: [Vec::new(), Vec::new()],
            cap,
        }
    }

    /// Whether a pipe is still open.
    pub(crate) fn pending(&self) -> bool {
        !self.open.is_empty()
    }

    /// Reads what arrives until every pipe is at its end or `until` passes.
    pub(crate) fn pump(&mut self, until: Instant) -> Pumped {
        while self.pending() {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Pumped::Waiting;
            }
            let mut polled: Vec<libc::pollfd> = self
                .open
                .iter()
                .map(|(fd, _)| libc::pollfd {
                    fd: fd.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                })
                .collect();
            if poll(&mut polled, poll_ms(left)) <= 0 {
                // Timed out, or interrupted: look again at the time.
                continue;
            }
            let ready: Vec<usize> = polled
                .iter()
                .enumerate()
                .filter(|(_, p)| p.revents != 0)
                .map(|(at, _)| at)
                .collect();
            // From the last, so removing one keeps the others' places.
            for at in ready.into_iter().rev() {
                if !self.read_some(at) {
                    self.open.remove(at);
                }
            }
        }
        Pumped::Closed
    }

    /// Reads once from open pipe `at`; `false` at its end (or an error).
    fn read_some(&mut self, at: usize) -> bool {
        let (mut file, which) = (&self.open[at].0, self.open[at].1);
        let mut buf = [0u8; 8192];
        match file.read(&mut buf) {
            Ok(0) | Err(_) => false,
            Ok(n) => {
                let kept = &mut self.read[which];
                let room = self.cap.saturating_sub(kept.len());
                kept.extend_from_slice(&buf[..n.min(room)]);
                true
            }
        }
    }
}

/// Waits until `fd` is readable (or at its end), for at most `left`
/// (rounded up to a millisecond).
pub(crate) fn wait_readable(fd: BorrowedFd<'_>, left: std::time::Duration) {
    let mut polled = [libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    }];
    poll(&mut polled, poll_ms(left));
}

/// `left` as poll(2)'s timeout: at least a millisecond, at most its largest.
pub(crate) fn poll_ms(left: std::time::Duration) -> libc::c_int {
    libc::c_int::try_from(left.as_millis().max(1)).unwrap_or(libc::c_int::MAX)
}

/// poll(2) on `fds` for at most `ms` milliseconds.
#[allow(unsafe_code)]
pub(crate) fn poll(fds: &mut [libc::pollfd], ms: libc::c_int) -> libc::c_int {
    // SAFETY: poll(2) reads and writes `fds.len()` pollfd records, all in
    // the slice, which lives for the call; it keeps no pointer after it.
    unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms) }
}
