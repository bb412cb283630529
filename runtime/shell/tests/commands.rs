//! What a simple command runs beyond its program word, through [`split`]: every
//! program the text shows is named, and every line that may run one it does not
//! show is reported dynamic, with the reason (`programs`/`split` docs, and
//! docs/splitter-dynamic.md). Each test is one class; `tests/enforce/commands.txt`
//! runs the attacks in bash.

use hookdex_shell::{split, Reason};

/// `line` names `program` (and is dynamic or not, as `dynamic` says).
#[track_caller]
fn named(line: &str, program: &str, dynamic: bool) {
    let found = split(line);
    assert!(
        found.programs.iter().any(|p| p == program),
        "{line:?} should name {program}: {found:?}"
    );
    assert_eq!(found.is_dynamic(), dynamic, "{line:?}: {found:?}");
}

/// `line` names `program`, dynamic or not (arithmetic on a variable is
/// reported dynamic by the lexer's reading too).
#[track_caller]
fn names(line: &str, program: &str) {
    let found = split(line);
    assert!(
        found.programs.iter().any(|p| p == program),
        "{line:?} should name {program}: {found:?}"
    );
}

/// `line` does not name `program`.
#[track_caller]
fn not_named(line: &str, program: &str) {
    let found = split(line);
    assert!(
        !found.programs.iter().any(|p| p == program),
        "{line:?} should not name {program}: {found:?}"
    );
}

/// `line` is dynamic for `reason`, with that text.
#[track_caller]
fn dynamic(line: &str, reason: Reason, text: &str) {
    let found = split(line);
    assert!(
        found
            .dynamic
            .iter()
            .any(|d| d.reason == reason && d.text == text),
        "{line:?} should be dynamic ({reason}: {text}): {found:?}"
    );
}

/// `line` is not dynamic.
#[track_caller]
fn plain(line: &str) {
    let found = split(line);
    assert!(!found.is_dynamic(), "{line:?}: {:?}", found.dynamic);
}

#[test]
fn program_paths_the_text_cannot_tell_are_named_and_dynamic() {
    for (line, word) in [
        ("./k delete pod x", "./k"),
        ("b/tool delete pod x", "b/tool"),
        ("/proc/self/fd/3 delete pod x", "/proc/self/fd/3"),
        ("/dev/fd/3 get pods", "/dev/fd/3"),
        ("/opt/kube/bin/kubectl get pods", "/opt/kube/bin/kubectl"),
        ("sudo ./kubectl get pods", "./kubectl"),
        ("exec ./k get pods", "./k"),
        ("\"$HOME\"/bin/kubectl get pods", "\"$HOME\"/bin/kubectl"),
    ] {
        dynamic(line, Reason::Path, word);
    }
    named("./kubectl get pods", "kubectl", true);
    named("cd a && b/tool x", "tool", true);
    for line in [
        "/usr/bin/kubectl get pods",
        "/usr/local/bin/kubectl get pods",
        "/bin/ls -la",
        "env /usr/bin/git status",
    ] {
        plain(line);
    }
}

#[test]
fn the_search_path_and_hash_tables_change_what_names_run() {
    dynamic(
        "PATH=$PWD/b:$PATH notkubectl x",
        Reason::Path,
        "PATH=$PWD/b:$PATH",
    );
    dynamic("export PATH=./b; k x", Reason::Path, "PATH=./b");
    dynamic("PATH=/tmp/b; k x", Reason::Path, "PATH=/tmp/b");
    dynamic("env PATH=b k x", Reason::Path, "PATH=b");
    plain("PATH=/usr/bin:/bin ls");
    dynamic("hash -p ./k k; k x", Reason::Path, "./k");
    named(
        "BASH_CMDS[k]=/usr/bin/kubectl; k get pods",
        "kubectl",
        false,
    );
    dynamic(
        "BASH_CMDS[k]=$(command -v kubectl); k x",
        Reason::Expansion,
        "BASH_CMDS[k]=$(command -v kubectl)",
    );
    named("BASH_ALIASES[k]='kubectl get pods'; k", "kubectl", false);
}

