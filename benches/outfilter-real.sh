#!/usr/bin/env bash
# Captures real output from the tools installed here (cargo, make, gcc,
# git, terraform, npm, pip) in a scratch folder, then prints the
# compression every shipped output filter achieves on its own inline tests
# and on those captures (the filter chosen as `hookdex exec` chooses it).
# A tool that is missing, or fails to run offline, is skipped with a note.
#
# Usage: benches/outfilter-real.sh
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=$(mktemp -d "${TMPDIR:-/tmp}/hookdex-real.XXXXXX")
trap 'rm -rf "$work"' EXIT
captures=$work/captures
mkdir -p "$captures"

# capture NAME COMMAND-LINE: runs it with stdout and stderr on one pipe.
capture() {
  local name=$1 line=$2
  local program=${line%% *}
  if ! command -v "$program" >/dev/null; then
    echo "skipped $name: $program is not installed" >&2
    return
  fi
  bash -c "$line" >"$captures/$name.out" 2>&1
  echo "$line" | sed 's/^cd [^&]* && //' >"$captures/$name.cmd"
}

cd "$work"
# cargo: a crate with a warning, built and tested.
mkdir -p crate/src
printf '[package]\nname = "demo"\nversion = "0.1.0"\nedition = "2021"\n' >crate/Cargo.toml
printf 'fn main() { let unused = 1; println!("hi"); }\n#[cfg(test)]\nmod t { #[test] fn ok() {} #[test] fn also() {} }\n' >crate/src/main.rs
capture cargo-build "cd crate && cargo build"
capture cargo-test "cd crate && cargo test"
# make: a recursive build of three folders, one with an error.
for d in a b c; do
  mkdir -p mk/$d
  printf 'int f_%s(void) { return 1; }\n' $d >mk/$d/$d.c
  printf 'all:\n\tgcc -c %s.c -o %s.o\n' $d $d >mk/$d/Makefile
done
printf 'int g(void) { return undeclared; }\n' >mk/c/bad.c
printf 'all:\n\tgcc -c c.c -o c.o\n\tgcc -c bad.c -o bad.o\n' >mk/c/Makefile
printf 'all:\n\t$(MAKE) -C a\n\t$(MAKE) -C b\n\t$(MAKE) -k -C c\n' >mk/Makefile
capture make "cd mk && make"
capture gcc "cd mk/c && gcc -Wall -c bad.c -o bad.o"
# git: a clone of a local repository with progress.
git init -q src-repo && (cd src-repo && for i in $(seq 1 50); do echo $i >f$i; done && git add . && git -c user.email=x@y -c user.name=x commit -qm one)
capture git-clone "git clone --progress src-repo clone"
# terraform: built-in resources only (no provider to download).
mkdir -p tf && printf 'resource "terraform_data" "web" { input = "a" }\nresource "terraform_data" "db" { input = "b" }\n' >tf/main.tf
capture terraform-init "cd tf && terraform init -input=false"
capture terraform-plan "cd tf && terraform plan -input=false -no-color"
# npm: a project with no dependencies; pip: a package already installed.
mkdir -p js && printf '{"name":"demo","version":"1.0.0"}\n' >js/package.json
capture npm-install "cd js && npm install --no-fund"
capture pip-install "pip3 install pip"
cd "$repo"
cargo run --release -q -p hookdex-outfilter --example compression -- rules/outfilters "$captures"
