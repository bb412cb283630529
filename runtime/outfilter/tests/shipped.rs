//! Guardrails over the shipped output-filter set, `rules/outfilters/*.toml`
//! (SPEC §7, seed 003): every file parses, every filter has inline tests and
//! they pass, every test input routes to its own filter, every success
//! collapse is guarded and has a negative test, no line list has a catch-all,
//! and a corpus of diagnostic lines survives every filter that claims the
//! output they sit in.
//!
//! # Routing convention
//!
//! An inline test has only `name`, `input` and `expected`, so the command an
//! input came from is not in the file. It is here instead: [`ROUTES`] gives
//! every shipped filter one or more example commands, and a filter without an
//! entry (or an entry without a filter) fails the test. Routing is checked
//! two ways:
//! - by command: for every example command and every test input of a filter,
//!   `select` over the whole shipped set, with that command, picks that
//!   filter (so no higher-priority filter's shape shadows it on its own
//!   output), and the command alone is claimed by the filter;
//! - by shape (output that arrives without its command, e.g. a pasted log):
//!   a filter with `match_shape` has at least one test input its shape claims
//!   with no command, and every test input its shape claims routes to it with
//!   no command.
//!
//! The filters' line lists and `match_output` rules are not exposed by the
//! crate's API, so this file reads them from the TOML itself (`toml_edit`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use hookdex_outfilter::{apply, claims, parse, run_tests, select, Filter, TestCase, TestOutcome};
use regex::Regex;

/// Example commands per shipped filter (see the module doc).
const ROUTES: &[(&str, &[&str])] = &[
    (
        "apt-install",
        &[
            "apt-get install -y curl",
            "sudo apt install jq",
            "DEBIAN_FRONTEND=noninteractive apt-get -y install sl",
            "apt-get update && apt-get install -y build-essential",
            "dpkg -i sl_5.02-1+b1_amd64.deb",
        ],
    ),
    ("apt-update", &["apt-get update", "sudo apt update"]),
    (
        "cargo-build",
        &[
            "cargo build",
            "cargo build --release -p hookdex",
            "cargo check --all-targets",
            "cargo clippy --all-targets -- -D warnings",
        ],
    ),
    (
        "cargo-test",
        &[
            "cargo test",
            "cargo test -p hookdex-outfilter --test shipped",
            "cargo nextest run",
        ],
    ),
    (
        "docker-build",
        &[
            "docker build -t app .",
            "docker buildx build --progress=plain .",
            "docker compose build",
        ],
    ),
    (
        "docker-pull",
        &["docker pull nginx:1.27", "docker image pull redis"],
    ),
    ("eslint", &["eslint src", "npx eslint .", "npm run lint"]),
    (
        "gcc",
        &[
            "gcc -Wall -c main.c",
            "cc -o app main.c",
            "clang -c x.c",
            "g++ -std=c++17 a.cpp",
        ],
    ),
    (
        "git-transfer",
        &[
            "git clone https://github.com/x/y",
            "git pull",
            "git push origin HEAD",
            "git fetch --all",
        ],
    ),
    (
        "go-build",
        &["go build ./...", "go vet ./...", "go install ./cmd/app"],
    ),
    (
        "go-test",
        &["go test ./...", "go test -v -run TestX ./pkg/..."],
    ),
    (
        "dotnet-build",
        &[
            "dotnet build",
            "dotnet build -c Release src/App.csproj",
            "dotnet publish -o out",
        ],
    ),
    (
        "gradle",
        &[
            "gradle build",
            "./gradlew test",
            "./gradlew :app:assembleDebug",
        ],
    ),
    (
        "helm",
        &[
            "helm upgrade --install web ./chart",
            "helm install web bitnami/nginx",
            "helm repo update",
            "helm dependency update ./chart",
        ],
    ),
    ("jest", &["npx jest", "jest --ci", "yarn jest src"]),
    (
        "kubectl-apply",
        &["kubectl apply -f k8s/", "kubectl apply -k overlays/dev"],
    ),
    ("make", &["make", "make -j4 all", "make -C build test"]),
    (
        "maven",
        &[
            "mvn compile",
            "mvn -B package",
            "./mvnw clean install",
            "mvn test",
        ],
    ),
    (
        "npm-install",
        &[
            "npm install",
            "npm i left-pad",
            "npm ci",
            "npm install --save-dev typescript",
        ],
    ),
    (
        "pip-install",
        &[
            "pip install requests",
            "python3 -m pip install -r requirements.txt",
            "pip3 install -e .",
        ],
    ),
    (
        "pnpm-install",
        &[
            "pnpm install",
            "pnpm add left-pad",
            "pnpm i --frozen-lockfile",
        ],
    ),
    (
        "pytest",
        &[
            "pytest",
            "python -m pytest -q tests/",
            "python3 -m pytest -x",
            "uv run pytest",
        ],
    ),
    (
        "terraform-init",
        &["terraform init", "terraform init -upgrade", "tofu init"],
    ),
    (
        "terraform-plan",
        &[
            "terraform plan",
            "terraform plan -out tfplan",
            "terraform apply -auto-approve",
            "tofu plan",
        ],
    ),
    ("tsc", &["tsc --noEmit", "npx tsc -p .", "tsc -w"]),
    (
        "uv-sync",
        &["uv sync", "uv pip install requests", "uv add httpx"],
    ),
    ("vitest", &["vitest run", "npx vitest --run"]),
    (
        "yarn-install",
        &["yarn install", "yarn", "yarn add left-pad"],
    ),
];

