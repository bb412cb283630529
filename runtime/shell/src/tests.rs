//! The splitter's table of command lines and the programs each must yield.

use super::{programs, split, Reason};

/// One command line per row, with the exact programs it must yield.
const CASES: &[(&str, &[&str])] = &[
    // The reference cases.
    ("cd repo && git push", &["cd", "git"]),
    ("grep \"a; rm x\" f | wc -l", &["grep", "wc"]),
    ("FOO=1 sudo -u bob git status", &["git"]),
    ("sudo -R /srv git push", &["git"]),
    ("sudo --chroot /srv -u bob git push", &["git"]),
    ("timeout 30 /usr/bin/python3 -m x", &["python3"]),
    // Operators.
    ("", &[]),
    ("   \t ", &[]),
    ("git status", &["git"]),
    ("a; b; a", &["a", "b"]),
    ("a || b && c", &["a", "b", "c"]),
    ("a | b |& c", &["a", "b", "c"]),
    ("a & b", &["a", "b"]),
    ("a\nb\n\nc", &["a", "b", "c"]),
    ("a;b&&c||d|e", &["a", "b", "c", "d", "e"]),
    ("echo \\; rm x", &["echo"]),
    ("echo a\\;rm", &["echo"]),
    // Quotes.
    ("echo 'a && rm -rf /'", &["echo"]),
    ("echo $'a\\' ; rm'", &["echo"]),
    ("echo \"a | rm\" 'b; rm' c", &["echo"]),
    ("\"git\" status", &["git"]),
    ("'g'it status", &["git"]),
    ("\\git status", &["git"]),
    ("$'git' status", &["git"]),
    ("$'\\x67it' status", &["git"]),
    ("g\"i\"t status", &["git"]),
    ("echo 'unterminated; rm x", &["echo"]),
    ("echo \"unterminated; rm x", &["echo"]),
    // Substitutions.
    ("echo $(whoami)", &["echo", "whoami"]),
    ("echo \"$(whoami)\"", &["echo", "whoami"]),
    ("echo `date`", &["echo", "date"]),
    ("echo \"`date` x\"", &["echo", "date"]),
    ("echo $(a $(b $(c)))", &["echo", "a", "b", "c"]),
    ("diff <(sort a) <(sort b)", &["diff", "sort"]),
    ("tee >(gzip > f) < x", &["tee", "gzip"]),
    ("cat < <(curl x)", &["cat", "curl"]),
    ("echo ${x:-$(hostname)}", &["echo", "hostname"]),
    ("echo $((1 + $(wc -l < f)))", &["echo", "wc"]),
    ("echo $(( 2 * 3 ))", &["echo"]),
    ("echo $((a) | b)", &["echo", "a", "b"]),
    ("echo $(((x = 1)) | kubectl get)", &["echo", "kubectl"]),
    ("b $(c $(d)); e", &["b", "c", "d", "e"]),
    ("x=$(git rev-parse HEAD)", &["git"]),
    ("A=1 B=\"a b\" C=$(id -u)", &["id"]),
    ("A=1 B=\"a b\" make all", &["make"]),
    ("arr=(one $(ls) three) && echo", &["ls", "echo"]),
    ("echo $(echo ')'; rm x)", &["echo", "rm"]),
    ("echo $(case x in a) git;; esac)", &["echo", "git"]),
    // Subshells, groups, keywords.
    ("(cd sub && make)", &["cd", "make"]),
    ("( (a) ; b )", &["a", "b"]),
    ("{ git fetch; git merge; }", &["git"]),
    (
        "if git diff --quiet; then echo ok; else exit 1; fi",
        &["git", "echo", "exit"],
    ),
    ("if a; then b; elif c; then d; fi", &["a", "b", "c", "d"]),
    ("while read l; do echo $l; done < f", &["read", "echo"]),
    ("until false; do sleep 1; done", &["false", "sleep"]),
    ("for x in a b c; do echo $x; done", &["echo"]),
    ("for x in $(ls); do rm $x; done", &["ls", "rm"]),
    ("for x\ndo\n  git add $x\ndone", &["git"]),
    ("for ((i=0; i<3; i++)); do echo; done", &["echo"]),
    ("select x in a b; do ls; done", &["ls"]),
    ("case $x in a) cmd1;; b|c) cmd2;; esac", &["cmd1", "cmd2"]),
    (
        "case $x in (a) cmd1;& *) cmd2;;& esac; cmd3",
        &["cmd1", "cmd2", "cmd3"],
    ),
    ("case x in\n  a)\n    git\n    ;;\nesac", &["git"]),
    ("function f { git x; }", &["git"]),
    ("function f() { git x; }", &["git"]),
    ("f() { git x; }; f", &["git", "f"]),
    ("f () ( ls )", &["ls"]),
    ("[[ -f x ]]", &[]),
    ("[[ -f x && $y == z ]] && make", &["make"]),
    ("[ -f x ] && make", &["[", "make"]),
    ("test -f x", &["test"]),
    ("(( i++ ))", &[]),
    ("(( i++ )) && git push", &["git"]),
    ("! git diff", &["git"]),
    ("time git status", &["git"]),
    ("time -p make", &["make"]),
    ("time -- kubectl x", &["kubectl"]),
    ("time -p -- kubectl x", &["kubectl"]),
    ("time -p ((x)) && kubectl", &["kubectl"]),
    ("time (( i++ )) && git", &["git"]),
    ("coproc git fetch", &["git"]),
    ("coproc worker { git fetch; }", &["git"]),
    ("echo if then fi done", &["echo"]),
    // Comments.
    ("echo a#b", &["echo"]),
    ("echo a #rm -rf /", &["echo"]),
    ("# comment\ngit status", &["git"]),
    ("git status # ; rm x", &["git"]),
    ("echo x;#rm\nls", &["echo", "ls"]),
    // Redirections.
    ("2>&1 git status", &["git"]),
    (">out.txt echo hi", &["echo"]),
    ("</dev/null ssh host", &["ssh"]),
    ("make 2>/dev/null >>log &>all", &["make"]),
    ("cmd >f 2>&1 | tee log", &["cmd", "tee"]),
    ("ls {fd}>f", &["ls"]),
    ("exec 3>&1", &["exec"]),
    ("> f", &[]),
    // Heredocs and here-strings.
    ("cat <<EOF\nrm -rf /\nEOF\nls", &["cat", "ls"]),
    ("cat <<EOF | grep x\nhello; rm\nEOF", &["cat", "grep"]),
    ("cat <<'EOF'\n$(rm x)\nEOF", &["cat"]),
    ("cat <<\"EOF\" && ls\nrm\nEOF\nwc", &["cat", "ls", "wc"]),
    ("cat <<-EOF\n\trm x\n\tEOF\ngit", &["cat", "git"]),
    ("cat <<A <<B\nrm\nA\nmv\nB\nls", &["cat", "ls"]),
    ("cat <<EOF\nnever closed; rm", &["cat"]),
    ("grep x <<<word", &["grep"]),
    ("grep x <<< \"a; rm\"", &["grep"]),
    // Line continuations.
    ("git \\\n  status", &["git"]),
    ("gi\\\nt status", &["git"]),
    ("echo a \\\n&& ls", &["echo", "ls"]),
    // Paths.
    ("/usr/bin/python3 x.py", &["python3"]),
    ("./scripts/run.sh", &["run.sh"]),
    ("~/bin/tool", &["tool"]),
    ("${HOME}/bin/tool x", &["tool"]),
    ("./dir/ x", &[]),
    // Expansions in the program word cannot name a cli.
    ("$cmd args", &[]),
    ("\"$cmd\" args && ls", &["ls"]),
    ("$(which git) status", &["which"]),
    ("git$x status", &[]),
    ("'$cmd' x", &["$cmd"]),
    // Wrappers.
    ("sudo -E -H git pull", &["git"]),
    ("sudo --user=bob -g grp npm i", &["npm"]),
    ("sudo -ubob -- rm x", &["rm"]),
    ("sudo --user bob X=1 make", &["make"]),
    ("sudo -v", &["sudo"]),
    ("env -i -u HOME -C /tmp A=1 B=2 node x", &["node"]),
    ("env -- ls", &["ls"]),
    ("env A=$(id -u) B=\"$x\" git", &["id", "git"]),
    ("env <(A=1 x) y", &["x"]),
    ("env", &["env"]),
    ("env -S 'git status'", &["git"]),
    ("env --split-string='make all' x", &["make"]),
    ("env -S 'kubectl\\_get'", &["kubectl"]),
    ("env -S 'echo a\\c; kubectl x'", &["echo"]),
    ("env -S \"echo '\\_'; git\"", &["echo", "git"]),
    ("command -p git status", &["git"]),
    ("command -v git", &["command"]),
    ("command -V git || npm i", &["command", "npm"]),
    ("nohup ./server &", &["server"]),
    ("exec -a name -cl bash", &["bash"]),
    ("timeout -s KILL --kill-after=5 1.5s curl x", &["curl"]),
    (
        "timeout --signal KILL -k 5 --preserve-status --foreground -v 30 ls",
        &["ls"],
    ),
    ("sudo env A=1 timeout 5 nice x", &["nice", "x"]),
    ("nice -n 5 make", &["nice", "make"]),
    ("xargs rm < list", &["xargs", "rm"]),
    ("builtin eval 'kubectl get'", &["eval", "kubectl"]),
    // Runners: each is a program, and so is the command it runs.
    (
        "xargs -I {} -n1 -P 4 kubectl delete {}",
        &["xargs", "kubectl"],
    ),
    (
        "xargs -a list -d '\\n' -E end -s 100 -L 2 -- kubectl",
        &["xargs", "kubectl"],
    ),
    ("xargs -0 sh -c 'kubectl x'", &["xargs", "sh", "kubectl"]),
    ("xargs", &["xargs"]),
    (
        "find . -name x -exec kubectl delete {} \\;",
        &["find", "kubectl"],
    ),
    (
        "find . -execdir rm {} + -ok git x ';'",
        &["find", "rm", "git"],
    ),
    (
        "find . -exec sh -c 'kubectl get \"$1\"' _ {} \\;",
        &["find", "sh", "kubectl"],
    ),
    ("find . -name '*.rs'", &["find"]),
    ("watch -n 5 -d kubectl get pods", &["watch", "kubectl"]),
    (
        "watch 'kubectl get pods | grep x'",
        &["watch", "kubectl", "grep"],
    ),
    (
        "nice -n 10 ionice -c 3 -n 7 kubectl x",
        &["nice", "ionice", "kubectl"],
    ),
    ("ionice -c 3 -p 1234", &["ionice"]),
    ("setsid -f kubectl proxy", &["setsid", "kubectl"]),
    ("stdbuf -o L -eL kubectl logs x", &["stdbuf", "kubectl"]),
    ("flock /tmp/lock kubectl apply", &["flock", "kubectl"]),
    (
        "flock -w 5 /tmp/lock -c 'kubectl apply'",
        &["flock", "kubectl"],
    ),
    ("flock 9", &["flock"]),
    ("chroot /srv kubectl x", &["chroot", "kubectl"]),
    (
        "chroot --userspec bob /srv kubectl x",
        &["chroot", "kubectl"],
    ),
    ("doas -u root kubectl x", &["doas", "kubectl"]),
    ("su -c 'kubectl x' root", &["su", "kubectl"]),
    ("su - root --command='kubectl x'", &["su", "kubectl"]),
    // The shell `-s` names is the program su starts.
    ("su -s /bin/sh root", &["su", "sh"]),
    ("sg docker -c 'kubectl x'", &["sg", "kubectl"]),
    ("sg docker kubectl x", &["sg", "kubectl"]),
    ("runuser -u bob -- kubectl x", &["runuser", "kubectl"]),
    ("runuser - bob -c 'kubectl x'", &["runuser", "kubectl"]),
    (
        "setpriv --reuid 1000 --init-groups kubectl x",
        &["setpriv", "kubectl"],
    ),
    ("script -q -c 'kubectl x' /dev/null", &["script", "kubectl"]),
    (
        "strace -f -e trace=open -o out -s 99 kubectl x",
        &["strace", "kubectl"],
    ),
    ("strace -p 1234", &["strace"]),
    ("ltrace -e malloc -o out kubectl", &["ltrace", "kubectl"]),
    ("taskset -c 0-3 kubectl x", &["taskset", "kubectl"]),
    ("taskset 0x3 kubectl x", &["taskset", "kubectl"]),
    ("taskset -p 3 1234", &["taskset"]),
    ("chrt -f 10 kubectl x", &["chrt", "kubectl"]),
    ("chrt -p 10 1234", &["chrt"]),
    (
        "prlimit --nofile=1024 --as=1G kubectl x",
        &["prlimit", "kubectl"],
    ),
    (
        "unshare -r -n --mount=/x kubectl x",
        &["unshare", "kubectl"],
    ),
    ("nsenter -t 1 -m -u kubectl x", &["nsenter", "kubectl"]),
    (
        "parallel -j 4 kubectl delete pod ::: a b",
        &["parallel", "kubectl"],
    ),
    (
        "parallel 'kubectl x {}; rm {}' ::: a",
        &["parallel", "kubectl", "rm"],
    ),
    ("busybox wget x", &["busybox", "wget"]),
    ("fakeroot -u -b 3 -- kubectl x", &["fakeroot", "kubectl"]),
    // fakeroot `eval`s -f as a command and -l, -i, -s as arguments (after `:`).
    (
        "fakeroot -f 'kubectl x;' -l '$(helm y)' make",
        &["fakeroot", "kubectl", ":", "helm", "make"],
    ),
    (
        "valgrind -q --tool=memcheck --log-file=v kubectl x",
        &["valgrind", "kubectl"],
    ),
    (
        "perf stat -e cycles -o out -r 3 -- kubectl x",
        &["perf", "kubectl"],
    ),
    ("perf stat -i kubectl x", &["perf", "kubectl"]),
    // hookdex's own runner: a pre rewrite wraps commands in it.
    (
        "hookdex exec -- kubectl delete pod x",
        &["hookdex", "kubectl"],
    ),
    ("hookdex exec kubectl delete pod x", &["hookdex", "kubectl"]),
    (
        "/usr/local/bin/hookdex supervise-async --timeout-ms 5 -- kubectl x",
        &["hookdex", "kubectl"],
    ),
    ("hookdex list --json", &["hookdex"]),
    ("perf trace -i perf.data", &["perf"]),
    (
        "perf record -g --call-graph dwarf -p 1 kubectl",
        &["perf", "kubectl"],
    ),
    (
        "perf stat --pre 'kubectl x' make",
        &["perf", "kubectl", "make"],
    ),
    ("perf report -i x kubectl", &["perf"]),
    (
        "dbus-run-session --config-file f -- kubectl x",
        &["dbus-run-session", "kubectl"],
    ),
    ("catchsegv kubectl x", &["catchsegv", "kubectl"]),
    (
        "firejail --private --net=none kubectl x",
        &["firejail", "kubectl"],
    ),
    ("torsocks -u bob -i kubectl x", &["torsocks", "kubectl"]),
    (
        "proxychains4 -q -f conf kubectl x",
        &["proxychains4", "kubectl"],
    ),
    ("proxychains -qf kubectl x", &["proxychains", "kubectl"]),
    ("aa-exec -p prof -- kubectl x", &["aa-exec", "kubectl"]),
    ("cgexec -g cpu:/x kubectl x", &["cgexec", "kubectl"]),
    (
        "systemd-run --user -p A=1 --unit u kubectl x",
        &["systemd-run", "kubectl"],
    ),
    (
        "parallel ::: 'kubectl x' 'helm y' ::: a",
        &["parallel", "kubectl", "helm"],
    ),
    (
        "sudo nice -n 5 xargs -n1 timeout 5 kubectl",
        &["nice", "xargs", "kubectl"],
    ),
    ("/usr/bin/sudo /bin/ls", &["ls"]),
    // Shell strings and eval.
    ("bash -c 'kubectl delete x'", &["bash", "kubectl"]),
    ("sh -c \"git push && npm publish\"", &["sh", "git", "npm"]),
    ("bash -lc 'make; make install'", &["bash", "make"]),
    (
        "bash -e -o pipefail -c 'curl x | sh'",
        &["bash", "curl", "sh"],
    ),
    ("zsh -c 'echo \"$(id)\"'", &["zsh", "echo", "id"]),
    ("bash script.sh -c 'rm x'", &["bash"]),
    ("sudo bash -c 'rm -rf x'", &["bash", "rm"]),
    ("eval \"git push\"", &["eval", "git"]),
    ("eval git push '&&' rm x", &["eval", "git", "rm"]),
    ("bash -c 'bash -c \"sh -c ls\"'", &["bash", "sh", "ls"]),
    // Code handed to a shell as data.
    ("bash <<< 'kubectl x'", &["bash", "kubectl"]),
    ("sh -s <<< \"git push; rm x\"", &["sh", "git", "rm"]),
    (
        "sh <<EOF\nkubectl delete x\nEOF\nls",
        &["sh", "kubectl", "ls"],
    ),
    (
        "sudo bash <<'EOF'\nkubectl x | grep y\nEOF",
        &["bash", "kubectl", "grep"],
    ),
    ("bash script.sh <<< 'kubectl x'", &["bash"]),
    ("echo 'kubectl delete x' | sh", &["echo", "sh", "kubectl"]),
    (
        "printf '%s\\n' 'kubectl x' | bash",
        &["printf", "bash", "kubectl"],
    ),
    (
        "printf 'kubectl get\\nrm x' |& bash -s",
        &["printf", "bash", "kubectl", "rm"],
    ),
    ("echo \"$x\" | sh", &["echo", "sh"]),
    ("source <(kubectl completion bash)", &["source", "kubectl"]),
    (". <(helm env)", &[".", "helm"]),
    ("bash <(curl -s x)", &["bash", "curl"]),
    ("trap 'kubectl delete x' EXIT", &["trap", "kubectl"]),
    ("trap -- 'rm x' INT; trap - INT", &["trap", "rm"]),
    ("alias k=kubectl; k get", &["alias", "kubectl", "k"]),
    ("alias k='kubectl -n x' g=git", &["alias", "kubectl", "git"]),
    (
        "hash -p /usr/bin/kubectl k; k get",
        &["hash", "kubectl", "k"],
    ),
    ("cat <<EOF\n$(kubectl delete x)\nEOF", &["cat", "kubectl"]),
    ("cat <<EOF\n`git push`\\$(no)\nEOF", &["cat", "git"]),
    ("cat <<-E\"OF\"\n\t$(kubectl x)\n\tEOF", &["cat"]),
    ("cat <<\\EOF\n$(kubectl x)\nEOF", &["cat"]),
    (
        "sh <<EOF\ncat <<'EOF'\n$(helm x)\nEOF\n",
        &["sh", "cat", "helm"],
    ),
    // Brace expansion and arithmetic.
    // The first alternative is the program, the others candidates (pushed first).
    ("{kubectl,x} get", &["x", "kubectl"]),
    (
        "/usr/bin/{kube,hel}{ctl,m} x",
        &["kubem", "helctl", "helm", "kubectl"],
    ),
    ("{a..c} x", &["b", "c", "a"]),
    ("'{kubectl,x}' get", &["{kubectl,x}"]),
    ("((kubectl get pods))", &[]),
    ("((kubectl get pods) )", &["kubectl"]),
    ("((a) | b)", &["a", "b"]),
    // bash runs the first alternative with the others as its arguments.
    (
        "{bash,-c,'kubectl x'}",
        &["-c", "kubectl x", "bash", "kubectl"],
    ),
    ("{sudo,kubectl,x} y", &["kubectl", "x"]),
    // A shell whose script is stdin reads the here-string, heredoc or pipe.
    ("source /dev/stdin <<< 'kubectl x'", &["source", "kubectl"]),
    (". /dev/fd/0 <<< 'kubectl x'", &[".", "kubectl"]),
    ("bash /dev/stdin <<< 'kubectl x'", &["bash", "kubectl"]),
    ("sh /proc/self/fd/0 <<< 'kubectl x'", &["sh", "kubectl"]),
    ("bash //dev/./stdin <<< 'kubectl x'", &["bash", "kubectl"]),
    ("bash ../../dev/stdin <<< 'kubectl x'", &["bash", "kubectl"]),
    ("bash \"$f\" <<< 'kubectl x'", &["bash", "kubectl"]),
    (
        "echo 'kubectl x' | bash /dev/stdin",
        &["echo", "bash", "kubectl"],
    ),
    ("bash /dev/stdin.sh <<< 'kubectl x'", &["bash"]),
    // Code handed on reads the stdin of the command that hands it on.
    ("bash -c 'bash' <<< 'kubectl x'", &["bash", "kubectl"]),
    ("{ bash; } <<< 'kubectl x'", &["bash", "kubectl"]),
    ("{ cat; } <<< 'kubectl x'", &["cat"]),
    // Runners that start a shell without a command.
    ("fakeroot <<< 'kubectl x'", &["fakeroot", "kubectl"]),
    ("su - root <<< 'kubectl x'", &["su", "kubectl"]),
    (
        "unshare -r sh -s <<< 'kubectl x'",
        &["unshare", "sh", "kubectl"],
    ),
    (
        "systemd-run -S <<< 'kubectl x'",
        &["systemd-run", "kubectl"],
    ),
    (
        "script -q /dev/null <<< 'kubectl x'",
        &["script", "kubectl"],
    ),
    ("env -S kubectl delete pod x", &["kubectl"]),
    ("env -S'-i A=1 kubectl' x", &["kubectl"]),
    // Prompts and exported functions are code for the shell that reads them.
    (
        "PS4='$(kubectl x)' bash -xc 'kubectl get'",
        &["kubectl", "bash"],
    ),
    (
        "env 'BASH_FUNC_kubectl%%=() { helm x; }' bash -c 'kubectl get'",
        &["helm", "bash", "kubectl"],
    ),
    ("export PROMPT_COMMAND='git x'", &["export", "git"]),
];

