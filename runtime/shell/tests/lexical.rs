//! How the splitter reads the lexical corners where it once disagreed with bash: each
//! line's reading was checked under bash 5.2 first (the same constructs run under real
//! bash in `tests/enforce/lexical.txt` of the workspace).

use hookdex_shell::{split, Reason};

/// Asserts `line` names `kubectl` (whatever else it reports).
fn names(line: &str) {
    let found = split(line);
    assert!(
        found.programs.iter().any(|p| p == "kubectl"),
        "{line:?} should name kubectl: {found:?}"
    );
}

/// Asserts `line` does not name `kubectl`.
fn hides(line: &str) {
    let found = split(line);
    assert!(
        !found.programs.iter().any(|p| p == "kubectl"),
        "{line:?} should not name kubectl: {found:?}"
    );
}

/// Asserts `line` reports a dynamic program for `reason` whose text is `text`.
fn dynamic(line: &str, reason: Reason, text: &str) {
    let found = split(line);
    assert!(
        found
            .dynamic
            .iter()
            .any(|d| d.reason == reason && d.text == text),
        "{line:?} should report {reason} {text:?}: {found:?}"
    );
}

#[test]
fn bang_paren_is_negation_of_a_subshell_and_a_glob_under_extglob() {
    // `bash -c` starts with extglob off: `!` then a subshell, which runs kubectl.
    names("!(kubectl get pods)");
    names("true && !(kubectl delete pod x)");
    // With extglob on it is a pattern naming the program: reported, not dropped.
    dynamic("!(kubectl get pods)", Reason::Glob, "!(kubectl get pods)");
    // Spaced, it is only negation.
    assert!(!split("! (kubectl get pods)").is_dynamic());
}

#[test]
fn extglob_and_glob_program_words_are_globs() {
    for word in [
        "\"${PATH%%:*}\"/!(nothing)",
        "\"${PATH%%:*}\"/kube[c]tl",
        "@(kubectl)",
        "+(k)ubectl",
        "?(x)",
        "*(x)",
        "\"${PATH%%:*}\"/@(kube|x)ctl",
    ] {
        dynamic(&format!("{word} delete pod x"), Reason::Glob, word);
    }
    // A substitution in a pattern group still runs.
    names("shopt -s extglob\necho @(x|$(kubectl get pods))");
}

#[test]
fn ansi_c_strings_inside_arithmetic() {
    // `$'\''` is one string in `((`, so `))` closes the arithmetic.
    names("(( $'\\'' )); kubectl get pods");
    names("(( 1 )) || (( $'\\')) ' )); kubectl delete pod x");
    names("echo $(( $'\\'' + 1 )); kubectl get pods");
    hides("echo $'\\''; echo kubectl delete pod x");
}

#[test]
fn quotes_inside_a_double_quoted_parameter() {
    // Inside "${…}" bash matches '…' as a span: neither `"` nor `}` in it ends anything.
    names("echo \"${x:-'\"'}\"; kubectl get pods");
    names("echo \"${x:-'a}b'}\"; kubectl get pods");
    names("echo \"${x#'}'}\"; kubectl get pods");
    names("echo \"${x:-$'}'}\"; kubectl get pods");
    // …and the substitutions in that span still run, unlike unquoted.
    names("echo \"${x:-'$(kubectl get pods)'}\"");
    hides("echo ${x:-'$(kubectl get pods)'}");
}

#[test]
fn heredoc_bodies_wait_for_the_lines_own_newline() {
    // A newline inside `$(…)`, backticks or `<(…)` does not start the body.
    for opener in [
        "echo $(echo a\necho b)",
        "echo `echo a\necho b`",
        "cat <(echo a\necho b)",
    ] {
        names(&format!("cat <<E; {opener}\n$(kubectl get pods)\nE"));
        hides(&format!("cat <<'E'; {opener}\n$(kubectl get pods)\nE"));
    }
    // A heredoc opened inside backticks or `$(…)` has its body there.
    hides("echo `cat <<E\nkubectl delete pod x\nE\n`");
    names("echo `cat <<E\nx\nE\n`; kubectl get pods");
    names("echo $(cat <<E\n)\nE\n); kubectl get pods");
}

#[test]
fn heredoc_delimiter_continued_with_a_backslash_newline() {
    // `EO\` newline `F` is the unquoted delimiter EOF: the body is expanded.
    names("cat <<EO\\\nF\n$(kubectl get pods)\nEOF");
    names("cat <<EO\\\nF\nEO\nEOF\nkubectl get pods");
    // Quoted anywhere, it is not.
    hides("cat <<\"E\"O\\\nF\n$(kubectl delete pod x)\nEOF");
}