/// Commands no shipped filter may claim by its command.
const FOREIGN_COMMANDS: &[&str] = &[
    "ls -la",
    "cat Makefile",
    "git diff",
    "git log --oneline",
    "git status",
    "cargo fmt --all",
    "python3 script.py",
    "echo make",
    "npm run build",
    "grep -rn error src/",
    "docker ps",
    "kubectl get pods",
    "terraform fmt",
    "pip list",
    "go env",
    "which gcc",
];

/// Outputs no shipped filter may claim by shape (with no command).
const FOREIGN_OUTPUTS: &[&str] = &[
    // Cython also prints "Compiling": cargo's shape must not take it.
    "Compiling src/fast.pyx because it changed.\n[1/1] Cythonizing src/fast.pyx\nrunning build_ext\nbuilding 'fast' extension\n",
    // A markdown file read by the agent.
    "# Project\n\nSome text about make and cargo.\n\n## Usage\n\nRun `make`.\n",
    // A Python script's traceback.
    "Traceback (most recent call last):\n  File \"/tmp/x.py\", line 3, in <module>\n    main()\nValueError: boom\n",
    // ls -l.
    "total 8\n-rw-r--r-- 1 root root 120 Dec  1 21:00 Makefile\ndrwxr-xr-x 2 root root 4096 Dec  1 21:00 src\n",
    // JSON.
    "{\n  \"name\": \"demo\",\n  \"version\": \"1.0.0\",\n  \"scripts\": {\"test\": \"jest\"}\n}\n",
    // git log.
    "commit 5b074f8e\nAuthor: a <a@b>\nDate:   Mon Dec 1 21:00:00 2026\n\n    Merge branch 'outfilter'\n",
    // git diff.
    "diff --git a/Makefile b/Makefile\nindex ab12cd..34ef56 100644\n--- a/Makefile\n+++ b/Makefile\n@@ -1,3 +1,3 @@\n-all: app\n+all: app test\n",
];

/// Varied lines: a line-list pattern (strip, keep, shape) that matches every
/// one of them is a catch-all.
const VARIED_LINES: &[&str] = &[
    "error: could not compile `x`",
    "warning: unused variable",
    "FAILED tests/test_x.py::test_y - assert 1 == 2",
    "src/main.rs:10:5",
    "   Compiling serde v1.0.200",
    "Hello, world!",
    "12345",
    "    at Object.<anonymous> (index.js:3:9)",
    "{\"key\": \"value\"}",
    "make: *** [Makefile:9: all] Error 1",
    "Traceback (most recent call last):",
    "# heading",
    "  - item",
    "ok",
    "Step 3/7 : RUN apt-get update",
    "☃ unicode snowman",
    "\tindented with a tab",
    "C:\\Users\\x\\file.txt",
    "==> done <==",
    "https://example.com/path?q=1",
];

/// Varied commands: a `match_command` that claims them all is a catch-all.
const VARIED_COMMANDS: &[&str] = &[
    "ls",
    "cat x",
    "make",
    "cargo build",
    "pytest",
    "git push",
    "npm install",
    "echo hi",
    "rm -rf x",
    "python3 -c 1",
];

/// Diagnostic lines per family, each embedded alone in the family's typical
/// (success-looking) output at the `@@` line; every filter that claims the
/// result must keep the line verbatim. `filter` is the filter the output is
/// meant for (it must route there, so the corpus is not vacuous).
struct Family {
    filter: &'static str,
    command: &'static str,
    typical: &'static str,
    lines: &'static [&'static str],
}