/// One command line per row, with the programs it may run that its text cannot name.
const DYNAMIC: &[(&str, &[(Reason, &str)])] = &[
    ("git status", &[]),
    ("$K get pods", &[(Reason::Expansion, "$K")]),
    ("\"${cmd}\" x && ls", &[(Reason::Expansion, "\"${cmd}\"")]),
    ("sudo $tool x", &[(Reason::Expansion, "$tool")]),
    (
        "$(which git) status",
        &[(Reason::Expansion, "$(which git)")],
    ),
    ("eval \"$x\"", &[(Reason::Expansion, "$x")]),
    ("bash -c \"$script\"", &[(Reason::Expansion, "$script")]),
    // Bash splices the value of `$x` into the code as text: it may hold any command.
    ("eval \"kubectl $x\"", &[(Reason::Expansion, "$x")]),
    ("eval 'kubectl $x'", &[]),
    ("eval \"kubectl \\$x\"", &[]),
    ("bash -c \"kubectl get $x\"", &[(Reason::Expansion, "$x")]),
    ("bash -c 'kubectl get \"$x\"'", &[]),
    ("bash <<< \"kubectl get $x\"", &[(Reason::Expansion, "$x")]),
    (
        "bash <<EOF\nkubectl get ${x}\nEOF",
        &[(Reason::Expansion, "${x}")],
    ),
    ("bash <<'EOF'\nkubectl get $x\nEOF", &[]),
    (
        "su -c \"kubectl get $(cat f)\"",
        &[(Reason::Expansion, "$(cat f)")],
    ),
    ("watch \"kubectl get $x\"", &[(Reason::Expansion, "$x")]),
    ("trap \"$x\" EXIT", &[(Reason::Expansion, "$x")]),
    ("env -S \"kubectl $x\"", &[(Reason::Expansion, "$x")]),
    ("eval $'kubectl \\'$x'", &[]),
    (
        "xargs -I{} sh -c 'kubectl get {}'",
        &[
            (Reason::Expansion, "'kubectl get {}'"),
            (Reason::Stdin, "sh"),
        ],
    ),
    (
        "find . -exec sh -c 'kubectl get {}' \\;",
        &[(Reason::Expansion, "'kubectl get {}'")],
    ),
    ("parallel 'kubectl get {}' ::: a", &[]),
    // Variables a shell reads as code, or as the file it sources first.
    (
        "BASH_ENV=/dev/stdin bash -c 'kubectl get' <<< 'kubectl x'",
        &[(Reason::Stdin, "BASH_ENV=/dev/stdin")],
    ),
    (
        "export ENV=$f; sh -i",
        &[(Reason::Stdin, "ENV=$f"), (Reason::File, "sh")],
    ),
    (
        "BASH_ENV=~/.bashrc bash -c x",
        &[(Reason::Stdin, "BASH_ENV=~/.bashrc")],
    ),
    (
        "BASH_ENV=/etc/profile bash -c x",
        &[(Reason::File, "BASH_ENV=/etc/profile")],
    ),
    (
        "PS4='$x' bash -xc 'kubectl get'",
        &[(Reason::Expansion, "$x")],
    ),
    ("kube?tl get", &[(Reason::Glob, "kube?tl")]),
    ("/usr/bin/kube* get", &[(Reason::Glob, "/usr/bin/kube*")]),
    ("'kube*' x", &[]),
    ("[ -f x ]", &[]),
    (
        "python3 -c 'import os'",
        &[(Reason::Interpreter, "python3 -c")],
    ),
    (
        "python3 script.py -c x",
        &[(Reason::Interpreter, "python3")],
    ),
    ("perl -ne 'print'", &[(Reason::Interpreter, "perl -ne")]),
    ("node --eval 'x'", &[(Reason::Interpreter, "node --eval")]),
    ("ruby -e 'x'", &[(Reason::Interpreter, "ruby -e")]),
    ("curl -s x | bash", &[(Reason::Stdin, "| bash")]),
    ("echo 'ls' | bash", &[]),
    ("{ echo ls; } | sh", &[(Reason::Stdin, "| sh")]),
    (
        "source <(kubectl completion bash)",
        &[(Reason::Stdin, "<(kubectl completion bash)")],
    ),
    (". <(x)", &[(Reason::Stdin, "<(x)")]),
    ("bash <(curl -s x)", &[(Reason::Stdin, "<(curl -s x)")]),
    ("source ./env.sh", &[(Reason::File, "./env.sh")]),
    ("echo kubectl | parallel", &[(Reason::Stdin, "parallel")]),
    (
        "parallel -j 2 :::: cmds.txt",
        &[(Reason::Stdin, "parallel :::: cmds.txt")],
    ),
    ("parallel ::: 'kubectl x'", &[]),
    (
        "hash -p \"$(command -v helm)\" k; k",
        &[(Reason::Expansion, "\"$(command -v helm)\"")],
    ),
    (
        "eval \"$(kubectl completion bash)\"",
        &[(Reason::Expansion, "$(kubectl completion bash)")],
    ),
    // The words a runner appends name the program, or the code, that runs.
    ("echo 'kubectl x' | xargs sh -c", &[(Reason::Stdin, "sh")]),
    ("xargs -0 sudo -n", &[(Reason::Stdin, "sudo")]),
    ("xargs timeout 5", &[(Reason::Stdin, "timeout")]),
    ("xargs env A=1", &[(Reason::Stdin, "env")]),
    ("xargs watch", &[(Reason::Stdin, "watch")]),
    ("xargs xargs", &[(Reason::Stdin, "xargs")]),
    (
        "xargs python3",
        &[(Reason::Interpreter, "python3"), (Reason::Stdin, "python3")],
    ),
    ("xargs find .", &[(Reason::Stdin, "find")]),
    ("alias e=eval", &[(Reason::Stdin, "eval")]),
    ("xargs nice kubectl", &[]),
    ("xargs", &[]),
    ("xargs command -v", &[]),
    // A runner's replacement string as the program.
    (
        "find kubectl -exec {} delete pod x \\;",
        &[(Reason::Expansion, "{}")],
    ),
    ("parallel {} x ::: kubectl", &[(Reason::Expansion, "{}")]),
    ("parallel -I R R x ::: kubectl", &[(Reason::Expansion, "R")]),
    (
        "parallel --rpl '{..} s/x//' {..} x ::: a",
        &[(Reason::Expansion, "{..}")],
    ),
];

