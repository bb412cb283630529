//! The BPF program installed on the supervised command: which system calls
//! become user notifications. Built by `seccompiler` with a placeholder
//! action (`SECCOMP_RET_TRACE` with [`TAG`]), which this module turns into
//! `SECCOMP_RET_USER_NOTIF` (seccompiler has no such action), behind a
//! first check that fails every x32 system call: their numbers carry bit
//! 30 and would match none of the numbers below, so `execve` through the
//! x32 table would pass unseen.
//!
//! What becomes a notification:
//! - always `execve` and `execveat`;
//! - with the write gate, every call that creates, writes, removes, moves,
//!   links or changes the mode, owner, times or attributes of a path or of
//!   an open file (`open`/`openat` only with a writing flag, so reads cost
//!   nothing; `ioctl` only for `chattr`'s requests), and the calls that
//!   reach files around the path checks (`io_uring_setup`,
//!   `open_by_handle_at`), which the supervisor refuses.
//!
//! Refused in the kernel to every supervised process, with `EPERM`: the
//! calls that change a process's root or mounts (`chroot`, `pivot_root`,
//! `setns`, the mount family), after which its paths would not name what
//! the supervisor's do, and `prlimit64` on any process but the caller: the
//! command runs as the supervisor's user, and lowering the supervisor's
//! open-file limit would leave it unable to start a rule.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// The placeholder's data: a `SECCOMP_RET_TRACE` carrying it is ours.
const TAG: u32 = 0x4844;

/// What the filter hands to the supervisor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Watch {
    /// Every `execve`/`execveat`.
    pub execs: bool,
    /// Every system call that writes a path (the write gate).
    pub writes: bool,
}

#[cfg(target_arch = "x86_64")]
const ARCH: TargetArch = TargetArch::x86_64;
#[cfg(target_arch = "aarch64")]
const ARCH: TargetArch = TargetArch::aarch64;

/// The system calls that write a path, with the argument holding open
/// flags where only writing flags count (`None`: every call counts).
fn writers() -> Vec<(i64, Option<u8>)> {
    let mut calls = vec![
        (libc::SYS_openat, Some(2)),
        (libc::SYS_openat2, None),
        (libc::SYS_renameat, None),
        (libc::SYS_renameat2, None),
        (libc::SYS_unlinkat, None),
        (libc::SYS_mkdirat, None),
        (libc::SYS_mknodat, None),
        (libc::SYS_linkat, None),
        (libc::SYS_symlinkat, None),
        (libc::SYS_fchmodat, None),
        (libc::SYS_fchownat, None),
        (libc::SYS_truncate, None),
        (libc::SYS_setxattr, None),
        (libc::SYS_lsetxattr, None),
        (libc::SYS_removexattr, None),
        (libc::SYS_lremovexattr, None),
        (libc::SYS_fchmod, None),
        (libc::SYS_fchown, None),
        (libc::SYS_fsetxattr, None),
        (libc::SYS_fremovexattr, None),
        (libc::SYS_utimensat, None),
        (libc::SYS_io_uring_setup, None),
        (libc::SYS_open_by_handle_at, None),
    ];
    #[cfg(target_arch = "x86_64")]
    calls.extend([
        (libc::SYS_open, Some(1)),
        (libc::SYS_creat, None),
        (libc::SYS_rename, None),
        (libc::SYS_unlink, None),
        (libc::SYS_rmdir, None),
        (libc::SYS_mkdir, None),
        (libc::SYS_mknod, None),
        (libc::SYS_link, None),
        (libc::SYS_symlink, None),
        (libc::SYS_chmod, None),
        (libc::SYS_chown, None),
        (libc::SYS_lchown, None),
        (libc::SYS_utime, None),
        (libc::SYS_utimes, None),
        (libc::SYS_futimesat, None),
    ]);
    calls.push((452, None)); // fchmodat2 (6.6), not in every libc yet
    calls
}

/// The `ioctl`s that change a file's attributes (`chattr`), judged as
/// writes: `FS_IOC_SETFLAGS` and `FS_IOC_FSSETXATTR`.
pub const ATTRIBUTE_IOCTLS: [u64; 2] = [0x4008_6602, 0x401c_5820];

/// The system calls refused to every supervised process, in the kernel,
/// with `EPERM`: a process that changed its root or its mounts would name
/// other files by the same paths than the supervisor sees (`chroot` into a
/// rule folder, a bind mount over a program), so no path judged would
/// mean what the kernel does.
fn refused() -> Vec<i64> {
    vec![
        libc::SYS_chroot,
        libc::SYS_pivot_root,
        libc::SYS_setns,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_move_mount,
        libc::SYS_open_tree,
        libc::SYS_fsopen,
        libc::SYS_fsmount,
        libc::SYS_fsconfig,
        libc::SYS_fspick,
        442, // mount_setattr (5.12), not in every libc yet
    ]
}

/// The open flags that write: any of them makes an open a write.
const WRITING_FLAGS: [i32; 4] = [libc::O_WRONLY, libc::O_RDWR, libc::O_CREAT, libc::O_TRUNC];

