//! The splitter's table of command lines and the programs each must yield.

use super::programs;

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
    ("sudo env A=1 timeout 5 nice x", &["nice"]),
    ("nice -n 5 make", &["nice"]),
    ("xargs rm < list", &["xargs"]),
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
];

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
    ] {
        let _ = programs(cut);
    }
}

#[test]
fn one_megabyte() {
    let unit = "git status && echo \"a; b\" | grep -v x > /dev/null; A=$(id -u) ls 'q' #c\n";
    let line = unit.repeat((1 << 20) / unit.len() + 1);
    assert_eq!(programs(&line), ["git", "echo", "grep", "id", "ls"]);
    let distinct: String = (0..100_000).map(|i| format!("p{i};")).collect();
    assert_eq!(programs(&distinct).len(), 100_000);
}

#[test]
fn deep_nesting() {
    let deep = format!("{}git{}", "$(".repeat(10_000), ")".repeat(10_000));
    // Beyond the depth limit text is skipped, not searched.
    assert!(programs(&deep).is_empty());
    let open = "$(".repeat(10_000);
    assert!(programs(&open).is_empty());
    let quotes = "\"${x:-".repeat(10_000);
    assert!(programs(&quotes).is_empty());
    let backticks = "echo `a \\`b\\` c` ".repeat(10_000);
    assert_eq!(programs(&backticks), ["echo", "a", "b"]);
    let shells = "bash -c \"".repeat(5_000);
    assert_eq!(programs(&shells), ["bash"]);
    // Shallow nesting is still searched.
    let shallow = format!("{}git{}", "$(".repeat(20), ")".repeat(20));
    assert_eq!(programs(&shallow), ["git"]);
}