#[test]
fn dynamic() {
    for (line, want) in DYNAMIC {
        let found = split(line).dynamic;
        let got: Vec<(Reason, &str)> = found.iter().map(|d| (d.reason, d.text.as_str())).collect();
        assert_eq!(got, *want, "command line: {line:?}");
    }
}

#[test]
fn table() {
    assert!(CASES.len() >= 70);
    for (line, want) in CASES {
        assert_eq!(programs(line), *want, "command line: {line:?}");
    }
}

/// Garbage and unbalanced text must come back without a panic.
#[test]
fn never_panics() {
    let pieces = [
        "$(",
        ")",
        "`",
        "\"",
        "'",
        "$'",
        "${",
        "}",
        "((",
        "))",
        "<<",
        "<<-",
        "<<<",
        "\\",
        "\n",
        "<(",
        "case",
        "in",
        ";;",
        "esac",
        "for",
        "do",
        "[[",
        "]]",
        "a=(",
        "@(",
        "2>",
        "&>",
        "#",
        "é",
        "\u{1F600}",
        "{fd}",
        "{",
        "|&",
        "sudo",
        "-u",
        "env",
        "-S",
        "bash",
        "-c",
        "eval",
        "timeout",
        "--",
        "$x",
        "EOF",
        " ",
        "\\\n",
        "$((",
        "function",
        "f()",
        "coproc",
        "$\"",
        "xargs",
        "find",
        "-exec",
        ";",
        "{kubectl,x}",
        "*",
        "|",
        "sh",
        "parallel",
        ":::",
        "trap",
        "alias",
        "k=",
        "hash",
        "-p",
        "flock",
        "su",
        "-cé",
        "\\_",
        "\\c",
        "printf",
        "%s",
        "python3",
        "<<EOF\n",
        "fakeroot",
        "-l",
        "perf",
        "stat",
        "record",
        "/dev/stdin",
        "BASH_ENV=",
        "PS4=",
        "BASH_FUNC_f%%=",
        "-I",
        "{}",
        "{a,",
        "~",
        "proxychains4",
        "-qf",
        "export",
    ];
    // Every pair and a pseudo-random walk over the pieces.
    for a in pieces {
        for b in pieces {
            let _ = programs(&format!("{a}{b}"));
            let _ = programs(&format!("{a} {b} x"));
        }
    }
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    for _ in 0..2_000 {
        let mut line = String::new();
        for _ in 0..12 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            line.push_str(pieces[(state % pieces.len() as u64) as usize]);
        }
        let _ = programs(&line);
    }
    for cut in [
        "echo $(ls",
        "echo \"$(",
        "cat <<",
        "bash -c",
        "eval",
        "sudo -u",
        "env -S",
        "su -c",
        "flock f -c",
        "find . -exec",
        "parallel :::",
        "echo x |",
        "sh <<EOF",
        "{a,",
        "hash -p",
    ] {
        let _ = programs(cut);
    }
}