#[test]
fn code_from_files_and_configuration_is_dynamic() {
    for (line, text) in [
        ("bash s", "s"),
        ("sh ./deploy.sh", "./deploy.sh"),
        (". ./s", "./s"),
        ("source -- s", "s"),
        ("bash < s", "< s"),
        ("BASH_ENV=./e bash -c true", "BASH_ENV=./e"),
        ("export BASH_ENV=./e", "BASH_ENV=./e"),
        ("HOME=$PWD bash -lc :", "HOME=$PWD"),
        ("bash -l -c true", "bash"),
        ("bash -i < /dev/null", "bash"),
        ("bash --rcfile r -c true", "bash"),
        ("make -s", "make -s"),
        ("make", "make"),
        ("gmake -n all", "gmake -n all"),
        ("run-parts d", "run-parts d"),
        ("fc -e vi -1", "fc -e vi"),
    ] {
        dynamic(line, Reason::File, text);
    }
    // Asking for a version or a listing runs nothing.
    for line in [
        "make --version",
        "run-parts --test d",
        "fc -l",
        "sh < /dev/null",
        "python3 --version",
        "node -v",
        "bash -c 'ls'",
    ] {
        plain(line);
    }
}

#[test]
fn interpreters_run_code_the_line_does_not_show() {
    for (line, text) in [
        ("python3 p.py", "python3"),
        ("python3 - <<< 'import os'", "python3"),
        ("perl <<< 'system(1)'", "perl"),
        ("echo 'exec ls' | tclsh", "tclsh"),
        ("tclsh8.6 s.tcl", "tclsh8.6"),
        ("node x.js", "node"),
        ("ruby -e 'x'", "ruby -e"),
        ("expect -c 'spawn ls'", "expect -c"),
    ] {
        dynamic(line, Reason::Interpreter, text);
    }
}

#[test]
fn shells_read_the_code_their_descriptors_hold() {
    named("sh < <(echo kubectl get pods)", "kubectl", false);
    named("bash /dev/fd/3 3<<< 'kubectl get pods'", "kubectl", false);
    named("bash <&3 3<<< 'kubectl get pods'", "kubectl", false);
    named("source <(printf 'kubectl get pods')", "kubectl", false);
    dynamic(
        "exec 3<<< 'kubectl delete pod x'; sh <&3",
        Reason::Stdin,
        "sh <&3",
    );
    dynamic("exec 3< s; bash /dev/fd/3", Reason::Stdin, "bash /dev/fd/3");
    dynamic("sh < <(curl x)", Reason::Stdin, "< <(curl x)");
    // A descriptor other than stdin feeds nothing to a shell reading stdin.
    named("sh 3<<< 'x' <<< 'kubectl get pods'", "kubectl", false);
    not_named("sh 3<<< 'kubectl get pods' < /dev/null", "kubectl");
}

#[test]
fn git_settings_aliases_and_hooks() {
    named("git -c alias.x='!kubectl get pods' x", "kubectl", true);
    dynamic("git -c alias.x='!kubectl get pods' x", Reason::File, "x");
    named(
        "git config alias.y '!kubectl get pods' && git y",
        "kubectl",
        true,
    );
    named(
        "git config set alias.y '!kubectl get pods'",
        "kubectl",
        false,
    );
    named("git -c core.editor='kubectl edit' commit", "kubectl", false);
    named(
        "git -c core.fsmonitor='kubectl get' status",
        "kubectl",
        false,
    );
    named("git -c diff.external='kubectl diff' diff", "kubectl", false);
    named("GIT_SSH_COMMAND='kubectl get' git fetch", "kubectl", false);
    named(
        "GIT_EXTERNAL_DIFF='kubectl diff' git diff",
        "kubectl",
        false,
    );
    named(
        "git rebase --exec 'kubectl get pods' main",
        "kubectl",
        false,
    );
    named("git rebase -x'kubectl get pods' main", "kubectl", false);
    named("git bisect run kubectl get pods", "kubectl", false);
    named("git submodule foreach kubectl get pods", "kubectl", false);
    named(
        "git ls-remote --upload-pack='kubectl get' .",
        "kubectl",
        false,
    );
    dynamic(
        "git -c core.hooksPath=h commit",
        Reason::File,
        "core.hooksPath=h",
    );
    dynamic(
        "git --exec-path=./b status",
        Reason::File,
        "--exec-path=./b",
    );
    dynamic(
        "git --config-env=core.editor=ED commit",
        Reason::Expansion,
        "--config-env=core.editor=ED",
    );
    dynamic(
        "printf x > .git/hooks/pre-commit && git commit",
        Reason::File,
        "git with .git/hooks or .git/config",
    );
    for line in [
        "git status",
        "git -C repo log --oneline",
        "git -c user.name=a -c color.ui=false commit -m m",
        "git -c alias.h=status h",
        "git config user.email a@b",
        "git --no-pager diff",
    ] {
        if line.ends_with(" h") {
            // An alias to a git command is still a name git resolves.
            dynamic(line, Reason::File, "h");
        } else {
            plain(line);
        }
    }
}