/// The filter for `watch`, as the kernel takes it.
///
/// # Panics
///
/// Never for the fixed rules built here (a test builds every form).
pub fn filter_program(watch: Watch) -> Vec<libc::sock_filter> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    if watch.execs {
        rules.insert(libc::SYS_execve, Vec::new());
        rules.insert(libc::SYS_execveat, Vec::new());
    }
    if watch.writes {
        for (nr, flags_arg) in writers() {
            let chain = match flags_arg {
                None => Vec::new(),
                Some(arg) => WRITING_FLAGS
                    .iter()
                    .map(|&flag| {
                        let flag = u64::from(flag as u32);
                        let condition = SeccompCondition::new(
                            arg,
                            SeccompCmpArgLen::Dword,
                            SeccompCmpOp::MaskedEq(flag),
                            flag,
                        )
                        .expect("argument index below 6");
                        SeccompRule::new(vec![condition]).expect("one condition")
                    })
                    .collect(),
            };
            rules.insert(nr, chain);
        }
        let chattr = ATTRIBUTE_IOCTLS
            .iter()
            .map(|&request| {
                let condition =
                    SeccompCondition::new(1, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, request)
                        .expect("argument index below 6");
                SeccompRule::new(vec![condition]).expect("one condition")
            })
            .collect();
        rules.insert(libc::SYS_ioctl, chattr);
    }
    let filter = SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Trace(TAG), ARCH)
        .expect("distinct actions");
    let built: BpfProgram = filter.try_into().expect("a small filter");
    let placeholder = libc::SECCOMP_RET_TRACE | TAG;
    let nr_offset = 0; // offsetof(struct seccomp_data, nr)
    let x32_bit = 0x4000_0000;
    let enosys = libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32;
    let eperm = libc::SECCOMP_RET_ERRNO | libc::EPERM as u32;
    let mut program = vec![
        stmt(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, nr_offset),
        jump(libc::BPF_JMP | libc::BPF_JSET | libc::BPF_K, x32_bit, 0, 1),
        stmt(libc::BPF_RET | libc::BPF_K, enosys),
    ];
    // Each refused call: equal, return EPERM; else skip that return.
    for nr in refused() {
        program.push(jump(
            libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K,
            nr as u32,
            0,
            1,
        ));
        program.push(stmt(libc::BPF_RET | libc::BPF_K, eperm));
    }
    // `prlimit64` on another process: its pid (a 32-bit `pid_t`, the low
    // word of the first argument) is not 0.
    let first_arg_low = 16; // offsetof(struct seccomp_data, args[0]), little-endian
    program.extend([
        jump(
            libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K,
            libc::SYS_prlimit64 as u32,
            0,
            3,
        ),
        stmt(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, first_arg_low),
        jump(libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K, 0, 1, 0),
        stmt(libc::BPF_RET | libc::BPF_K, eperm),
    ]);
    program.extend(built.into_iter().map(|i| {
        let ret = (i.code as u32) == (libc::BPF_RET | libc::BPF_K);
        libc::sock_filter {
            code: i.code,
            jt: i.jt,
            jf: i.jf,
            k: match ret && i.k == placeholder {
                true => libc::SECCOMP_RET_USER_NOTIF,
                false => i.k,
            },
        }
    }));
    program
}

fn stmt(code: u32, k: u32) -> libc::sock_filter {
    jump(code, k, 0, 0)
}