#[test]
fn one_megabyte() {
    let unit = "git status && echo \"a; b\" | grep -v x > /dev/null; A=$(id -u) ls 'q' #c\n";
    let line = unit.repeat(crate::MAX_LINE / unit.len());
    assert_eq!(programs(&line), ["git", "echo", "grep", "id", "ls"]);
    let distinct: String = (0..100_000).map(|i| format!("p{i};")).collect();
    assert_eq!(programs(&distinct).len(), 100_000);
}

#[test]
fn deep_nesting() {
    let deep = format!("{}git{}", "$(".repeat(10_000), ")".repeat(10_000));
    // Beyond the depth limit text is skipped, not searched, and reported dynamic.
    assert!(programs(&deep).is_empty());
    // Each `$(…)` level is also a program word that is an expansion.
    let too_deep = split(&deep).dynamic;
    assert_eq!(too_deep.len(), crate::MAX_DYNAMIC);
    assert_eq!(too_deep[0].reason, Reason::TooDeep);
    let evals = format!("{}kubectl", "eval ".repeat(40));
    assert_eq!(split(&evals).dynamic[0].reason, Reason::TooDeep);
    let open = "$(".repeat(10_000);
    assert!(programs(&open).is_empty());
    let quotes = "\"${x:-".repeat(10_000);
    assert!(programs(&quotes).is_empty());
    let backticks = "echo `a \\`b\\` c` ".repeat(10_000);
    assert_eq!(programs(&backticks), ["echo", "a", "b"]);
    let shells = "bash -c \"".repeat(5_000);
    assert_eq!(programs(&shells), ["bash"]);
    // Chained runners and brace groups are bounded, not followed to the end.
    let runners = format!("{}kubectl", "nice ".repeat(100_000));
    assert_eq!(split(&runners).dynamic[0].reason, Reason::TooDeep);
    let braces = format!("{}x", "{a,b}".repeat(100));
    assert_eq!(programs(&braces).len(), crate::braces::MAX_BRACE_WORDS);
    let long = format!("{}x", "{a,b}".repeat(100_000));
    assert_eq!(split(&long).dynamic[0].reason, Reason::Glob);
    // Shallow nesting is still searched.
    let shallow = format!("{}git{}", "$(".repeat(20), ")".repeat(20));
    assert_eq!(programs(&shallow), ["git"]);
}

