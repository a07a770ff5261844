#!/usr/bin/env bash
# Mutation testing of the gating that decides which kernel runs:
# cargo-mutants on src/planner.rs, src/webgpu.rs and src/plan_result.rs,
# against the native suites that check them (unit tests, tests/core,
# tests/probe, tests/schemas, tests/properties, tests/limits_table,
# tests/answer_bound). Not in .ci/run: it builds the
# crate once per mutant (about 10 minutes on 2 cores). Installs cargo-mutants
# (crates.io) when it is missing. Exits non-zero when a mutant survives; the
# survivors, if any, are listed in target/mutants/<file>/missed.txt.
#   scripts/mutants.sh [FILE...]     default: the three files above
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
command -v cargo-mutants >/dev/null || cargo install cargo-mutants --locked
files=("$@")
[ ${#files[@]} -eq 0 ] && files=(src/planner.rs src/webgpu.rs src/plan_result.rs)
status=0
for file in "${files[@]}"; do
  out="target/mutants/$(basename "$file" .rs)"
  mkdir -p "$out"
  echo "== cargo mutants --file $file (log: $out/mutants.out)"
  # The core's suites, tests/hostile.rs among them (crates/cli/tests/, the
  # command's, are not run: cargo-mutants 27 tests only the mutated package).
  if cargo mutants --file "$file" --features schema --output "$out" -- --lib --test core --test probe --test schemas --test properties --test limits_table --test answer_bound --test hostile; then
    echo "$file: no mutant survives"
  else
    status=1
    echo "$file: survivors:"
    cat "$out/mutants.out/missed.txt" 2>/dev/null || echo "(cargo-mutants did not finish; see above)"
  fi
done
exit $status