fn jump(code: u32, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter {
        code: code as u16,
        jt,
        jf,
        k,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `program` on one `seccomp_data` the way the kernel does, for
    /// the instructions the filter uses.
    fn run(program: &[libc::sock_filter], arch: u32, nr: i32, args: [u64; 6]) -> u32 {
        let mut data = Vec::new();
        data.extend_from_slice(&nr.to_ne_bytes());
        data.extend_from_slice(&arch.to_ne_bytes());
        data.extend_from_slice(&0u64.to_ne_bytes());
        for arg in args {
            data.extend_from_slice(&arg.to_ne_bytes());
        }
        let (mut acc, mut pc) = (0u32, 0usize);
        loop {
            let i = program[pc];
            let code = u32::from(i.code);
            match code & 0x07 {
                0x00 => {
                    let at = i.k as usize;
                    acc = u32::from_ne_bytes(data[at..at + 4].try_into().unwrap());
                }
                0x04 => match code & 0xf0 {
                    0x50 => acc &= i.k,
                    op => panic!("alu op {op:#x}"),
                },
                0x05 => {
                    let taken = match code & 0xf0 {
                        0x00 => {
                            pc += i.k as usize + 1;
                            continue;
                        }
                        0x10 => acc == i.k,
                        0x20 => acc > i.k,
                        0x30 => acc >= i.k,
                        0x40 => acc & i.k != 0,
                        op => panic!("jump op {op:#x}"),
                    };
                    pc += 1 + usize::from(if taken { i.jt } else { i.jf });
                    continue;
                }
                0x06 => return i.k,
                class => panic!("class {class:#x}"),
            }
            pc += 1;
        }
    }

    #[cfg(target_arch = "x86_64")]
    const AUDIT_ARCH: u32 = 0xc000_003e;
    #[cfg(target_arch = "aarch64")]
    const AUDIT_ARCH: u32 = 0xc000_00b7;

    fn nr(call: i64) -> i32 {
        call as i32
    }

    #[test]
    fn execs_are_notified_and_nothing_else_without_the_write_gate() {
        let program = filter_program(Watch {
            execs: true,
            writes: false,
        });
        let notif = libc::SECCOMP_RET_USER_NOTIF;
        let allow = libc::SECCOMP_RET_ALLOW;
        assert_eq!(
            run(&program, AUDIT_ARCH, nr(libc::SYS_execve), [0; 6]),
            notif
        );
        assert_eq!(
            run(&program, AUDIT_ARCH, nr(libc::SYS_execveat), [0; 6]),
            notif
        );
        let write = [0, 0, libc::O_WRONLY as u64, 0, 0, 0];
        assert_eq!(
            run(&program, AUDIT_ARCH, nr(libc::SYS_openat), write),
            allow
        );
        assert_eq!(run(&program, AUDIT_ARCH, nr(libc::SYS_read), [0; 6]), allow);
        assert!(program.len() < 64, "{} instructions", program.len());
        let eperm = libc::SECCOMP_RET_ERRNO | libc::EPERM as u32;
        for refused in [libc::SYS_chroot, libc::SYS_mount, libc::SYS_setns] {
            assert_eq!(run(&program, AUDIT_ARCH, nr(refused), [0; 6]), eperm);
        }
        // prlimit64 on itself (pid 0) passes; on another process, refused.
        let prlimit = |pid: u64| {
            run(
                &program,
                AUDIT_ARCH,
                nr(libc::SYS_prlimit64),
                [pid, 7, 0, 0, 0, 0],
            )
        };
        assert_eq!(prlimit(0), libc::SECCOMP_RET_ALLOW);
        assert_eq!(
            prlimit(0xFFFF_FFFF_0000_0000),
            libc::SECCOMP_RET_ALLOW,
            "pid 0 to the kernel"
        );
        assert_eq!(prlimit(4321), eperm);
        assert_eq!(prlimit(1 << 32 | 4321), eperm);
    }

    #[test]
    fn opens_are_notified_only_with_a_writing_flag() {
        let program = filter_program(Watch {
            execs: true,
            writes: true,
        });
        let notif = libc::SECCOMP_RET_USER_NOTIF;
        let allow = libc::SECCOMP_RET_ALLOW;
        let openat = |flags: i32| {
            let args = [0, 0, flags as u32 as u64, 0, 0, 0];
            run(&program, AUDIT_ARCH, nr(libc::SYS_openat), args)
        };
        assert_eq!(openat(libc::O_RDONLY), allow);
        assert_eq!(
            openat(libc::O_RDONLY | libc::O_CLOEXEC | libc::O_DIRECTORY),
            allow
        );
        assert_eq!(openat(libc::O_WRONLY), notif);
        assert_eq!(openat(libc::O_RDWR | libc::O_CLOEXEC), notif);
        assert_eq!(openat(libc::O_RDONLY | libc::O_CREAT), notif);
        assert_eq!(openat(libc::O_RDONLY | libc::O_TRUNC), notif);
        assert_eq!(openat(libc::O_TMPFILE | libc::O_RDWR), notif);
        for call in [
            libc::SYS_renameat2,
            libc::SYS_unlinkat,
            libc::SYS_mkdirat,
            libc::SYS_linkat,
            libc::SYS_symlinkat,
            libc::SYS_fchmodat,
            libc::SYS_truncate,
            libc::SYS_io_uring_setup,
            libc::SYS_fchmod,
            libc::SYS_fsetxattr,
            libc::SYS_utimensat,
        ] {
            assert_eq!(run(&program, AUDIT_ARCH, nr(call), [0; 6]), notif, "{call}");
        }
        assert_eq!(
            run(&program, AUDIT_ARCH, nr(libc::SYS_write), [0; 6]),
            allow
        );
        let ioctl = |request: u64| {
            let args = [1, request, 0, 0, 0, 0];
            run(&program, AUDIT_ARCH, nr(libc::SYS_ioctl), args)
        };
        assert_eq!(ioctl(0x4008_6602), notif, "chattr");
        assert_eq!(ioctl(0x5401), allow, "TCGETS");
        assert_eq!(
            run(&program, AUDIT_ARCH, nr(libc::SYS_execve), [0; 6]),
            notif
        );
    }

    #[test]
    fn x32_calls_fail_and_another_arch_is_killed() {
        let program = filter_program(Watch {
            execs: true,
            writes: false,
        });
        let x32_execve = 0x4000_0000 | 520;
        assert_eq!(
            run(&program, AUDIT_ARCH, x32_execve, [0; 6]),
            libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32
        );
        let i386 = 0x4000_0003;
        assert_eq!(
            run(&program, i386, 11, [0; 6]),
            libc::SECCOMP_RET_KILL_PROCESS
        );
    }
}