#[test]
fn commands_carry_their_words() {
    let of = |line: &str| -> Vec<(String, Vec<String>)> {
        crate::commands(line)
            .into_iter()
            .map(|c| (c.program, c.args))
            .collect()
    };
    let words = |ws: &[&str]| ws.iter().map(ToString::to_string).collect::<Vec<_>>();
    assert_eq!(
        of("find . -name x -exec kubectl delete pod {} \\;"),
        [
            (
                "find".into(),
                words(&[".", "-name", "x", "-exec", "kubectl", "delete", "pod", "{}", ";"])
            ),
            // `find` ends the command it runs at `;`.
            ("kubectl".into(), words(&["delete", "pod", "{}"])),
        ]
    );
    // Quotes are removed as bash removes them; re-parsed strings are searched.
    assert_eq!(
        of("bash -c '\"kube\"ctl -n prod del\"ete\" pod'")[1],
        ("kubectl".into(), words(&["-n", "prod", "delete", "pod"]))
    );
    assert_eq!(
        of("echo x | xargs -n1 kubectl apply -f")[2],
        ("kubectl".into(), words(&["apply", "-f"]))
    );
    // A wrapper that runs nothing is the command.
    assert_eq!(
        of("command -v kubectl"),
        [("command".into(), words(&["-v", "kubectl"]))]
    );
    // Every simple command, repeated ones included, in source order.
    assert_eq!(
        of("kubectl get x; kubectl $verb y")
            .iter()
            .map(|(_, args)| args.join(" "))
            .collect::<Vec<_>>(),
        ["get x", "$verb y"]
    );
}

