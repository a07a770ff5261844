#!/usr/bin/env bash
# The service past one host: three `wasmtime serve` hosts behind nginx with
# the shipped deploy/nginx.conf (only its addresses changed), under a bounded
# open-loop load, one host faulted per phase (docs/service.md, "A pool of
# hosts").
#
#   scripts/pool.sh test    needs root (network namespaces, veth pairs, a CPU
#                           cgroup); fails, never skips, where it cannot make
#                           them. Under 4 minutes.
#   scripts/pool.sh without-pool-settings
#                           the same with the pool's settings taken out of the
#                           test copy (round robin, nginx's default retries,
#                           max_fails and timeouts): the finding, shown (a
#                           request in flight on the killed host lost, a 502,
#                           at kill -9, SIGTERM or SIGINT, 1 to 3 a run here),
#                           not asserted; exits 0.
#   scripts/pool.sh bench   the same pool, no faults: plans/s and latency of
#                           one host straight, one host behind nginx, and the
#                           three behind nginx (scripts/pool/throughput.mjs;
#                           BENCHMARKS.md, "The service past one host").
#
# What it builds: three network namespaces (one a host), each joined to this
# one by a veth pair with a private /30 (10.X.N.0/30, nothing routed off the
# machine), each running deploy/wasmtime-serve-drain.sh -- wasmtime serve of
# dist/backend-targets-http.wasm with the limits docs/service.md recommends;
# nginx on a free loopback port with deploy/nginx.conf, its one `server`
# line repeated once per host and the addresses replaced (nothing else: the
# test fails where the shipped file lacks a pool setting).
#
# What it asserts (scripts/pool/drive.py): at 50 requests/s (from 16 loopback
# addresses) of four kinds
# (the docs/command.md example plan, tests/vectors/requests/cuda-auto.json,
# tests/vectors/requests/unplannable.json, a 1.6 MB 10,000-capsule plan from
# bench/catalog.mjs), every answer's status and bytes are the native
# command's (`target/release/backend-targets plan`: 200 for a plan, 422 for
# the unplannable one), none lost, through seven phases, one fault each on
# one host: kill -9, SIGTERM, SIGINT, its link down, its CPU starved (a
# cgroup quota of 1 % of a core), frozen (SIGSTOP, then SIGCONT), and the
# documented retirement (`down` in nginx.conf, `nginx -s reload`, then
# SIGTERM to deploy/wasmtime-serve-drain.sh); p50/p99 before, during and
# after each.
#
# Cleans up on any exit (a trap): the processes it started, by their ids;
# its namespaces (their veth pairs go with them) and its cgroup.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
COMPONENT=${BACKEND_TARGETS_HTTP:-$ROOT/dist/backend-targets-http.wasm}
NATIVE=${BACKEND_TARGETS_NATIVE:-$ROOT/target/release/backend-targets}
NGINX=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
HOSTS=3

fail() { echo "pool: $*" >&2; exit 1; }

MODE=${1:-}
[[ $MODE == test || $MODE == without-pool-settings || $MODE == bench ]] \
  || { echo "usage: scripts/pool.sh test|without-pool-settings|bench" >&2; exit 2; }
[[ $(id -u) == 0 ]] || fail "needs root (network namespaces, veth pairs, a cgroup); not skipped: run it as root"
for need in ip "$NGINX" wasmtime python3 node env; do
  command -v "$need" >/dev/null || fail "$need is not installed (scripts/setup.sh)"
done
env --default-signal=INT true 2>/dev/null || fail "env lacks --default-signal (coreutils 8.31+): deploy/wasmtime-serve-drain.sh needs it"
[[ -f $COMPONENT ]] || fail "no $COMPONENT (scripts/build.sh)"
[[ -x $NATIVE ]] || fail "no $NATIVE (scripts/build.sh): it gives the expected bytes"

# The shipped file must carry the pool's settings: without them a request
# in flight on a host that died was lost (nginx passes no POST on by
# default), and a frozen host held its requests for the whole read timeout.
CONF=deploy/nginx.conf
[[ $MODE == test ]] && for setting in 'least_conn;' 'zone wasmtime_serve ' 'server 127.0.0.1:8081 max_fails=1 fail_timeout=5s;' \
  'proxy_next_upstream error timeout http_502 http_503 http_504 non_idempotent;' \
  'proxy_next_upstream_tries 3;' 'proxy_next_upstream_timeout 20s;' 'proxy_connect_timeout 1s;' 'proxy_read_timeout 10s;'; do
  grep -qF -- "$setting" "$CONF" || fail "$CONF lacks the pool setting '$setting'"
done
! grep -E '^\s*proxy_next_upstream .*http_500' "$CONF" || fail "$CONF passes a 500 on (one trapping request would take out every host)"
[[ $(grep -cE '^\s*server [0-9.]+:[0-9]+ ' "$CONF") == 1 ]] || fail "$CONF: expected one upstream server line to repeat per host"