#[test]
fn tar_ssh_and_rsync_commands() {
    named("tar -cf a.tar -I 'kubectl x' f", "kubectl", false);
    named("tar -cIkubectl -f a.tar f", "kubectl", false);
    named("tar cIf 'kubectl x' a.tar f", "kubectl", false);
    named("tar --use-compress-program=zstd -cf a.tar f", "zstd", false);
    named("tar -xf a.tar --to-command='kubectl get'", "kubectl", false);
    named(
        "tar --checkpoint-action=exec='kubectl get' -cf a f",
        "kubectl",
        false,
    );
    named("ssh -o ProxyCommand='kubectl get' h", "kubectl", false);
    named("ssh -oProxyCommand=kubectl h", "kubectl", false);
    named("ssh -o 'LocalCommand kubectl get' h", "kubectl", false);
    named("scp -S kubectl a h:b", "kubectl", false);
    named("rsync -avze 'kubectl x' a h:b", "kubectl", false);
    named("rsync --rsh='kubectl x' a h:b", "kubectl", false);
    dynamic("ssh -F cfg h", Reason::File, "cfg");
    for line in [
        "tar -czf a.tgz d",
        "tar xvf a.tar -C out",
        "ssh -o ProxyCommand=none h",
        "ssh -F /dev/null -p 22 h uptime",
        "rsync -av a/ b/",
    ] {
        plain(line);
    }
}

#[test]
fn sed_and_awk_programs_that_run_commands() {
    named("echo | sed 'e kubectl get pods'", "kubectl", false);
    named("sed -n '1e kubectl get pods' f", "kubectl", false);
    named("sed -e p -e '$e kubectl get pods' f", "kubectl", false);
    dynamic("sed 's/.*/ls/e' f", Reason::Interpreter, "'s/.*/ls/e'");
    dynamic("sed '1e' f", Reason::Interpreter, "'1e'");
    dynamic("sed -f s.sed f", Reason::File, "-f");
    dynamic("sed \"s/$a/b/\" f", Reason::Expansion, "\"s/$a/b/\"");
    dynamic(
        "awk 'BEGIN{system(\"ls\")}'",
        Reason::Interpreter,
        "'BEGIN{system(\"ls\")}'",
    );
    dynamic(
        "awk '{print | \"sort\"}' f",
        Reason::Interpreter,
        "'{print | \"sort\"}'",
    );
    dynamic("awk -f p.awk f", Reason::File, "-f");
    for line in [
        "sed 's/a/b/g; 2d' f",
        "sed -n '/x/p' f",
        "sed -i.bak -e 's/a/b/w out' f",
        "sed 'y/abc/xyz/' f",
        "sed '/start/,/end/{s/x/y/;p}' f",
        "sed '1i\\\nheader' f",
        "sed --sandbox 's/a/b/e' f",
        "awk '{print $1}' f",
        "awk -F: '$1 || $2 {n++} END{print n}' f",
        "awk -v x=1 'BEGIN{print x}'",
    ] {
        plain(line);
    }
}

#[test]
fn builtins_that_run_strings() {
    named("mapfile -C 'kubectl get' -c 1 a <<< x", "kubectl", false);
    named("readarray -t -C'kubectl get' a < f", "kubectl", false);
    named("compgen -C 'kubectl get pods' w", "kubectl", false);
    named("compgen -W '$(kubectl get pods)' w", "kubectl", false);
    named("fc -e 'kubectl edit' -1", "kubectl", true);
    named("FCEDIT='kubectl edit' fc -1", "kubectl", true);
    named("EDITOR='kubectl edit' fc -1", "kubectl", true);
    named("eval -- 'kubectl get pods'", "kubectl", false);
    named(". -- <(echo kubectl get pods)", "kubectl", false);
    named("trap -- 'kubectl get pods' EXIT", "kubectl", false);
    // The prompt's substitution is also a program word of the prompt's text.
    named("PS4='$(kubectl get pods)'; set -x", "kubectl", true);
    dynamic("fc -s", Reason::File, "fc -s");
    dynamic(
        "c=kubectl; mapfile -C \"$c get\" a <<< x",
        Reason::Expansion,
        "$c",
    );
    plain("compgen -W 'alpha beta' al");
    plain("mapfile -t a < f");
}

