"""The pool test's hosts, load and faults (scripts/pool.sh sets up the
namespaces, the cgroup and nginx, then runs this).

Each host is deploy/wasmtime-serve-drain.sh -- wasmtime serve, started in its
namespace with `ip netns exec`; its pid goes to RUN/pids for the shell's
cleanup. An open-loop load (requests sent on a fixed schedule, whatever the
earlier ones are doing) of four kinds goes to nginx throughout; each phase
faults host 1 for a while, then repairs it. Every answer must be the native
command's status and bytes; none may be lost. Prints p50/p99 per window.
"""
import argparse
import asyncio
import os
import re
import signal
import subprocess
import sys
import time

p = argparse.ArgumentParser()
p.add_argument('--run', required=True)
p.add_argument('--front', type=int, required=True)
p.add_argument('--nginx', required=True)
p.add_argument('--component', required=True)
p.add_argument('--cgroup', required=True)
p.add_argument('--cgroup-root', required=True)
p.add_argument('--netns', nargs='+', required=True)
p.add_argument('--addrs', nargs='+', required=True)
p.add_argument('--links', nargs='+', required=True)
p.add_argument('--rate', type=float, default=float(os.environ.get('POOL_RATE', 50)))
# Seconds: load before the fault, the fault, after the repair.
p.add_argument('--before', type=float, default=2.5)
p.add_argument('--during', type=float, default=4.0)
p.add_argument('--after', type=float, default=3.5)
# bench: start the hosts, run scripts/pool/throughput.mjs with the rest of
# the arguments, no load of its own and no faults.
p.add_argument('--bench', action='store_true')
p.add_argument('--targets', nargs='+', default=[])
p.add_argument('--kinds', nargs='+', default=[])
args = p.parse_args()
RUN = args.run
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DRAIN = os.path.join(ROOT, 'deploy', 'wasmtime-serve-drain.sh')
FAULTED = 1  # the host each phase faults

KINDS = []
for kind in ('example', 'cuda', 'unplannable', 'large'):
    body = open(f'{RUN}/{kind}.json', 'rb').read()
    expected = open(f'{RUN}/{kind}.expected', 'rb').read()
    status = {0: 200, 1: 422}[int(open(f'{RUN}/{kind}.exit').read())]
    KINDS.append((kind, body, status, expected))


def log(message):
    print(message, flush=True)


