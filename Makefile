# Two entry points for newcomers (see README.md); both install missing system packages first.
.PHONY: setup example test bench fuzz-smoke soak dist

setup:
	./scripts/setup

# Validates the bundled minimal example and prints the verdict.
example: setup
	cargo run --release -q -p witness-check --bin witness-check -- validate \
		--witness fixtures/minimal/minimal-example.graphml \
		--property fixtures/minimal/unreach-call.prp \
		fixtures/minimal/minimal-example.c

# Runs the whole test suite (unit, property, end-to-end, BenchExec tool-info module, corpus when
# ../shared is present), builds the library's documentation with warnings as errors, then
# type-checks the fuzz targets (outside the workspace).
test: setup
	cargo test --workspace
	# The library's documentation builds without warnings (no public doc links to a private item).
	RUSTDOCFLAGS="-D warnings" cargo doc -q -p witness-core --no-deps
	# The fuzz targets live outside the workspace; a type check keeps them building.
	cargo check --manifest-path fuzz/Cargo.toml

# Bounded fuzzing of every target in fuzz/ (FUZZ_SECONDS per target, default 20; stable
# toolchain; installs cargo-fuzz when missing). CI runs it after `make test`.
fuzz-smoke: setup
	./scripts/fuzz-smoke

# Prints median and p90 validation time per corpus case (in process), then (scripts/bench-scale)
# the small tasks' whole-process time, the scaling series of dev-sc002 and dev-sc004 (10k-1M
# lines: wall time, peak memory, memory over file size) and a witness that matches nothing, run
# for the whole budget (memory, and the process's end against the budget), and `lint` against
# `validate` on a 300k-transition witness; NITWIT's figures and the ratios too when NITWIT_DIR is set;
# then (scripts/bench-tail) the slow tail: per manifest p50/p90/p99/max time and peak memory, and the
# ten slowest cases with the engine that decided them.
bench: setup
	cargo run --release -q -p witness-check --bin corpus-bench -- ../shared/corpus/manifest.tsv
	cargo build --release -q -p witness-check
	./scripts/bench-scale
	./scripts/bench-tail ../shared/corpus-correctness/manifest.tsv ../shared/corpus-external/manifest.tsv \
		../shared/corpus-concurrency/manifest.tsv ../shared/corpus-termination/manifest.tsv \
		../shared/corpus-properties/manifest.tsv

# The differential oracle (issue 19, issue 32): generated programs checked against gcc, in three
# phases of SOAK_SECONDS/3 each on all cores: violation witnesses recorded from native runs
# (ASan/UBSan) and mutated; correctness witnesses of programs whose small input domains are
# enumerated natively (witness-oracle/src/correctness.rs); multi-threaded programs whose every
# schedule is enumerated natively under a baton scheduler (witness-oracle/src/threads.rs).
# Every decided case is validated again with every shortcut off (decision 238): a different
# definite answer is a mismatch; the summary counts per shortcut the cases it decided.
# Prints cases, verdicts, mismatches (violation inputs written under target/soak/findings),
# the mix of features and properties covered, and the mix by claim last. SOAK_SEED fixes the
# seed; SOAK_ARGS passes more options (e.g. --all-features for features known to mismatch; none today).
SOAK_SECONDS ?= 600
soak: setup
	cargo build --release -q -p witness-oracle --bin soak
	SOAK_SECONDS=$(SOAK_SECONDS) ./target/release/soak $(SOAK_ARGS)

# The competition archive target/dist/witness-check.zip (and .tar.gz): release binary, the Z3
# library it was linked with (found through the run path $ORIGIN/lib), BenchExec module, manual
# pages, completions, example, README and licences; runs where Z3 is not installed (tests/dist.rs,
# part of `make test`). The archive does not need BenchExec: setup leaves it out.
dist:
	SETUP_BENCHEXEC=0 ./scripts/setup
	./scripts/dist