const MUST_SURVIVE: &[Family] = &[
    Family {
        filter: "apt-install",
        command: "apt-get install -y sl",
        typical: "Reading package lists...\nBuilding dependency tree...\nReading state information...\nGet:1 http://deb.debian.org/debian bookworm/main amd64 sl amd64 5.02-1+b1 [13.2 kB]\nFetched 13.2 kB in 0s (99.2 kB/s)\ndebconf: delaying package configuration, since apt-utils is not installed\n@@\nSelecting previously unselected package sl.\n(Reading database ... 4511 files and directories currently installed.)\nPreparing to unpack .../sl_5.02-1+b1_amd64.deb ...\nUnpacking sl (5.02-1+b1) ...\nSetting up sl (5.02-1+b1) ...\nProcessing triggers for man-db (2.11.2-2) ...\n",
        lines: &[
            "debconf: unable to initialize frontend: Dialog",
            "debconf: falling back to frontend: Readline",
            "debconf: unable to initialize frontend: Readline",
            "W: Download is performed unsandboxed as root as file '/tmp/sl.deb' couldn't be accessed by user '_apt'. - pkgAcquire::Run (13: Permission denied)",
            "E: Unable to locate package nosuchpkg",
            "E: Sub-process /usr/bin/dpkg returned an error code (1)",
            "dpkg: error processing package sl (--configure):",
            "Errors were encountered while processing:",
            "dpkg: sl: dependency problems, but configuring anyway as you requested:",
            "Err:2 http://deb.debian.org/debian bookworm/main amd64 sl amd64 5.02-1+b1",
        ],
    },
    Family {
        filter: "apt-update",
        command: "apt-get update",
        typical: "Hit:1 http://deb.debian.org/debian bookworm InRelease\nGet:2 http://deb.debian.org/debian bookworm-updates InRelease [55.4 kB]\n@@\nFetched 55.4 kB in 1s (60 kB/s)\nReading package lists...\n",
        lines: &[
            "Err:3 http://ppa.example.org/ubuntu jammy InRelease",
            "W: Failed to fetch http://ppa.example.org/ubuntu/dists/jammy/InRelease  Temporary failure resolving 'ppa.example.org'",
            "E: The repository 'http://ppa.example.org/ubuntu jammy Release' does not have a Release file.",
        ],
    },
    Family {
        filter: "pip-install",
        command: "pip install requests",
        typical: "Collecting requests\n  Downloading requests-2.34.2-py3-none-any.whl (73 kB)\n     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 73.1/73.1 kB 82.4 MB/s eta 0:00:00\nRequirement already satisfied: idna<4,>=2.5 in ./venv/lib/python3.11/site-packages (from requests) (3.20)\n@@\nInstalling collected packages: requests\nSuccessfully installed requests-2.34.2\n",
        lines: &[
            "ERROR: Could not find a version that satisfies the requirement nosuchpkg (from versions: none)",
            "ERROR: pip's dependency resolver does not currently take into account all the packages that are installed.",
            "WARNING: Running pip as the 'root' user can result in broken permissions and conflicting behaviour with the system package manager.",
            "error: externally-managed-environment",
            "  error: subprocess-exited-with-error",
            "DEPRECATION: Building 'x' using the legacy setup.py bdist_wheel mechanism, which will be removed in a future version.",
        ],
    },
    Family {
        filter: "uv-sync",
        command: "uv sync",
        typical: "Using CPython 3.12.3 interpreter at: /usr/bin/python3.12\nResolved 12 packages in 1.23s\n@@\nPrepared 1 package in 45ms\nAudited 12 packages in 0.20ms\n",
        lines: &[
            "warning: `VIRTUAL_ENV=/tmp/venv` does not match the project environment path `.venv` and will be ignored",
            "error: Failed to prepare distributions",
            "  × No solution found when resolving dependencies:",
        ],
    },
    Family {
        filter: "npm-install",
        command: "npm install",
        typical: "\nup to date, audited 48 packages in 1s\n\n5 packages are looking for funding\n  run `npm fund` for details\n@@\nfound 0 vulnerabilities\n",
        lines: &[
            "npm warn deprecated request@2.88.2: request has been deprecated, see https://github.com/request/request/issues/3142",
            "npm error code E404",
            "npm ERR! code ERESOLVE",
            "npm WARN EBADENGINE Unsupported engine {",
            "3 high severity vulnerabilities",
        ],
    },
    Family {
        filter: "pnpm-install",
        command: "pnpm install",
        typical: "Lockfile is up to date, resolution step is skipped\nProgress: resolved 1, reused 0, downloaded 0, added 0\n@@\nAlready up to date\nDone in 512ms\n",
        lines: &[
            " WARN  deprecated left-pad@1.3.0: use String.prototype.padStart()",
            " ERR_PNPM_OUTDATED_LOCKFILE  Cannot install with \"frozen-lockfile\" because pnpm-lock.yaml is not up to date with package.json",
        ],
    },
    Family {
        filter: "yarn-install",
        command: "yarn install",
        typical: "yarn install v1.22.19\n[1/4] Resolving packages...\n@@\nsuccess Already up-to-date.\nDone in 0.21s.\n",
        lines: &[
            "warning left-pad@1.3.0: use String.prototype.padStart()",
            "warning \" > react-dom@18.2.0\" has unmet peer dependency \"react@^18.2.0\".",
            "error An unexpected error occurred: \"https://registry.yarnpkg.com/nosuch: Not found\".",
        ],
    },
    Family {
        filter: "cargo-build",
        command: "cargo build",
        typical: "    Updating crates.io index\n   Compiling tinycrate v0.1.0 (/tmp/cap/tinycrate)\n@@\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 0.14s\n",
        lines: &[
            "error[E0308]: mismatched types",
            "  --> src/lib.rs:10:23",
            " --> src/lib.rs:2:27",
            "warning: unused variable: `x`",
            "error: could not compile `tinycrate` (lib) due to 1 previous error",
            "warning: `tinycrate` (lib) generated 1 warning (run `cargo fix --lib -p tinycrate` to apply 1 suggestion)",
            "error: linker `cc` not found",
        ],
    },
    Family {
        filter: "cargo-test",
        command: "cargo test",
        typical: "   Compiling tinycrate v0.1.0 (/tmp/cap/tinycrate)\n    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.29s\n     Running unittests src/lib.rs (target/debug/deps/tinycrate-d96dbbd9744765d8)\n\nrunning 2 tests\ntest tests::adds ... ok\n@@\ntest tests::adds_three ... ok\n\ntest result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n",
        lines: &[
            "test tests::adds_wrong ... FAILED",
            "thread 'tests::adds_wrong' (21132) panicked at src/lib.rs:7:31:",
            "---- tests::adds_wrong stdout ----",
            "test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.11s",
            "error: test failed, to rerun pass `--lib`",
            "warning: unused variable: `x`",
            "test tests::slow ... ignored",
        ],
    },
    Family {
        filter: "pytest",
        command: "python -m pytest",
        typical: "============================= test session starts ==============================\nplatform linux -- Python 3.11.7, pytest-9.2.0, pluggy-1.7.0\nrootdir: /tmp/cap/pyproj\ncollected 3 items\n\ntests/test_b.py ...                                                      [100%]\n@@\n============================== 3 passed in 0.01s ===============================\n",
        lines: &[
            "FAILED tests/test_x.py::test_y - assert 1 == 2",
            "ERROR tests/test_x.py::test_z - ValueError: boom",
            "tests/test_a.py:6: AssertionError",
            "E       assert 1 == 2",
            "Traceback (most recent call last):",
            "  /tmp/cap/pyproj/tests/test_a.py:8: DeprecationWarning: deprecated thing",
            "tests/test_a.py::test_fail FAILED                                        [ 50%]",
            "collected 8 items / 1 error",
        ],
    },
    Family {
        filter: "go-test",
        command: "go test ./...",
        typical: "=== RUN   TestAdd\n--- PASS: TestAdd (0.00s)\n@@\nPASS\nok  \texample.com/calc\t0.003s\n",
        lines: &[
            "--- FAIL: TestX (0.00s)",
            "    calc_test.go:12: got 4, want 5",
            "FAIL\texample.com/calc\t0.004s",
            "panic: runtime error: index out of range [3] with length 3 [recovered]",
            "# example.com/calc [example.com/calc.test]",
            "./calc_test.go:9:2: undefined: Sub",
        ],
    },
    Family {
        filter: "go-build",
        command: "go build ./...",
        typical: "go: downloading github.com/pkg/errors v0.9.1\n@@\n",
        lines: &[
            "# example.com/app",
            "./main.go:5:2: \"os\" imported and not used",
            "main.go:9:13: undefined: Foo",
            "go: github.com/x/y@v1.2.3: reading github.com/x/y/go.mod at revision v1.2.3: unknown revision v1.2.3",
        ],
    },
    Family {
        filter: "jest",
        command: "npx jest",
        typical: "PASS src/sum.test.js\n  ✓ adds 1 + 2 to equal 3 (2 ms)\n@@\n\nTest Suites: 1 passed, 1 total\nTests:       1 passed, 1 total\nSnapshots:   0 total\nTime:        0.512 s\nRan all test suites.\n",
        lines: &[
            "FAIL src/mul.test.js",
            "  ● multiplies › two numbers",
            "      at Object.toBe (src/mul.test.js:3:17)",
            "    Expected: 7",
            "  console.warn",
        ],
    },
    Family {
        filter: "vitest",
        command: "vitest run",
        typical: " RUN  v1.6.0 /home/u/proj\n\n ✓ src/sum.test.ts (2 tests) 3ms\n@@\n\n Test Files  1 passed (1)\n      Tests  2 passed (2)\n   Start at  12:00:00\n   Duration  312ms (transform 20ms, setup 0ms, collect 15ms, tests 8ms, environment 0ms, prepare 70ms)\n",
        lines: &[
            " FAIL  src/mul.test.ts > multiplies two numbers",
            "AssertionError: expected 6 to be 7 // Object.is equality",
            " ❯ src/mul.test.ts:3:17",
            "   × multiplies two numbers",
        ],
    },
    Family {
        filter: "make",
        command: "make",
        typical: "make -C sub\nmake[1]: Entering directory '/tmp/cap/cproj/sub'\ngcc -Wall -c helper.c -o helper.o\n@@\nmake[1]: Leaving directory '/tmp/cap/cproj/sub'\n",
        lines: &[
            "main.c:4:9: warning: unused variable ‘unused’ [-Wunused-variable]",
            "main.c: In function ‘main’:",
            "make: *** [Makefile:9: bad] Error 1",
            "make[1]: *** No rule to make target 'x.o', needed by 'app'.  Stop.",
            "Makefile:3: *** missing separator.  Stop.",
            "/usr/bin/ld: main.o: in function `main':",
            "collect2: error: ld returned 1 exit status",
        ],
    },
    Family {
        filter: "gcc",
        command: "gcc -Wall -c bad.c",
        typical: "bad.c: In function ‘main’:\n@@\n    5 |     return y;\n      |            ^\n",
        lines: &[
            "bad.c:5:12: error: ‘y’ undeclared (first use in this function)",
            "bad.c:3:13: warning: initialization of ‘int’ from ‘char *’ makes integer from pointer without a cast [-Wint-conversion]",
            "bad.c:5:12: note: each undeclared identifier is reported only once for each function it appears in",
            "In file included from main.c:2:",
            "x.c:1:10: fatal error: nosuch.h: No such file or directory",
            "1 warning and 1 error generated.",
        ],
    },
    Family {
        filter: "tsc",
        command: "tsc --noEmit",
        typical: "@@\n\nFound 1 error.\n",
        lines: &[
            "src/index.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
            "src/index.ts:3:7 - error TS2322: Type 'string' is not assignable to type 'number'.",
            "error TS5058: The specified path does not exist: 'tsconfig.json'.",
        ],
    },
    Family {
        filter: "eslint",
        command: "npx eslint .",
        typical: "\n/home/u/proj/src/a.js\n@@\n\n✖ 1 problem (1 error, 0 warnings)\n",
        lines: &[
            "  1:7   error    'x' is assigned a value but never used  no-unused-vars",
            "  3:1   warning  Unexpected console statement             no-console",
            "Oops! Something went wrong! :(",
        ],
    },
    Family {
        filter: "docker-build",
        command: "docker build -t app .",
        typical: "#0 building with \"default\" instance using docker driver\n\n#1 [internal] load build definition from Dockerfile\n#1 transferring dockerfile: 2B done\n#1 DONE 0.0s\n@@\n#8 exporting to image\n#8 writing image sha256:4f1d9e0c7f8e done\n#8 DONE 0.1s\n",
        lines: &[
            "#6 0.513 E: Unable to locate package nosuchpkg",
            "ERROR: failed to solve: process \"/bin/sh -c apt-get install -y nosuchpkg\" did not complete successfully: exit code: 100",
            "#6 ERROR: process \"/bin/sh -c apt-get install -y nosuchpkg\" did not complete successfully: exit code: 100",
            " 1 warning found (use docker --debug to expand):",
            " - UndefinedVar: Usage of undefined variable '$FOO' (line 3)",
            "#6 0.402 debconf: unable to initialize frontend: Dialog",
        ],
    },
    Family {
        filter: "docker-pull",
        command: "docker pull nginx",
        typical: "Using default tag: latest\nlatest: Pulling from library/nginx\na2318d6c47ec: Pull complete\n@@\nDigest: sha256:0a399eb16751829e1af26fea27b20c3ec28d7ab1fb72182879dcae1cca21206a\nStatus: Downloaded newer image for nginx:latest\ndocker.io/library/nginx:latest\n",
        lines: &[
            "Error response from daemon: manifest for nginx:nosuch not found: manifest unknown: manifest unknown",
            "WARNING: The requested image's platform (linux/arm64) does not match the detected host platform (linux/amd64/v4) and no specific platform was requested",
        ],
    },
    Family {
        filter: "terraform-plan",
        command: "terraform plan",
        typical: "terraform_data.web: Refreshing state... [id=6c1eb1c4-11bf-3f4e-f287-9365dbe29713]\n\n@@\nNo changes. Your infrastructure matches the configuration.\n\nTerraform has compared your real infrastructure against your configuration\nand found no differences, so no changes are needed.\n",
        lines: &[
            "│ Warning: Unable to open CLI configuration file",
            "│ Error: Unsupported argument",
            "Error: Unclosed configuration block",
            "  on main.tf line 11, in resource \"bogus\":",
            "  # aws_instance.web will be destroyed",
            "Plan: 0 to add, 1 to change, 0 to destroy.",
        ],
    },
    Family {
        filter: "terraform-init",
        command: "terraform init",
        typical: "Initializing the backend...\nInitializing provider plugins...\n- terraform.io/builtin/terraform is built in to Terraform\n@@\n\nTerraform has been successfully initialized!\n",
        lines: &[
            "│ Warning: Unable to open CLI configuration file",
            "│ Error: Failed to query available provider packages",
            "Error: Failed to install provider",
            "- Installed hashicorp/aws v5.31.0 (signed by HashiCorp)",
        ],
    },
    Family {
        filter: "helm",
        command: "helm repo update",
        typical: "Hang tight while we grab the latest from your chart repositories...\n...Successfully got an update from the \"bitnami\" chart repository\n@@\nUpdate Complete. ⎈Happy Helming!⎈\n",
        lines: &[
            "...Unable to get an update from the \"stable\" chart repository (https://charts.example.com):",
            "WARNING: Kubernetes configuration file is group-readable. This is insecure. Location: /root/.kube/config",
            "Error: INSTALLATION FAILED: cannot re-use a name that is still in use",
            "W1201 21:33:16.025196   22433 warnings.go:70] unknown field \"spec.foo\"",
        ],
    },
    Family {
        filter: "kubectl-apply",
        command: "kubectl apply -f k8s/",
        typical: "configmap/demo unchanged\nservice/web unchanged\n@@\ndeployment.apps/web unchanged\n",
        lines: &[
            "Warning: resource configmaps/demo is missing the kubectl.kubernetes.io/last-applied-configuration annotation which is required by kubectl apply.",
            "error: error validating \"k/dep.yaml\": error validating data: failed to download openapi",
            "Error from server (Forbidden): error when creating \"k8s/ns.yaml\": namespaces is forbidden",
            "E1201 21:33:16.025196   22433 memcache.go:265] \"Unhandled Error\" err=\"couldn't get current server API group list\"",
        ],
    },
    Family {
        filter: "git-transfer",
        command: "git push origin HEAD",
        typical: "Enumerating objects: 4, done.\nCounting objects: 100% (4/4), done.\nDelta compression using up to 2 threads\n@@\nWriting objects: 100% (3/3), 242 bytes | 242.00 KiB/s, done.\nTotal 3 (delta 1), reused 0 (delta 0), pack-reused 0 (from 0)\nTo file:///tmp/cap/gitbare\n   a69338e..276fe2a  HEAD -> master\n",
        lines: &[
            " ! [rejected]        master -> master (non-fast-forward)",
            "error: failed to push some refs to 'file:///tmp/cap/gitbare'",
            "hint: Updates were rejected because the tip of your current branch is behind",
            "CONFLICT (content): Merge conflict in new.txt",
            "fatal: Authentication failed for 'https://github.com/x/y.git/'",
            "remote: error: GH013: Repository rule violations found for refs/heads/main.",
            "warning: redirecting to https://github.com/x/y.git/",
            "Receiving objects:  45% (12/32)\rfatal: early EOF",
        ],
    },
    Family {
        filter: "maven",
        command: "mvn -B package",
        typical: "[INFO] Scanning for projects...\n[INFO] \n[INFO] -----------------------------< demo:demo >------------------------------\n[INFO] Building demo 1.0\n[INFO] Downloading from central: https://repo.maven.apache.org/maven2/org/x/x-1.0.pom\n@@\n[INFO] ------------------------------------------------------------------------\n[INFO] BUILD SUCCESS\n[INFO] ------------------------------------------------------------------------\n",
        lines: &[
            "[WARNING] Using platform encoding (UTF-8 actually) to copy filtered resources, i.e. build is platform dependent!",
            "[ERROR] /tmp/demo/src/main/java/demo/App.java:[3,5] cannot find symbol",
            "[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0",
            "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile (default-compile) on project demo: Compilation failure",
        ],
    },
    Family {
        filter: "dotnet-build",
        command: "dotnet build",
        typical: "MSBuild version 17.8.3+195e7f5a3 for .NET\n  Determining projects to restore...\n  All projects are up-to-date for restore.\n@@\n  MyApp -> /home/u/MyApp/bin/Debug/net8.0/MyApp.dll\n\nBuild succeeded.\n    0 Warning(s)\n    0 Error(s)\n\nTime Elapsed 00:00:02.34\n",
        lines: &[
            "/home/u/MyApp/Program.cs(10,5): error CS1002: ; expected [/home/u/MyApp/MyApp.csproj]",
            "/home/u/MyApp/Program.cs(3,13): warning CS0168: The variable 'x' is declared but never used [/home/u/MyApp/MyApp.csproj]",
            "/home/u/MyApp/MyApp.csproj : warning NU1603: MyApp depends on Serilog (>= 3.0.0) but Serilog 3.0.0 was not found.",
            "/home/u/MyApp/MyApp.csproj : error NU1101: Unable to find package Nosuch. No packages exist with this id in source(s): nuget.org",
            "Build FAILED.",
            "MSBUILD : error MSB1009: Project file does not exist.",
        ],
    },
    Family {
        filter: "gradle",
        command: "./gradlew build",
        typical: "Starting a Gradle Daemon (subsequent builds will be faster)\n> Task :compileJava UP-TO-DATE\n> Task :processResources NO-SOURCE\n@@\n\nBUILD SUCCESSFUL in 3s\n4 actionable tasks: 1 executed, 3 up-to-date\n",
        lines: &[
            "w: file:///home/u/app/src/main/kotlin/App.kt:3:9 Variable 'x' is never used",
            "e: file:///home/u/app/src/main/kotlin/App.kt:5:1 Unresolved reference: foo",
            "/home/u/app/src/main/java/App.java:3: warning: [deprecation] Date(int,int,int) in Date has been deprecated",
            "> Task :test FAILED",
            "AppTest > adds() FAILED",
            "Deprecated Gradle features were used in this build, making it incompatible with Gradle 9.0.",
        ],
    },
];

