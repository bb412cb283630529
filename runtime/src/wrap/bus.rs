//! `exec`'s answer to a SIGBUS while output filters read the index: the
//! output held is printed as it came, and the wrapper exits with the
//! command's code. The index is a mapped file, and another process that
//! cuts it shorter in place at that moment takes away pages a read may
//! touch (the kernel then sends SIGBUS); without this the wrapper would die
//! by the signal and the command's output and exit code would be lost.
//! Outside a [`HeldOutput`] the signal does what it would by default.

use std::sync::atomic::{AtomicI32, AtomicPtr, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The output to print on SIGBUS (null: none), its length, and the code to
/// exit with.
static OUTPUT: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static LENGTH: AtomicUsize = AtomicUsize::new(0);
static CODE: AtomicI32 = AtomicI32::new(0);
/// Set once the handler is in place (it stays, for the process).
static INSTALLED: OnceLock<()> = OnceLock::new();

/// While it lives, a SIGBUS prints `output` on standard output and exits
/// with `code`. Nothing else may be written to standard output meanwhile:
/// the output would then be printed after it.
pub(super) struct HeldOutput<'o> {
    _output: &'o [u8],
}

impl<'o> HeldOutput<'o> {
    /// Holds `output` and `code` for the handler, installing it the first
    /// time.
    pub(super) fn new(output: &'o [u8], code: i32) -> HeldOutput<'o> {
        INSTALLED.get_or_init(install);
        CODE.store(code, Ordering::SeqCst);
        LENGTH.store(output.len(), Ordering::SeqCst);
        OUTPUT.store(output.as_ptr().cast_mut(), Ordering::SeqCst);
        HeldOutput { _output: output }
    }
}

impl Drop for HeldOutput<'_> {
    fn drop(&mut self) {
        OUTPUT.store(std::ptr::null_mut(), Ordering::SeqCst);
    }
}

/// Puts [`on_bus`] in place for SIGBUS (best effort: without it the signal
/// ends the process as before).
#[allow(unsafe_code)]
fn install() {
    // SAFETY: sigaction(2) with a zeroed action whose handler is `on_bus`,
    // which is async-signal-safe (see there); no other field is read
    // uninitialized.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_bus as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
    }
}

/// Writes the held output and exits with the held code; with none held,
/// puts the default action back and returns, so the faulting access
/// repeats and ends the process by the signal as it would have.
#[allow(unsafe_code)]
extern "C" fn on_bus(_: libc::c_int) {
    let output = OUTPUT.load(Ordering::SeqCst);
    // SAFETY: only async-signal-safe calls (write, _exit, signal) on
    // memory a live `HeldOutput` borrows: `output` is non-null only while
    // the slice it points into (of `LENGTH` bytes) is borrowed.
    unsafe {
        if output.is_null() {
            libc::signal(libc::SIGBUS, libc::SIG_DFL);
            return;
        }
        let (mut at, length) = (0, LENGTH.load(Ordering::SeqCst));
        while at < length {
            let wrote = libc::write(1, output.add(at).cast(), length - at);
            if wrote <= 0 {
                break;
            }
            at += wrote as usize;
        }
        libc::_exit(CODE.load(Ordering::SeqCst));
    }
}