#[test]
fn brace_sequences_in_the_program_word() {
    for line in [
        "kube{c..c}tl delete pod x",
        "{k..k}ubectl delete pod x",
        "kub{e..e}ctl {delete,pod,x}",
        "kube{c..c}tl de{l..l}ete pod x",
        "kubect{l..l..1} delete pod x",
        "{kubectl,} delete pod x",
    ] {
        names(line);
    }
    // Like bash, the first word runs with the others as its arguments; the others
    // stay programs too, as a wrapper before them may run them.
    let mut programs = split("{j..l}ubectl x").programs;
    programs.sort();
    assert_eq!(programs, ["jubectl", "kubectl", "lubectl"]);
    let mut programs = split("x{01..03}").programs;
    programs.sort();
    assert_eq!(programs, ["x01", "x02", "x03"]);
    // A sequence too long to expand is a glob.
    dynamic("{1..100000}kubectl x", Reason::Glob, "{1..100000}kubectl");
    // Not a sequence: left as it is.
    assert_eq!(split("{a..1} x").programs, ["{a..1}"]);
    hides("echo kube{c..c}tl delete pod x");
}

#[test]
fn parameter_operators_that_evaluate_a_value() {
    dynamic(
        "x='$(kubectl delete pod x)'; : \"${x@P}\"",
        Reason::Expansion,
        "${x@P}",
    );
    dynamic(
        "x=abc; : ${x:'a[$(kubectl delete pod x)]'}",
        Reason::Expansion,
        "${x:'a[$(kubectl delete pod x)]'}",
    );
    dynamic("y=abc; : ${y:x}", Reason::Expansion, "${y:x}");
    dynamic("y=abc; : ${y:1:n}", Reason::Expansion, "${y:1:n}");
    dynamic(": ${!x}", Reason::Expansion, "${!x}");
    // Literal offsets, defaults, lengths and name lists evaluate nothing.
    for line in [
        "echo ${y:1} ${y:1:2} ${y: -1} ${y:-x} ${#y} ${!pre*} ${!a[@]} ${y@Q}",
        "echo \"${y:+x}\" ${y:=x} ${y:?x}",
    ] {
        assert!(!split(line).is_dynamic(), "{line}");
    }
}

#[test]
fn arithmetic_on_variables_is_dynamic() {
    // A variable's value is evaluated as an expression: its `a[$(…)]` subscripts run.
    for line in [
        "x='a[$(kubectl delete pod x)0]'; echo $((x))",
        "x='a[$(kubectl delete pod x)0]'; (( x ))",
        "echo $(( $x + 1 ))",
        "x='a[$(kubectl delete pod x)0]'; [[ $x -eq 0 ]]",
        "a=(); [[ -v 'a[$(kubectl delete pod x)0]' ]]",
    ] {
        assert!(
            split(line)
                .dynamic
                .iter()
                .any(|d| d.reason == Reason::Expansion),
            "{line}"
        );
    }
    // Numbers alone, in any base, do not.
    for line in [
        "echo $(( 16#ff + 0x1f + 2 ))",
        "(( 1 + 2 ))",
        "[[ 1 -eq 1 ]]",
        "[[ $# -eq 0 ]] && echo $(( $# + ${#x} ))",
        "[[ \"$?\" -ne 0 ]]",
    ] {
        assert!(!split(line).is_dynamic(), "{line}");
    }
}

#[test]
fn comments_and_case_patterns_inside_nests() {
    names("echo $(echo a # )\nkubectl get pods)");
    names("x=(a b # )\n); kubectl get pods");
    names("echo $(case x in x) kubectl get pods;; esac)");
    names("echo $( case x in x) echo \")\" ;; esac ); kubectl get pods");
    names("case \")\" in \")\") kubectl get pods;; esac");
    names("echo $[ $(kubectl get pods) + 1 ]");
    hides("echo a # $(kubectl delete pod x)");
}

#[test]
fn quotes_inside_substitutions() {
    names("echo \"$(echo \")\"; kubectl get pods)\"");
    names("echo ${x:-$(echo })}; kubectl get pods");
    names("echo \"${x:-$(echo \"}\")}\"; kubectl get pods");
    names("echo ${x:-\"}\"}; kubectl get pods");
    hides("echo '`'; echo \"kubectl delete pod x\"");
}

#[test]
fn too_much_nesting_is_reported_not_searched() {
    // Past the line's budget the rest is too deep, not silently dropped.
    let deep = format!("echo {}kubectl get pods", "$(echo ".repeat(200_000));
    assert!(split(&deep)
        .dynamic
        .iter()
        .any(|d| d.reason == Reason::TooDeep));
}
