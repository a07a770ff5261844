#!/usr/bin/env bash
# A stop that finishes what it started, for `wasmtime serve` 48:
#
#   deploy/wasmtime-serve-drain.sh [--grace SECONDS] -- wasmtime serve ARGS...
#
# runs the command as its child and, on SIGTERM (what a supervisor, systemd
# or Kubernetes sends to stop it) or SIGINT, sends the child SIGINT, waits up
# to SECONDS (default 20, or $DRAIN_GRACE) for it to finish the requests it
# started, then SIGKILLs it. It exits with the child's status (137 where the
# grace ran out).
#
# Why: wasmtime serve 48 dies at once on SIGTERM: requests in flight are
# closed unanswered (20 of 20 half-sent requests, docs/service.md, "Retiring
# a host"; scripts/pool/wasmtime-signals.py shows it). SIGINT drains them,
# but without bound (an idle keep-alive client keeps it alive as long as it
# likes) and with its port still open: new connections are accepted, left
# unanswered, and reset when it exits. So take the host out of the
# balancer FIRST (nginx: `down` on its `server` line, `nginx -s reload`),
# then stop it with this: nothing new reaches it, what it started finishes,
# and the grace bounds the rest.
#
# The child's SIGINT is reset to its default (`env --default-signal`,
# coreutils 8.31+): a job started with `&` or `nohup` from a script has
# SIGINT ignored, an ignored signal stays ignored across exec, and bash
# cannot reset it; wasmtime serve would then ignore the SIGINT sent here.
set -uo pipefail
grace=${DRAIN_GRACE:-20}
if [[ ${1:-} == --grace ]]; then
  grace=$2
  shift 2
fi
[[ ${1:-} == -- ]] && shift
if [[ $# -eq 0 ]]; then
  echo "usage: $0 [--grace SECONDS] -- wasmtime serve ARGS..." >&2
  exit 2
fi
[[ $grace =~ ^[0-9]+$ ]] || { echo "wasmtime-serve-drain: --grace takes whole seconds, not $grace" >&2; exit 2; }

env --default-signal=INT "$@" &
child=$!

stop() {
  trap '' TERM INT
  kill -INT "$child" 2>/dev/null
  # bash reaps the child when it exits (its SIGCHLD), so kill -0 then fails.
  for ((tenth = 0; tenth < grace * 10; tenth++)); do
    if ! kill -0 "$child" 2>/dev/null; then
      wait "$child"
      exit $?
    fi
    sleep 0.1
  done
  echo "wasmtime-serve-drain: still running ${grace} s after SIGINT: SIGKILL" >&2
  kill -KILL "$child" 2>/dev/null
  wait "$child"
  exit 137
}
trap stop TERM INT
# `wait` returns early when a trapped signal arrives; the trap then exits.
wait "$child"
exit $?
