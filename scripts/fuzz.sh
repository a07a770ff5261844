#!/usr/bin/env bash
# Fuzzing with cargo-fuzz (libFuzzer) on the pinned nightly toolchain
# (scripts/versions.sh, FUZZ_NIGHTLY_DATE; installed by scripts/setup.sh):
# cargo-fuzz passes -Z flags, which only a nightly takes.
#   scripts/fuzz.sh                 bounded run (the test command's): 20 s per target
#   scripts/fuzz.sh long            the long run: 1,000,000 executions per target
#   scripts/fuzz.sh TARGET [ARGS]   one target with libFuzzer arguments
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
source scripts/versions.sh
toolchain=$(fuzz_toolchain)
[ -n "$toolchain" ] || { echo "fuzz.sh: no nightly of $FUZZ_NIGHTLY_DATE: run scripts/setup.sh" >&2; exit 1; }
targets=(parse_target plan_request planner)
seed_corpus() { # the request vectors and the malformed corpus seed the text targets
  mkdir -p fuzz/corpus/plan_request fuzz/corpus/parse_target
  cp tests/vectors/requests/*.json fuzz/corpus/plan_request/
  cp tests/vectors/targets/*.json fuzz/corpus/parse_target/
  node -e "const c=require('./tests/vectors/malformed.json');c.forEach((m,i)=>require('fs').writeFileSync('fuzz/corpus/plan_request/malformed-'+i,m.input))"
}
seed_corpus
# Runs one target, its output in a log: the last lines when it passes, all of
# it (the crash's trace, the input it saved) when it fails.
run_target() { # target, libFuzzer arguments...
  local t=$1 log
  shift
  mkdir -p fuzz/artifacts
  log="fuzz/artifacts/$t.log"
  if cargo "+$toolchain" fuzz run "$t" -- "$@" >"$log" 2>&1; then
    tail -n 3 "$log"
  else
    echo "== fuzz target $t FAILED; its whole output ($log):" >&2
    cat "$log" >&2
    return 1
  fi
}
case "${1:-bounded}" in
  bounded) for t in "${targets[@]}"; do run_target "$t" -max_total_time=20 -max_len=4096; done ;;
  long) for t in "${targets[@]}"; do run_target "$t" -runs=1000000 -max_len=8192; done ;;
  *) t=$1; shift; cargo "+$toolchain" fuzz run "$t" -- "$@" ;;
esac