#[test]
fn array_subscripts_bash_evaluates_run_their_substitutions() {
    for line in [
        "x='a[$(kubectl get pods)0]'; echo $((x))",
        "x='a[$(kubectl get pods)0]'; [[ $x -eq 0 ]]",
        "x='a[$(kubectl get pods)0]'; (( x ))",
        "let 'a[$(kubectl get pods)0]=1'",
        "[[ -v 'a[$(kubectl get pods)0]' ]]",
        "test -v 'a[`kubectl get pods`]'",
        "printf -v 'a[$(kubectl get pods)0]' y",
        "read 'a[$(kubectl get pods)0]' <<< y",
        "unset 'a[$(kubectl get pods)0]'",
        "declare \"a[\\$(kubectl get pods)0]=1\"",
        "s=abc; echo \"${s:'a[$(kubectl get pods)0]'}\"",
    ] {
        names(line, "kubectl");
    }
    // The variable's value is known, so its program is named; it may change, so dynamic.
    named(
        "c=kubectl; x=\"a[\\$($c get pods)0]\"; echo $((x + 1))",
        "kubectl",
        true,
    );
    // Printed, never evaluated.
    not_named("echo 'a[$(kubectl get pods)0]'", "kubectl");
    plain("x='a[1]'; echo \"$x\"");
}

#[test]
fn printf_and_echo_output_is_decoded_before_a_shell_reads_it() {
    for line in [
        "printf '\\x6bubectl get pods\\n' | sh",
        "printf '\\153ubectl get pods' | bash",
        "printf '%.7s get pods' kubectlzz | sh",
        "printf '%s ' kubectl get pods | sh",
        "printf '%5s' kubectl | sh",
        "printf '%-8s get pods' kubectl | sh",
        "printf '%c%s get pods' kk ubectl | sh",
        "printf '%b' 'k\\0165bectl get pods' | sh",
        "printf '%b' 'k\\165bectl get pods' | sh",
        "printf 'kube%s get pods\\n' ctl | dash",
        "printf '\\u006bubectl get pods' | sh",
        "echo -e 'kube\\x63tl get pods' | sh",
        "echo -ne 'kube\\0143tl get pods' | sh",
    ] {
        named(line, "kubectl", false);
    }
    // `\c` in %b ends all output: the rest never reaches the shell.
    not_named("printf '%b' 'ls\\c; kubectl get pods' | sh", "kubectl");
    // Without -e echo prints the backslash; `\c` is text in a format.
    not_named("echo 'kube\\x63tl get pods' | sh", "kubectl");
    named("printf 'ls\\c; kubectl get pods' | sh", "kubectl", false);
    dynamic("printf '%q' kubectl | sh", Reason::Stdin, "| sh");
    dynamic("printf '%f' 1 | sh", Reason::Stdin, "| sh");
}

#[test]
fn runners_start_the_program_their_options_name() {
    for line in [
        "setarch x86_64 -R kubectl get pods",
        "setarch linux64 --uname-2.6 kubectl get pods",
        "linux64 kubectl get pods",
        "i386 -3 kubectl get pods",
        "ssh-agent kubectl get pods",
        "ssh-agent -t 60 -a sock kubectl get pods",
        "/lib64/ld-linux-x86-64.so.2 --argv0 x /usr/bin/kubectl get pods",
        "ld.so --library-path /l kubectl get pods",
        "gdb --args kubectl get pods",
        "gdb -batch -ex run --args kubectl get pods",
        "gdb -q -ex run kubectl",
        "start-stop-daemon --start --exec /usr/bin/kubectl -- get pods",
        "start-stop-daemon -S -a /usr/bin/kubectl -x /bin/x -- get pods",
        "tmux new-session -d 'kubectl get pods'",
        "tmux -L s new -d -s name kubectl get pods",
        "tmux split-window -h 'kubectl get pods'",
        "tmux -c 'kubectl get pods'",
        "screen -dmS s kubectl get pods",
        "su -s /usr/bin/kubectl root",
        "runuser --shell=/usr/bin/kubectl bob",
        "rbash -c 'kubectl get pods'",
        "SHELL=/usr/bin/kubectl script -q /dev/null",
        "export SHELL=kubectl; tmux",
    ] {
        named(line, "kubectl", false);
    }
    named(
        "runuser -s /bin/bash -c 'kubectl get pods' bob",
        "bash",
        false,
    );
    dynamic(
        "SHELL=$x script -q /dev/null",
        Reason::Expansion,
        "SHELL=$x",
    );
    for line in [
        "setarch --list",
        "ssh-agent -k",
        "ld.so --list /usr/bin/kubectl",
        "start-stop-daemon --stop --exec /usr/bin/kubectl",
        "tmux kill-server",
        "screen -r kubectl",
    ] {
        not_named(line, "kubectl");
    }
}