# ---- hosts -------------------------------------------------------------
class Host:
    def __init__(self, index):
        self.index = index
        self.netns = args.netns[index]
        self.addr = args.addrs[index]
        self.proc = None
        self.starts = 0
        self.recorded = set()

    def start(self):
        """The supervisor (deploy/wasmtime-serve-drain.sh) and its wasmtime serve, in the namespace."""
        self.starts += 1
        logfile = open(f'{RUN}/host{self.index}.{self.starts}.log', 'wb')
        # SIGINT at its default whatever this process inherited (the drain
        # script resets its child's too).
        self.proc = subprocess.Popen(
            ['ip', 'netns', 'exec', self.netns, DRAIN, '--grace', '5', '--',
             'wasmtime', 'serve', '-O', 'pooling-allocator=n', '-S', 'cli',
             '-W', 'max-memory-size=268435456', '-W', 'timeout=30s',
             '--max-concurrent-connections', '1000', '--max-concurrent-requests', '64',
             '--addr', self.addr, args.component],
            stdout=logfile, stderr=subprocess.STDOUT,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        with open(f'{RUN}/pids', 'a') as f:
            f.write(f'{self.proc.pid}\n')
        self.logname = logfile.name

    def wasmtime_pid(self):
        """The supervisor's child: wasmtime serve (env execs it)."""
        for _ in range(100):
            try:
                children = open(f'/proc/{self.proc.pid}/task/{self.proc.pid}/children').read().split()
            except OSError:
                children = []
            for child in children:
                try:
                    if open(f'/proc/{child}/comm').read().strip().startswith('wasmtime'):
                        if child not in self.recorded:
                            self.recorded.add(child)
                            with open(f'{RUN}/pids', 'a') as f:
                                f.write(f'{child}\n')
                        return int(child)
                except OSError:
                    pass
            time.sleep(0.05)
        raise SystemExit(f'host {self.index}: no wasmtime serve under its supervisor')

    def wait_serving(self, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if b'Serving HTTP on' in open(self.logname, 'rb').read():
                self.wasmtime_pid()  # recorded in RUN/pids for the cleanup
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        sys.stdout.write(open(self.logname, errors='replace').read())
        raise SystemExit(f'host {self.index}: wasmtime serve did not start')

    def wait_exit(self, timeout):
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None


HOSTS = [Host(i) for i in range(len(args.addrs))]


def in_flight(host):
    """Connections established to the host's port now, from its namespace's
    /proc/PID/net/tcp (nginx opens one per request and closes it with the
    answer, so each is a request in flight)."""
    pid = host.wasmtime_pid()
    port = '%04X' % int(host.addr.rsplit(':', 1)[1])
    try:
        rows = open(f'/proc/{pid}/net/tcp').read().split('\n')[1:]
    except OSError:
        return 0
    return sum(1 for row in rows if row.split()[1:2] and row.split()[1].endswith(':' + port) and row.split()[3] == '01')


def when_busy(fault):
    """The fault, as soon as the host has a request in flight (within 3 s):
    a fault between requests would test only new connections."""
    def run():
        host = HOSTS[FAULTED]
        deadline = time.monotonic() + 3
        busy = 0
        while time.monotonic() < deadline:
            busy = in_flight(host)
            if busy:
                break
            time.sleep(0.002)
        fault()
        log(f'     faulted with {busy} request(s) in flight on host {FAULTED}')
    return run


def nginx_conf(down):
    """The test copy with `down` on the faulted host's line (retirement), or not."""
    path = f'{RUN}/nginx.conf'
    text = open(path).read()
    lines = [l for l in text.split('\n') if re.match(rf'\s*server {re.escape(HOSTS[FAULTED].addr)}[ ;]', l)]
    if len(lines) != 1:
        raise RuntimeError(f'nginx.conf: {len(lines)} server lines for {HOSTS[FAULTED].addr}, not 1')
    line = lines[0]
    plain = line.replace(' down;', ';')
    new = plain.replace(';', ' down;') if down else plain
    open(path, 'w').write(text.replace(line, new))


def nginx_reload():
    subprocess.run([args.nginx, '-p', RUN, '-c', f'{RUN}/nginx.conf', '-e', 'stderr', '-s', 'reload'], check=True)


def nginx_workers():
    """nginx's worker processes now (old ones included while they finish)."""
    master = int(open(f'{RUN}/nginx.pid').read())
    try:
        return open(f'/proc/{master}/task/{master}/children').read().split()
    except OSError:
        return []


# ---- the faults, each a (fault, repair) pair on host 1 -------------------
def restart(host):
    code = host.wait_exit(10)
    if code is None:
        raise SystemExit(f'host {host.index} did not exit')
    host.start()
    host.wait_serving()


def cpu_quota(on):
    if os.path.exists(f'{args.cgroup}/cpu.max'):
        open(f'{args.cgroup}/cpu.max', 'w').write('1000 100000' if on else 'max 100000')
    else:
        open(f'{args.cgroup}/cpu.cfs_period_us', 'w').write('100000')
        open(f'{args.cgroup}/cpu.cfs_quota_us', 'w').write('1000' if on else '-1')


def starve():
    cpu_quota(True)
    pid = HOSTS[FAULTED].wasmtime_pid()
    # cgroup v1's cgroup.procs and v2's both move every thread of the process.
    open(f'{args.cgroup}/cgroup.procs', 'w').write(str(pid))


def feed():
    pid = HOSTS[FAULTED].wasmtime_pid()
    open(f'{args.cgroup_root}/cgroup.procs', 'w').write(str(pid))
    cpu_quota(False)


def retire():
    """The documented way: out of the balancer, then a bounded stop."""
    nginx_conf(True)
    old = set(nginx_workers())
    nginx_reload()
    # The old workers finish the requests they had, then exit.
    deadline = time.monotonic() + 25
    while old & set(nginx_workers()) and time.monotonic() < deadline:
        time.sleep(0.05)
    if old & set(nginx_workers()):
        raise SystemExit('nginx\'s old workers did not finish within 25 s of the reload')
    started = time.monotonic()
    HOSTS[FAULTED].proc.send_signal(signal.SIGTERM)  # the supervisor: SIGINT, then SIGKILL after 5 s
    code = HOSTS[FAULTED].wait_exit(10)
    log(f'     retired: the old workers gone, then SIGTERM to the supervisor: exit {code} after {time.monotonic() - started:.2f} s')
    if code != 0:
        raise SystemExit(f'the drained host exited {code}, not 0 (killed after its grace?)')


def unretire():
    HOSTS[FAULTED].start()
    HOSTS[FAULTED].wait_serving()
    nginx_conf(False)
    nginx_reload()


def link(up):
    subprocess.run(['ip', '-n', HOSTS[FAULTED].netns, 'link', 'set', args.links[FAULTED], 'up' if up else 'down'], check=True)


def signal_host(number):
    return lambda: os.kill(HOSTS[FAULTED].wasmtime_pid(), number)


# (name, fault, repair, seconds faulted): the frozen host stays frozen past
# proxy_read_timeout (10 s), so that its requests' timeout is what moves them.
PHASES = [
    ('kill -9', when_busy(signal_host(signal.SIGKILL)), lambda: restart(HOSTS[FAULTED]), args.during),
    ('SIGTERM', when_busy(signal_host(signal.SIGTERM)), lambda: restart(HOSTS[FAULTED]), args.during),
    ('SIGINT', when_busy(signal_host(signal.SIGINT)), lambda: restart(HOSTS[FAULTED]), args.during),
    ('link down', when_busy(lambda: link(False)), lambda: link(True), args.during),
    ('CPU starved (1 % of a core)', when_busy(starve), feed, args.during),
    ('frozen (SIGSTOP, SIGCONT)', when_busy(signal_host(signal.SIGSTOP)), signal_host(signal.SIGCONT), 12.0),
    ('retired (down, reload, drain)', retire, unretire, args.during),
]
only = os.environ.get('POOL_PHASES')
if only:
    PHASES = [PHASES[int(i)] for i in only.split(',')]


# ---- the load ------------------------------------------------------------
def dechunk(data):
    out = b''
    while True:
        line, _, data = data.partition(b'\r\n')
        size = int(line.split(b';')[0], 16)
        if size == 0:
            return out
        out += data[:size]
        data = data[size + 2:]


async def one(kind, body, status, expected, client):
    """(ok, seconds, what went wrong), sent from 127.0.0.CLIENT: the load is
    16 clients' (16 source addresses), not one's, as a pool's clients are;
    from one address nginx's limit_conn (64 requests in progress per address)
    answered 503 once a frozen host and a busy machine piled up 64."""
    start = time.monotonic()
    head = (b'POST /plan HTTP/1.1\r\nhost: pool\r\ncontent-type: application/json\r\n'
            b'content-length: %d\r\nconnection: close\r\n\r\n' % len(body))
    async def exchange():
        reader, writer = await asyncio.open_connection('127.0.0.1', args.front, local_addr=(f'127.0.0.{client}', 0))
        try:
            writer.write(head + body)
            await writer.drain()
            return await reader.read()
        finally:
            writer.close()
    try:
        # nginx gives up on a request within 20 s (proxy_next_upstream_timeout)
        # plus one try's 10 s: 40 s is past any answer it can give.
        data = await asyncio.wait_for(exchange(), 40)
    except (OSError, asyncio.TimeoutError) as error:
        return False, time.monotonic() - start, f'{kind}: {type(error).__name__} {error}'
    took = time.monotonic() - start
    end = data.find(b'\r\n\r\n')
    if not data.startswith(b'HTTP/1.1 ') or end < 0:
        return False, took, f'{kind}: no answer ({data[:60]!r})'
    got = int(data[9:12])
    headers = data[:end].lower()
    payload = data[end + 4:]
    if b'transfer-encoding: chunked' in headers:
        payload = dechunk(payload)
    if got != status:
        return False, took, f'{kind}: {got} {payload[:120]!r}'
    if payload != expected:
        return False, took, f'{kind}: {got} but {len(payload)} bytes, not the command\'s {len(expected)}'
    return True, took, None


RESULTS = []  # (sent at, ok, seconds, problem)


async def load(stop):
    loop = asyncio.get_running_loop()
    tasks = []
    start = loop.time()
    i = 0
    while not stop.is_set():
        at = start + i / args.rate
        delay = at - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        kind = KINDS[i % len(KINDS)]
        sent = time.monotonic()

        async def run(kind=kind, sent=sent, i=i):
            ok, took, problem = await one(*kind, client=2 + i % 16)
            RESULTS.append((sent, ok, took, problem))
        tasks.append(asyncio.ensure_future(run()))
        i += 1
    await asyncio.gather(*tasks)


def percentile(values, q):
    if not values:
        return float('nan')
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def window(a, b):
    return [r for r in RESULTS if a <= r[0] < b]


def guarded(action, what):
    """The action, any exception it raises a RuntimeError naming it (a
    StopIteration or SystemExit from a thread left asyncio waiting for ever)."""
    def run():
        try:
            action()
        except BaseException as error:
            raise RuntimeError(f'{what} failed: {type(error).__name__}: {error}') from None
    return run


async def main():
    for host in HOSTS:
        host.start()
    for host in HOSTS:
        host.wait_serving()
    if args.bench:
        subprocess.run(['node', os.path.join(ROOT, 'scripts', 'pool', 'throughput.mjs'), *args.targets, '--', *args.kinds],
                       check=True)
        return
    log(f'pool: 3 hosts ({", ".join(args.addrs)}) behind nginx on 127.0.0.1:{args.front}; '
        f'{args.rate:g} requests/s, kinds {", ".join(k[0] for k in KINDS)} in turn; host 1 faulted in each phase')
    stop = asyncio.Event()
    loader = asyncio.ensure_future(load(stop))
    marks = []
    for name, fault, repair, during in PHASES:
        t0 = time.monotonic()
        await asyncio.sleep(args.before)
        t1 = time.monotonic()
        await asyncio.to_thread(guarded(fault, f'{name}: the fault'))
        await asyncio.sleep(during)
        t2 = time.monotonic()
        await asyncio.to_thread(guarded(repair, f'{name}: the repair'))
        await asyncio.sleep(args.after)
        marks.append((name, t0, t1, t2, time.monotonic()))
    stop.set()
    await loader

    log(f'{"phase":32} {"window":7} {"sent":>5} {"lost":>5} {"p50 ms":>8} {"p99 ms":>8} {"max ms":>8}')
    lost = 0
    for name, t0, t1, t2, t3 in marks:
        for label, a, b in (('before', t0, t1), ('during', t1, t2), ('after', t2, t3)):
            rows = window(a, b)
            bad = [r for r in rows if not r[1]]
            times = [r[2] * 1000 for r in rows]
            log(f'{name:32} {label:7} {len(rows):5} {len(bad):5} {percentile(times, 0.5):8.1f} '
                f'{percentile(times, 0.99):8.1f} {max(times, default=float("nan")):8.1f}')
    bad = [r for r in RESULTS if not r[1]]
    for r in bad[:20]:
        log(f'LOST {r[3]}')
    retried = sum(1 for line in open(f'{RUN}/nginx.log', errors='replace') if 'upstream' in line)
    log(f'pool: {len(RESULTS)} requests, {len(bad)} lost or wrong; nginx logged {retried} upstream errors '
        f'(each a try passed on to another host or a host taken out)')
    if len(RESULTS) < args.rate * (marks[-1][4] - marks[0][1]) * 0.9:
        raise SystemExit('pool: the load fell behind its schedule')
    if bad:
        raise SystemExit(f'pool: {len(bad)} of {len(RESULTS)} requests lost or answered otherwise than the command')
    log('pool: every answer the command\'s, byte for byte, through every fault')


asyncio.run(main())