/// One command line per row: the program of one of its commands (the first of
/// that name), the indices of its unknown words, and whether more words follow.
const WORDS: &[(&str, &str, &[usize], bool)] = &[
    ("kubectl -n prod get pods", "kubectl", &[], false),
    // Unquoted, an expansion may split into words; quoted, its text is unknown.
    ("x='a b'; kubectl -n $x get", "kubectl", &[1], false),
    ("kubectl -n \"$x\" get", "kubectl", &[1], false),
    ("kubectl -n $(echo a b) get", "kubectl", &[1], false),
    ("kubectl -n `echo a b` get", "kubectl", &[1], false),
    ("kubectl --context=${c} get", "kubectl", &[0], false),
    ("kubectl -v$(echo 9 x) get", "kubectl", &[0], false),
    ("set -- a b; kubectl -n \"$@\"", "kubectl", &[1], false),
    ("kubectl -n \"${a[@]}\"", "kubectl", &[1], false),
    ("kubectl -n * get", "kubectl", &[1], false),
    ("kubectl -n ns? get", "kubectl", &[1], false),
    ("kubectl -n [ab] get", "kubectl", &[1], false),
    ("kubectl -n {a,b} get", "kubectl", &[1], false),
    ("kubectl -n {1..3} get", "kubectl", &[1], false),
    ("kubectl ~ get", "kubectl", &[0], false),
    ("kubectl -n @(a|b) get", "kubectl", &[1], false),
    // Quoted or escaped, these are plain text.
    (
        "kubectl -n '$x' '*' \\{a,b} \"~\" get",
        "kubectl",
        &[],
        false,
    ),
    ("kubectl get pods -l app=$APP", "kubectl", &[3], false),
    ("kubectl -n $'a\\tb' get", "kubectl", &[], false),
    // Runners: xargs and parallel append; find, xargs -I and parallel replace.
    ("echo a | xargs kubectl", "kubectl", &[], true),
    ("xargs -0 kubectl -n prod", "kubectl", &[], true),
    ("xargs -a f nice kubectl", "kubectl", &[], true),
    ("xargs -I R kubectl R get", "kubectl", &[0], true),
    ("find . -exec kubectl -n {} get \\;", "kubectl", &[1], false),
    ("find . -exec kubectl get x{}y +", "kubectl", &[1], false),
    ("parallel kubectl {} ::: get", "kubectl", &[0], true),
    ("parallel --er X kubectl X get ::: a", "kubectl", &[0], true),
    ("xargs -I{} sh -c 'kubectl {}'", "kubectl", &[0], true),
    (
        "find . -exec xargs -I R kubectl {} R \\;",
        "kubectl",
        &[0, 1],
        true,
    ),
    ("xargs sh -c 'kubectl get'", "kubectl", &[], true),
    // An alias's value and a `hash -p` name get their invocation's words.
    ("alias k=kubectl", "kubectl", &[], true),
    ("alias k='kubectl get'", "kubectl", &[], true),
    ("hash -p /usr/bin/kubectl k", "kubectl", &[], true),
    // A brace-expanded program word runs its first alternative with the others.
    ("{kubectl,delete,pod,x}", "kubectl", &[], false),
    ("{x,kubectl} get", "kubectl", &[], true),
    ("env -S 'kubectl -n' $ns get", "kubectl", &[1], false),
];