/// A generic "this line carries a diagnostic" test, for the requirement that
/// every filter has a test where something important survives.
const DIAGNOSTIC: &str = r"(?i)\b(error|errors|warning|warn|fail|failed|failure|panic|panicked|exception|traceback|denied|conflict|rejected|fatal|unable|problems)\b|\berror\[E\d{4}\]|^\S+:\d+(:\d+)?|^\s*E\s{3,}|\bTS\d{4}\b|^[WE]: ";

/// One filter's raw keys, read from the TOML (the API exposes no line lists).
#[derive(Debug, Default)]
struct Raw {
    file: String,
    strip: Vec<String>,
    keep: Vec<String>,
    shapes: Vec<String>,
    command: Option<String>,
    collapses: Vec<Collapse>,
    on_empty: Option<String>,
}

#[derive(Debug)]
struct Collapse {
    pattern: String,
    message: String,
    unless: Option<String>,
}

struct Shipped {
    filters: Vec<Filter>,
    tests: Vec<TestCase>,
    raw: BTreeMap<String, Raw>,
    files: Vec<PathBuf>,
    errors: Vec<String>,
    failures: Vec<String>,
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../rules/outfilters")
}

fn strings(item: Option<&toml_edit::Item>) -> Vec<String> {
    item.and_then(toml_edit::Item::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn raw_filters(file: &str, src: &str) -> Vec<(String, Raw)> {
    let doc = toml_edit::Document::parse(src).expect("TOML");
    let Some(filters) = doc
        .as_table()
        .get("filters")
        .and_then(|i| i.as_table_like())
    else {
        return Vec::new();
    };
    filters
        .iter()
        .map(|(name, item)| {
            let t = item.as_table_like().expect("filter table");
            let mut raw = Raw {
                file: file.to_string(),
                strip: strings(t.get("strip_lines_matching")),
                keep: strings(t.get("keep_lines_matching")),
                shapes: strings(t.get("match_shape")),
                command: t
                    .get("match_command")
                    .and_then(|i| i.as_str())
                    .map(str::to_string),
                on_empty: t
                    .get("on_empty")
                    .and_then(|i| i.as_str())
                    .map(str::to_string),
                ..Raw::default()
            };
            let field = |r: &dyn toml_edit::TableLike, k: &str| {
                r.get(k).and_then(|i| i.as_str()).map(str::to_string)
            };
            let mut push = |r: &dyn toml_edit::TableLike| {
                raw.collapses.push(Collapse {
                    pattern: field(r, "pattern").expect("pattern"),
                    message: field(r, "message").expect("message"),
                    unless: field(r, "unless"),
                })
            };
            if let Some(item) = t.get("match_output") {
                if let Some(aot) = item.as_array_of_tables() {
                    aot.iter().for_each(|r| push(r));
                } else if let Some(array) = item.as_array() {
                    array
                        .iter()
                        .filter_map(|v| v.as_inline_table())
                        .for_each(|r| push(r));
                }
            }
            (name.to_string(), raw)
        })
        .collect()
}

/// The shipped set, read once for all tests (compiling every filter's
/// automata is the expensive part).
fn load() -> &'static Shipped {
    static SHIPPED: std::sync::OnceLock<Shipped> = std::sync::OnceLock::new();
    SHIPPED.get_or_init(read_shipped)
}

fn read_shipped() -> Shipped {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir())
        .expect("rules/outfilters")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    let mut shipped = Shipped {
        filters: Vec::new(),
        tests: Vec::new(),
        raw: BTreeMap::new(),
        files: files.clone(),
        errors: Vec::new(),
        failures: Vec::new(),
    };
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let src = std::fs::read_to_string(path).unwrap();
        let parsed = parse(&src);
        for e in &parsed.errors {
            shipped.errors.push(format!("{name}: {e}"));
        }
        for result in run_tests(&parsed.file) {
            match result.outcome {
                TestOutcome::Passed => {}
                TestOutcome::Failed { diff, actual, .. } => shipped.failures.push(format!(
                    "{name}:{} {} / {}:\n{diff}--- actual:\n{actual}\n",
                    result.line, result.filter, result.name
                )),
                TestOutcome::NoSuchFilter => shipped.failures.push(format!(
                    "{name}: {} / {}: no such filter",
                    result.filter, result.name
                )),
            }
        }
        for (filter, raw) in raw_filters(&name, &src) {
            let previous = shipped.raw.insert(filter.clone(), raw);
            assert!(previous.is_none(), "filter {filter} is defined twice");
        }
        shipped.filters.extend(parsed.file.filters);
        shipped.tests.extend(parsed.file.tests);
    }
    shipped
}