RUN=$(mktemp -d "${TMPDIR:-/tmp}/pool.XXXXXX")
chmod 755 "$RUN"
mkdir -p "$RUN/tmp"
: >"$RUN/pids"
TAG=bt$$
NETNS=()
CGROUP=""
cleanup() {
  local status=$?
  set +e
  # Only what this run started: its pids file (drive.py appends each host),
  # nginx's master; then SIGCONT, in case a host was left frozen.
  [[ -n ${DRIVE_PID:-} ]] && kill -TERM "$DRIVE_PID" 2>/dev/null && wait "$DRIVE_PID" 2>/dev/null
  while read -r pid; do
    [[ -n $pid ]] && { kill -CONT "$pid"; kill -KILL "$pid"; } 2>/dev/null
  done <"$RUN/pids"
  [[ -n ${NGINX_PID:-} ]] && kill -TERM "$NGINX_PID" 2>/dev/null && wait "$NGINX_PID" 2>/dev/null
  # And whatever still runs in this run's namespaces (a host's wasmtime
  # serve outlives its supervisor's SIGKILL).
  for ns in "${NETNS[@]}"; do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -CONT "$pid"; kill -KILL "$pid"; done 2>/dev/null
  done
  for ns in "${NETNS[@]}"; do ip netns del "$ns" 2>/dev/null; done
  for i in $(seq 0 $((HOSTS - 1))); do ip link del "${TAG}h$i" 2>/dev/null; done
  [[ -n $CGROUP && -d $CGROUP ]] && rmdir "$CGROUP" 2>/dev/null
  [[ $status != 0 ]] && { echo "pool: failed; nginx's log:" >&2; grep -v 'buffered to a temporary file' "$RUN/nginx.log" 2>/dev/null | tail -20 >&2; }
  rm -rf "$RUN"
  exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A /30 per host in 10.X.0.0/16, X from this run's pid, refused where any
# interface here already uses it.
NET=10.$((64 + $$ % 128))
ip -o addr show | grep -qF " $NET." && fail "$NET.0.0/16 is already in use here; run again (another pid picks another)"
ADDRS=()
for i in $(seq 0 $((HOSTS - 1))); do
  ns="${TAG}n$i"
  ip netns add "$ns" || fail "ip netns add failed: network namespaces are unavailable (root in a container without CAP_SYS_ADMIN?)"
  NETNS+=("$ns")
  ip link add "${TAG}h$i" type veth peer name "${TAG}p$i" || fail "cannot make a veth pair"
  ip link set "${TAG}p$i" netns "$ns"
  ip addr add "$NET.$i.1/30" dev "${TAG}h$i"
  ip link set "${TAG}h$i" up
  ip -n "$ns" addr add "$NET.$i.2/30" dev "${TAG}p$i"
  ip -n "$ns" link set "${TAG}p$i" up
  ip -n "$ns" link set lo up
  ADDRS+=("$NET.$i.2:8081")
done

# A CPU cgroup for the starved phase: cgroup v2's cpu.max where the cpu
# controller is there, else v1's cpu controller (this kernel's layout).
if [[ -f /sys/fs/cgroup/cgroup.controllers ]] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then
  grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control || echo +cpu >/sys/fs/cgroup/cgroup.subtree_control
  CGROUP=/sys/fs/cgroup/$TAG
  mkdir "$CGROUP" || fail "cannot make a cgroup at $CGROUP"
  CGROUP_ROOT=/sys/fs/cgroup
elif [[ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]]; then
  CGROUP=/sys/fs/cgroup/cpu/$TAG
  mkdir "$CGROUP" || fail "cannot make a cgroup at $CGROUP"
  CGROUP_ROOT=/sys/fs/cgroup/cpu
else
  fail "no cgroup cpu controller (v2 cpu.max or v1 cpu.cfs_quota_us): cannot starve a host"
fi

# The test copy of deploy/nginx.conf: the listen address, and the one
# `server` line once per host with its address replaced; nothing else.
FRONT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 - "$CONF" "$RUN/nginx.conf" "$FRONT" "${ADDRS[@]}" <<'PY'
import re, sys
src, dst, front, addrs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
text = open(src).read()
listen = 'listen 127.0.0.1:8080;'
assert text.count(listen) == 1, 'deploy/nginx.conf: no single ' + listen
text = text.replace(listen, f'listen 127.0.0.1:{front};')
lines = text.split('\n')
out = []
for line in lines:
    m = re.match(r'^(\s*server )127\.0\.0\.1:8081( .*)$', line)
    if m:
        out += [m.group(1) + a + m.group(2) for a in addrs]
    else:
        out.append(line)
open(dst, 'w').write('\n'.join(out))
PY
if [[ $MODE == without-pool-settings ]]; then
  sed -i -E -e '/^\s*(zone wasmtime_serve|least_conn;|proxy_next_upstream)/d' -e 's/ max_fails=1 fail_timeout=5s;/;/' \
    -e 's/proxy_connect_timeout 1s;/proxy_connect_timeout 5s;/' -e 's/proxy_(send|read)_timeout 10s;/proxy_\1_timeout 35s;/' "$RUN/nginx.conf"
  grep -vE '^\s*#' "$RUN/nginx.conf" | grep -E '^\s*(least_conn|zone wasmtime_serve|proxy_next_upstream)|max_fails|proxy_[a-z]+_timeout 10?s;' \
    && fail "a pool setting is left"
fi
cp deploy/nginx-origin.js "$RUN/"
[[ $MODE == test ]] && { diff <(sed -E 's/[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+:[0-9]+/ADDR/g' "$CONF" | uniq) \
  <(sed -E 's/[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+:[0-9]+/ADDR/g' "$RUN/nginx.conf" | uniq) >/dev/null \
  || fail "the test copy of $CONF differs in more than its addresses"; }

# The requests and the bytes the native command answers them.
node --input-type=module -e "import {planRequest} from './bench/catalog.mjs'; process.stdout.write(JSON.stringify(planRequest(10000)))" >"$RUN/large.json"
sed -n '/^## Plan request and result/,/^`matmul` runs/p' docs/command.md | sed -n '/^```json$/,/^```$/p' | sed '1d;$d' >"$RUN/example.json"
cp tests/vectors/requests/cuda-auto.json "$RUN/cuda.json"
cp tests/vectors/requests/unplannable.json "$RUN/unplannable.json"
for kind in example cuda unplannable large; do
  set +e
  "$NATIVE" plan <"$RUN/$kind.json" >"$RUN/$kind.expected" 2>/dev/null
  echo $? >"$RUN/$kind.exit"
  set -e
done
[[ $(cat "$RUN/example.exit") == 0 && $(cat "$RUN/cuda.exit") == 0 && $(cat "$RUN/large.exit") == 0 && $(cat "$RUN/unplannable.exit") == 1 ]] \
  || fail "the native command's exits were not 0, 0, 0 and 1 for the example, cuda, large and unplannable requests"

"$NGINX" -p "$RUN" -c "$RUN/nginx.conf" -e stderr >"$RUN/nginx.log" 2>&1 &
NGINX_PID=$!

if [[ $MODE == bench ]]; then
  # A second nginx, the same file with only host 0: one host behind nginx.
  mkdir -p "$RUN/one/tmp"
  chmod 755 "$RUN/one"
  FRONT1=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  grep -vE "^\s*server (${ADDRS[1]}|${ADDRS[2]}) " "$RUN/nginx.conf" | sed "s/listen 127.0.0.1:$FRONT;/listen 127.0.0.1:$FRONT1;/" >"$RUN/one/nginx.conf"
  cp deploy/nginx-origin.js "$RUN/one/"
  "$NGINX" -p "$RUN/one" -c "$RUN/one/nginx.conf" -e stderr >"$RUN/one/nginx.log" 2>&1 &
  echo $! >>"$RUN/pids"
  python3 scripts/pool/drive.py --run "$RUN" --front "$FRONT" --nginx "$NGINX" --component "$COMPONENT" \
    --cgroup "$CGROUP" --cgroup-root "$CGROUP_ROOT" --netns "${NETNS[@]}" --addrs "${ADDRS[@]}" \
    --links "${TAG}p0" "${TAG}p1" "${TAG}p2" --bench \
    --targets "one host straight=http://${ADDRS[0]}" "one host behind nginx=http://127.0.0.1:$FRONT1" \
    "three hosts behind nginx=http://127.0.0.1:$FRONT" \
    --kinds "typical (cuda-auto.json, 1,455 B)=$RUN/cuda.json" "large (10,000 capsules, 1.6 MB)=$RUN/large.json"
  exit 0
fi

# In the background and waited for: a signal to this script then runs its
# trap at once (bash defers a trap until a foreground child ends). Bounded:
# the phases take some 80 s; past 300 s something hangs, and the test fails.
timeout 300 python3 scripts/pool/drive.py --run "$RUN" --front "$FRONT" --nginx "$NGINX" --component "$COMPONENT" \
  --cgroup "$CGROUP" --cgroup-root "$CGROUP_ROOT" --netns "${NETNS[@]}" --addrs "${ADDRS[@]}" \
  --links "${TAG}p0" "${TAG}p1" "${TAG}p2" &
DRIVE_PID=$!
status=0
wait "$DRIVE_PID" || status=$?
DRIVE_PID=""
[[ $MODE == test && $status != 0 ]] && exit "$status"
if [[ $MODE == without-pool-settings ]]; then
  echo "pool: without the pool's settings (shown, not asserted): drive.py exited $status"
  exit 0
fi