#[test]
fn commands_mark_what_the_text_cannot_tell() {
    for (line, program, unknown, more) in WORDS {
        let commands = crate::commands(line);
        let Some(command) = commands.iter().find(|c| c.program == *program) else {
            panic!("no {program} in {line:?}: {commands:?}");
        };
        assert_eq!(
            (command.unknown.as_slice(), command.more),
            (*unknown, *more),
            "command line: {line:?}: {command:?}"
        );
    }
}

/// Every program the splitter names has a command that carries its words.
#[test]
fn every_program_has_a_command() {
    for (line, _) in CASES {
        let named: Vec<String> = crate::commands(line)
            .into_iter()
            .map(|c| c.program)
            .collect();
        for program in programs(line) {
            assert!(named.contains(&program), "{program} in {line:?}");
        }
    }
}

#[test]
fn redirections_that_write_are_the_commands_writes() {
    let writes = |line: &str| -> Vec<(String, Vec<String>)> {
        super::commands(line)
            .into_iter()
            .filter(|c| !c.writes.is_empty())
            .map(|c| (c.program, c.writes))
            .collect()
    };
    let w = |p: &str, f: &[&str]| {
        (
            p.to_string(),
            f.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        )
    };
    assert_eq!(writes("echo x > a.sh"), [w("echo", &["a.sh"])]);
    assert_eq!(
        writes("cat <in >>'out file' 2>&1"),
        [w("cat", &["out file"])]
    );
    assert_eq!(writes("ls &> log; ls 2>&- ; ls >&2"), [w("ls", &["log"])]);
    assert_eq!(writes("> .hookdex/x"), [w("", &[".hookdex/x"])]);
    assert_eq!(writes("sudo tee x <> y"), [w("tee", &["y"])]);
    assert_eq!(writes("bash -c 'printf a >| z'"), [w("printf", &["z"])]);
    assert!(writes("cat < file | grep x").is_empty());
}