#[test]
fn values_the_line_shows_name_their_programs() {
    named("c=kubectl; $c get pods", "kubectl", true);
    named("c='kubectl get pods'; $c", "kubectl", true);
    named(
        "t=$'kubectl\\x20get pods'; trap \"$t\" EXIT",
        "kubectl",
        true,
    );
    named("s=sudo; $s kubectl get pods", "kubectl", true);
    named("c=kubectl; d=$c; \"$d\" get pods", "kubectl", true);
    named("sh -c '\"$0\" get pods' kubectl", "kubectl", true);
    named("sh -c '\"$@\"' sh kubectl get pods", "kubectl", true);
    named("f(){ \"$@\"; }; f kubectl get pods", "kubectl", true);
    named("bash -c \"$(echo kubectl get pods)\"", "kubectl", true);
    named("$(printf kubectl) get pods", "kubectl", true);
    // A shell among the arguments reads the command's here-string.
    named(
        "f(){ \"$@\"; }; f sh <<< 'kubectl get pods'",
        "kubectl",
        true,
    );
    named(
        "echo x | git bisect run sh <<< 'kubectl get pods'",
        "kubectl",
        false,
    );
    // A function that only prints its arguments runs none of them.
    not_named("f(){ echo \"$@\"; }; f kubectl get pods", "kubectl");
    // A value from a prefix assignment is the program's environment, not `$c` here.
    not_named("c=kubectl true; $c get pods", "kubectl");
    not_named("c=kubectl; c=$(x); $c get pods", "kubectl");
}

#[test]
fn other_spellings_of_the_same_forms() {
    // GNU getopt and git take unambiguous prefixes of long options.
    named("tar -xf a.tar --to-comm='kubectl get'", "kubectl", false);
    named("tar --use-compress-prog kubectl -cf a f", "kubectl", false);
    named("git rebase --exe 'kubectl get pods' main", "kubectl", false);
    named("rsync --rsh 'kubectl x' a h:b", "kubectl", false);
    named("sed --expr='1e kubectl get pods' f", "kubectl", false);
    dynamic("sed --fil=s.sed f", Reason::File, "--fil=s.sed");
    // setarch may leave the architecture out.
    named("setarch -R kubectl get pods", "kubectl", false);
    named("printf -- 'kubectl get pods' | sh", "kubectl", false);
    not_named("printf -v x 'kubectl get pods' | sh", "kubectl");
    names(
        "read x <<< 'a[$(kubectl get pods)0]'; echo $((x))",
        "kubectl",
    );
    named(
        "tmux send-keys -t s 'kubectl get pods' Enter",
        "kubectl",
        false,
    );
    named("git ls-remote 'ext::kubectl get %S'", "kubectl", false);
    named("git grep -O'kubectl get' x", "kubectl", false);
    named("KUBE_EDITOR='kubectl get' kubectl edit x", "kubectl", false);
    named("LESSOPEN='|kubectl get %s' less f", "kubectl", false);
    dynamic("julia -e 'run(`ls`)'", Reason::Interpreter, "julia -e");
}

#[test]
fn other_ways_to_change_what_runs() {
    for (line, reason, text) in [
        ("read PATH <<< ./b; k x", Reason::Path, "read PATH"),
        ("printf -v PATH %s ./b; k x", Reason::Path, "printf -v PATH"),
        ("enable -f ./x.so k; k", Reason::File, "enable -f ./x.so"),
        ("ssh -o 'Include ./c' h", Reason::File, "'Include ./c'"),
        ("sftp -b cmds h", Reason::File, "cmds"),
        ("git --git-dir=./x status", Reason::File, "--git-dir=./x"),
        ("GIT_DIR=./x git status", Reason::File, "GIT_DIR=./x"),
        ("TAR_OPTIONS=--x tar -xf a", Reason::File, "TAR_OPTIONS=--x"),
        ("ninja -C out", Reason::File, "ninja -C out"),
    ] {
        dynamic(line, reason, text);
    }
    for line in [
        "read -r line < f",
        "printf -v x '%s' y",
        "xargs printf '%s\\n'",
        "enable -n echo",
        "scp -P 22 a h:b",
        "ninja --version",
    ] {
        plain(line);
    }
}

