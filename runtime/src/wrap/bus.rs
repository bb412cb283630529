//! `exec`'s answer to a SIGBUS while output filters read the index: the
//! output held is printed as it came, and the wrapper exits with the
//! command's code. The index is a mapped file, and another process that
//! cuts it shorter in place at that moment takes away pages a read may
//! touch (the kernel then sends SIGBUS); without this the wrapper would die
//! by the signal and the command's output and exit code would be lost.
//! Outside a [`HeldOutput`] the signal keeps the action it had.

use std::sync::atomic::{AtomicI32, AtomicPtr, AtomicUsize, Ordering};

/// The output to print on SIGBUS (null: none), its length, and the code to
/// exit with.
static OUTPUT: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static LENGTH: AtomicUsize = AtomicUsize::new(0);
static CODE: AtomicI32 = AtomicI32::new(0);

/// While it lives, a SIGBUS prints `output` on standard output and exits
/// with `code`; when it is dropped, the action SIGBUS had before is put
/// back. Nothing else may be written to standard output meanwhile: the
/// output would then be printed after it. One at a time.
pub(super) struct HeldOutput<'o> {
    _output: &'o [u8],
    before: Option<libc::sigaction>,
}

impl<'o> HeldOutput<'o> {
    /// Holds `output` and `code` for [`on_bus`] and puts it in place (best
    /// effort: without it the signal ends the process as before).
    #[allow(unsafe_code)]
    pub(super) fn new(output: &'o [u8], code: i32) -> HeldOutput<'o> {
        CODE.store(code, Ordering::SeqCst);
        LENGTH.store(output.len(), Ordering::SeqCst);
        OUTPUT.store(output.as_ptr().cast_mut(), Ordering::SeqCst);
        // SAFETY: sigaction(2) with a zeroed action whose handler is
        // `on_bus`, which is async-signal-safe (see there), and a zeroed
        // struct for the action before, which the call fills.
        let before = unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_bus as extern "C" fn(libc::c_int) as libc::sighandler_t;
            libc::sigemptyset(&mut action.sa_mask);
            let mut before: libc::sigaction = std::mem::zeroed();
            (libc::sigaction(libc::SIGBUS, &action, &mut before) == 0).then_some(before)
        };
        HeldOutput {
            _output: output,
            before,
        }
    }
}

impl Drop for HeldOutput<'_> {
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        if let Some(before) = &self.before {
            // SAFETY: puts back the action sigaction(2) gave when this was made.
            unsafe {
                libc::sigaction(libc::SIGBUS, before, std::ptr::null_mut());
            }
        }
        OUTPUT.store(std::ptr::null_mut(), Ordering::SeqCst);
    }
}

/// Writes the held output and exits with the held code; with none held
/// (the moment a [`HeldOutput`] is dropped), ends the process by the
/// signal, as the default action would.
#[allow(unsafe_code)]
extern "C" fn on_bus(_: libc::c_int) {
    let output = OUTPUT.load(Ordering::SeqCst);
    // SAFETY: only async-signal-safe calls (write, _exit, signal, raise)
    // on memory a live `HeldOutput` borrows: `output` is non-null only
    // while the slice it points into (of `LENGTH` bytes) is borrowed.
    unsafe {
        if output.is_null() {
            // Blocked while this runs: delivered, by default, on return.
            libc::signal(libc::SIGBUS, libc::SIG_DFL);
            libc::raise(libc::SIGBUS);
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