fn filter<'a>(shipped: &'a Shipped, name: &str) -> &'a Filter {
    shipped
        .filters
        .iter()
        .find(|f| f.name() == name)
        .unwrap_or_else(|| panic!("no shipped filter {name}"))
}

fn tests_of<'a>(shipped: &'a Shipped, name: &'a str) -> impl Iterator<Item = &'a TestCase> {
    shipped.tests.iter().filter(move |t| t.filter == name)
}

#[test]
fn every_file_parses_and_every_inline_test_passes() {
    let shipped = load();
    assert!(
        shipped.errors.is_empty(),
        "parse errors:\n{}",
        shipped.errors.join("\n")
    );
    assert!(
        shipped.failures.is_empty(),
        "{} inline tests fail:\n{}",
        shipped.failures.len(),
        shipped.failures.join("\n")
    );
    for path in &shipped.files {
        let name = path.file_name().unwrap().to_string_lossy();
        assert!(
            name.ends_with(".outfilter.toml"),
            "{name}: one family per <family>.outfilter.toml"
        );
    }
    assert!(
        shipped.filters.len() >= 25,
        "{} filters shipped, want >= 25",
        shipped.filters.len()
    );
    assert_eq!(shipped.filters.len(), shipped.raw.len());
    for f in &shipped.filters {
        let n = tests_of(shipped, f.name()).count();
        assert!(n >= 2, "{}: {n} inline tests, want >= 2", f.name());
        assert!(
            f.description().is_some_and(|d| !d.is_empty()),
            "{}: no description",
            f.name()
        );
    }
    println!(
        "{} files, {} filters, {} inline tests pass",
        shipped.files.len(),
        shipped.filters.len(),
        shipped.tests.len()
    );
}