#[test]
fn programs_with_commands_of_their_own() {
    named("gdb -batch -ex 'shell kubectl get pods'", "kubectl", false);
    named("gdb -batch -ex '!kubectl get pods'", "kubectl", false);
    named("gdb --eval-command='shell kubectl get' x", "kubectl", false);
    dynamic("gdb -x cmds prog", Reason::File, "cmds");
    named("zip -T -TT 'kubectl get' a.zip f", "kubectl", false);
    named("man -P 'kubectl get' ls", "kubectl", false);
    named("man --pager='kubectl get' ls", "kubectl", false);
    named("vim -es -c '!kubectl get pods' -c q", "kubectl", true);
    named("vim '+:!kubectl get pods' f", "kubectl", false);
    dynamic(
        "emacs --batch --eval '(shell-command \"ls\")'",
        Reason::Interpreter,
        "'(shell-command \"ls\")'",
    );
    for line in [
        "gdb -batch -ex bt prog core",
        "zip -r a.zip d",
        "man ls",
        "vim f",
    ] {
        plain(line);
    }
}

#[test]
fn every_arithmetic_context_names_its_substitutions_and_reads_are_dynamic() {
    // A subscript bash evaluates, however its `$` is spelled: the program is named.
    for line in [
        "a['$(kubectl get pods)']=1",
        "a=(['$(kubectl get pods)']=1)",
        "a[$'\\x24(kubectl get pods)']=1",
        "a[$'$(kubectl get pods)']=1",
        "let $'b[\\x24(kubectl get pods)]'",
        "echo $[$'b[\\x24(kubectl get pods)]']",
        "declare $'a[\\x24(kubectl get pods)]=1'",
        "printf -v $'a[\\x24(kubectl get pods)]' 1",
        "test -v $'a[\\x24(kubectl get pods)]'",
        "read $'a[\\x24(kubectl get pods)]' <<< 1",
    ] {
        names(line, "kubectl");
    }
    // A context that reads a variable: its value is evaluated again.
    for (line, text) in [
        ("x='b[$(kubectl get pods)]'; a[x]=1", "((x))"),
        ("x='b[$(kubectl get pods)]'; a[x]+=1", "((x))"),
        ("x='b[$(kubectl get pods)]'; a=([x]=1)", "((x))"),
        ("x='b[$(kubectl get pods)]'; a=(1 [x]=2)", "((x))"),
        ("x='b[$(kubectl get pods)]'; a+=([x]=2)", "((x))"),
        ("f(){ a[x]=1; }; x='b[$(kubectl get pods)]'; f", "((x))"),
        ("x='b[$(kubectl get pods)]'; y=x; a[y]=1", "((y))"),
        ("x=b[\\$\\(kubectl\\ get\\ pods\\)]; let x", "((x))"),
        ("x=$'b[\\44(kubectl get pods)]'; let x", "((x))"),
        ("x=$'b[\\u0024(kubectl get pods)]'; let x", "((x))"),
        ("printf -v x 'b[%s(kubectl get pods)]' \\$; let x", "((x))"),
        ("let y=x+1", "((y=x+1))"),
        ("echo $[x+1]", "((x+1))"),
        ("a[0]=1; echo ${a[x]}", "((x))"),
        ("declare -i i=x", "((x))"),
        ("typeset -i i=x", "((x))"),
        ("f(){ local -i i=x; }; f", "((x))"),
        ("declare -i i; i=x", "((x))"),
        ("declare a[x]=1", "((x))"),
        ("read 'a[x]' <<< 1", "((x))"),
        ("printf -v 'a[x]' 1", "((x))"),
        ("test -v 'a[x]'", "((x))"),
        ("a[i+1]=2", "((i+1))"),
    ] {
        dynamic(line, Reason::Expansion, text);
    }
    for line in [
        "a[0]=1",
        "a[0x1f]=3",
        "a=(1 2 3)",
        "a=([0]=1 [1]=2)",
        "echo $(( 16#ff + 2 )) $[1+2]",
        "echo ${#a[@]} ${a[@]} ${a[*]} ${!a[@]} ${a[0]}",
        "declare -i n=5",
        "printf -v x %s 1",
        "read -r line",
        "BASH_CMDS[k]=/usr/bin/kubectl",
    ] {
        plain(line);
    }
}
