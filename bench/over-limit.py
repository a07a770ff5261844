#!/usr/bin/env python3
"""Requests over a count limit: wall time and peak memory of a
command refusing a request of about 16 MiB (the default `requestBytes`) whose
one list or map is far over its limit (`limits::COUNTED`).

    python3 bench/over-limit.py [COMMAND ...]     (after scripts/build.sh)

Each COMMAND is a native binary, a `.wasm` (run by `wasmtime run -O
pooling-allocator=n`; its peak memory then includes wasmtime's own), or
`node` (the npm package's `planJson` from pkg/, in Node: its peak includes
Node's own). Without one: target/release/backend-targets,
dist/backend-targets.wasm and node. Each
request is refused with `limit-exceeded` (exit status 2); a row prints the
median wall time of three runs, the largest peak resident memory of the
three, and the first words of the refusal.
"""
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMMANDS = sys.argv[1:] or [
    os.path.join(ROOT, 'target', 'release', 'backend-targets'),
    os.path.join(ROOT, 'dist', 'backend-targets.wasm'),
    'node',
]
# The npm package as an app calls it: the text from stdin to `planJson`.
NODE_PLAN = f'''
import {{ readFileSync }} from 'node:fs';
import {{ planJson }} from {os.path.join(ROOT, 'pkg', 'node.js')!r};
const text = readFileSync(0, 'utf8');
try {{ planJson(text); }} catch (error) {{ console.error(error.message); process.exit(2); }}
'''
SIZE = 16 << 20


def fill(prefix, item, suffix):
    """`prefix`, items `item(0)`, `item(1)`, ... joined by commas, `suffix`:
    about 16 MiB in all, never over it."""
    parts, size, i = [prefix], len(prefix) + len(suffix), 0
    while True:
        text = item(i)
        if size + len(text) + 1 > SIZE - 64:
            break
        parts.append(text if i == 0 else ',' + text)
        size += len(text) + 1
        i += 1
    parts.append(suffix)
    return ''.join(parts)


WEBGPU = '{"ops":["matmul"],"availability":{"devices":["cpu","wasm"],"providers":["webGpu"],"webGpu":'
SHAPES = {
    'ops': fill('{"ops":[', lambda i: '"matmul"', ']}'),
    'configs': fill('{"ops":["matmul"],"configs":[', lambda i: '{}', ']}'),
    'capsules': fill(
        '{"ops":["matmul"],"capsules":[',
        lambda i: '{"name":"c%d","op":"matmul","provider":"reference","device":"cpu","trustLevel":"checked"}' % i,
        ']}',
    ),
    'WebGPU features': fill(WEBGPU + '{"features":[', lambda i: '"f%d"' % i, ']}}}'),
    'WebGPU limits': fill(WEBGPU + '{"limits":{', lambda i: '"l%d":1' % i, '}}}}'),
}

# Each run in a fresh Python whose only child is the command: its
# RUSAGE_CHILDREN peak is the command's alone.
MEASURE = '''
import resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:-1], stdin=open(sys.argv[-1], 'rb'), capture_output=True)
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, done.returncode)
print(done.stderr.decode(errors='replace').splitlines()[0] if done.stderr else '')
'''


def run(command, path):
    if command == 'node':
        argv = ['node', '--input-type=module', '-e', NODE_PLAN]
    elif command.endswith('.wasm'):
        argv = ['wasmtime', 'run', '-O', 'pooling-allocator=n', command, 'plan']
    else:
        argv = [command, 'plan']
    out = subprocess.run([sys.executable, '-c', MEASURE, *argv, path], capture_output=True, text=True, check=True)
    numbers, said = out.stdout.split('\n', 1)
    seconds, peak_kib, status = numbers.split()
    return float(seconds), int(peak_kib), int(status), said.strip()


print('| request (one list over its limit) | bytes | command | median wall (ms) | peak memory (MiB) | refusal |')
print('|---|---|---|---|---|---|')
with tempfile.TemporaryDirectory() as folder:
    for name, text in SHAPES.items():
        path = os.path.join(folder, 'request.json')
        with open(path, 'w') as file:
            file.write(text)
        for command in COMMANDS:
            runs = [run(command, path) for _ in range(3)]
            wall = sorted(r[0] for r in runs)[1]
            peak = max(r[1] for r in runs)
            status, said = runs[0][2], runs[0][3]
            words = said.split(': ', 1)[-1][:60]
            print(f'| {name} | {len(text):,} | {os.path.basename(command)} | {wall * 1000:.0f} | {peak / 1024:.0f} | '
                  f'{status}: {words} |')