#[test]
fn every_filter_has_a_strip_test_and_a_test_where_a_diagnostic_survives() {
    let shipped = load();
    let diagnostic = Regex::new(DIAGNOSTIC).unwrap();
    for f in &shipped.filters {
        let lossy = tests_of(shipped, f.name()).any(|t| apply(f, &t.input).is_lossy());
        assert!(
            lossy,
            "{}: no inline test exercises the strip/collapse path",
            f.name()
        );
        let survives = tests_of(shipped, f.name()).any(|t| {
            let input: BTreeSet<&str> = t.input.lines().collect();
            t.expected
                .lines()
                .any(|l| diagnostic.is_match(l) && input.contains(l))
        });
        assert!(
            survives,
            "{}: no inline test where a diagnostic line of the input survives into expected",
            f.name()
        );
    }
}

#[test]
fn every_test_input_routes_to_its_filter() {
    let shipped = load();
    let routes: BTreeMap<&str, &[&str]> = ROUTES.iter().copied().collect();
    let names: BTreeSet<&str> = shipped.filters.iter().map(Filter::name).collect();
    let listed: BTreeSet<&str> = routes.keys().copied().collect();
    assert_eq!(
        names, listed,
        "ROUTES must list exactly the shipped filters"
    );
    let mut problems = Vec::new();
    for f in &shipped.filters {
        let commands = routes[f.name()];
        assert!(
            f.match_command().is_some(),
            "{}: no match_command",
            f.name()
        );
        for command in commands {
            if !claims(f, Some(command), "") {
                problems.push(format!(
                    "{}: its match_command does not claim `{command}`",
                    f.name()
                ));
            }
            for t in tests_of(shipped, f.name()) {
                let chosen = select(&shipped.filters, Some(command), &t.input).map(Filter::name);
                if chosen != Some(f.name()) {
                    problems.push(format!(
                        "{} / {}: with `$ {command}` routes to {chosen:?}",
                        f.name(),
                        t.name
                    ));
                }
            }
        }
        if !f.match_shape().is_empty() {
            let mut by_shape = 0;
            for t in tests_of(shipped, f.name()) {
                if claims(f, None, &t.input) {
                    by_shape += 1;
                    let chosen = select(&shipped.filters, None, &t.input).map(Filter::name);
                    if chosen != Some(f.name()) {
                        problems.push(format!(
                            "{} / {}: with no command routes to {chosen:?}",
                            f.name(),
                            t.name
                        ));
                    }
                }
            }
            if by_shape == 0 {
                problems.push(format!(
                    "{}: no test input is claimed by its match_shape",
                    f.name()
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn selectors_do_not_claim_foreign_commands_or_output() {
    let shipped = load();
    let mut problems = Vec::new();
    for f in &shipped.filters {
        for command in FOREIGN_COMMANDS {
            if claims(f, Some(command), "") {
                problems.push(format!("{} claims the command `{command}`", f.name()));
            }
        }
        for output in FOREIGN_OUTPUTS {
            if claims(f, None, output) {
                problems.push(format!("{} claims foreign output {output:?}", f.name()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn success_collapses_carry_unless_and_a_negative_test() {
    let shipped = load();
    let mut collapses = 0;
    for (name, raw) in &shipped.raw {
        for c in &raw.collapses {
            collapses += 1;
            let unless = c
                .unless
                .as_deref()
                .unwrap_or_else(|| panic!("{name}: collapse to {:?} has no `unless`", c.message));
            // match_output runs over the whole text without (?m): a `^`
            // would anchor at the start of the output only.
            for (what, p) in [("pattern", c.pattern.as_str()), ("unless", unless)] {
                assert!(
                    p.starts_with("(?m)"),
                    "{name}: match_output {what} {p:?} must start with (?m)"
                );
            }
            let pattern = Regex::new(&c.pattern).unwrap();
            let unless = Regex::new(unless).unwrap();
            let tests: Vec<&TestCase> = tests_of(shipped, name).collect();
            let fires = tests
                .iter()
                .any(|t| pattern.is_match(&t.input) && t.expected.trim_end() == c.message);
            assert!(
                fires,
                "{name}: no inline test where the collapse to {:?} fires",
                c.message
            );
            // The negative test: the success marker is there, the guard
            // vetoes, and the output still holds the line the guard saw.
            let negative = tests.iter().any(|t| {
                pattern.is_match(&t.input)
                    && unless.is_match(&t.input)
                    && t.expected.trim_end() != c.message
                    && unless.is_match(&t.expected)
            });
            assert!(
                negative,
                "{name}: no negative test for the collapse to {:?} (success marker + a line its `unless` matches, which survives)",
                c.message
            );
        }
    }
    assert!(
        collapses > 0,
        "the shipped set has no match_output collapse at all?"
    );
}

/// Whether a line-list pattern matches every one of [`VARIED_LINES`].
fn is_catch_all(pattern: &str) -> bool {
    let re = Regex::new(pattern).unwrap();
    VARIED_LINES.iter().all(|l| re.is_match(l))
}

#[test]
fn the_catch_all_detector_flags_known_catch_alls() {
    for p in [
        ".*",
        "^",
        ".+",
        "^.*$",
        r"\S",
        "",
        "(?s).",
        r"^\s*\S*",
        "$",
        "(?i)[a-z0-9]|.",
    ] {
        assert!(is_catch_all(p), "{p:?} should be flagged");
    }
    for p in [r"^\s*$", r"^make\[\d+\]:", r"^(Hit|Ign):\d+ \S+ "] {
        assert!(!is_catch_all(p), "{p:?} should not be flagged");
    }
}

#[test]
fn no_line_list_has_a_catch_all_and_strip_never_matches_a_diagnostic() {
    let shipped = load();
    let corpus: Vec<&str> = MUST_SURVIVE
        .iter()
        .flat_map(|f| f.lines.iter().copied())
        .collect();
    let mut problems = Vec::new();
    for (name, raw) in &shipped.raw {
        let lists = [
            ("strip_lines_matching", &raw.strip),
            ("keep_lines_matching", &raw.keep),
            ("match_shape", &raw.shapes),
        ];
        for (key, list) in lists {
            for p in list {
                if is_catch_all(p) {
                    problems.push(format!("{} {name}.{key}: {p:?} is a catch-all", raw.file));
                }
                if !p.starts_with('^') {
                    problems.push(format!("{name}.{key}: {p:?} is not anchored with ^"));
                }
            }
        }
        for p in &raw.strip {
            let re = Regex::new(p).unwrap();
            for line in &corpus {
                if re.is_match(line) {
                    problems.push(format!(
                        "{name}: strip pattern {p:?} matches the diagnostic {line:?}"
                    ));
                }
            }
        }
        if let Some(command) = &raw.command {
            let re = Regex::new(command).unwrap();
            if !command.starts_with('^') {
                problems.push(format!(
                    "{name}.match_command: {command:?} is not anchored with ^"
                ));
            }
            if VARIED_COMMANDS.iter().all(|c| re.is_match(c)) {
                problems.push(format!("{name}.match_command: {command:?} is a catch-all"));
            }
        }
        if raw.on_empty.is_some() && raw.strip.is_empty() && raw.keep.is_empty() {
            problems.push(format!("{name}: on_empty with no line list"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn diagnostics_survive_every_filter_that_claims_their_output() {
    let shipped = load();
    let mut problems = Vec::new();
    let mut checked = 0;
    let families: BTreeSet<&str> = MUST_SURVIVE.iter().map(|f| f.filter).collect();
    for f in &shipped.filters {
        assert!(
            families.contains(f.name()),
            "{}: no must-survive family",
            f.name()
        );
    }
    for family in MUST_SURVIVE {
        filter(shipped, family.filter);
        assert!(
            family.typical.contains("@@\n"),
            "{}: typical output has no @@ line",
            family.filter
        );
        for line in family.lines {
            let output = family.typical.replace("@@\n", &format!("{line}\n"));
            let routed = select(&shipped.filters, Some(family.command), &output).map(Filter::name);
            if routed != Some(family.filter) {
                problems.push(format!(
                    "{}: `{}` with {line:?} routes to {routed:?}",
                    family.filter, family.command
                ));
            }
            for f in &shipped.filters {
                if !(claims(f, Some(family.command), &output) || claims(f, None, &output)) {
                    continue;
                }
                checked += 1;
                let out = apply(f, &output);
                if !out.text.lines().any(|l| l == *line) {
                    problems.push(format!(
                        "{} drops {line:?} from {} output; got:\n{}",
                        f.name(),
                        family.filter,
                        out.text
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    println!("{checked} (filter, diagnostic) pairs checked");
}

/// rtk 0.37.2's gradle filter (`^(gradle|gradlew|\./)gradlew?\b`, read on
/// the program's base name) matches no gradle command line, and its
/// dotnet-build filter is shadowed by its dotnet module: both are never
/// chosen. The shipped ones are, for the command lines rtk would give them.
#[test]
fn gradle_and_dotnet_builds_are_chosen_where_rtks_filters_never_are() {
    let rtk_gradle = regex::Regex::new(r"^(gradle|gradlew|\./)gradlew?\b").unwrap();
    let shipped = load();
    for (filter, command) in [
        ("gradle", "gradle build"),
        ("gradle", "gradlew test"),
        ("dotnet-build", "dotnet build -c Release"),
    ] {
        if filter == "gradle" {
            assert!(!rtk_gradle.is_match(command), "{command}");
        }
        let chosen =
            hookdex_outfilter::select(&shipped.filters, Some(command), "x\n").map(Filter::name);
        assert_eq!(chosen, Some(filter), "{command}");
    }
}
