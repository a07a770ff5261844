"""What `wasmtime serve` does on SIGTERM and SIGINT with requests in flight
(docs/service.md, "Retiring a host"): shown, not asserted (a later wasmtime
may drain). Run by hand:

  python3 scripts/pool/wasmtime-signals.py [dist/backend-targets-http.wasm]

For each signal, on a free loopback port: 20 clients that have sent half a
body, 1 idle keep-alive client (one request answered, the connection kept),
then the signal; then a new connection and request 0.5 s after the signal.
Prints what each got and when the process exited.
"""
import os
import signal
import socket
import subprocess
import sys
import threading
import time

COMPONENT = sys.argv[1] if len(sys.argv) > 1 else 'dist/backend-targets-http.wasm'


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start(port):
    proc = subprocess.Popen(
        ['wasmtime', 'serve', '-O', 'pooling-allocator=n', '-S', 'cli', '-W', 'max-memory-size=268435456',
         '-W', 'timeout=30s', '--addr', f'127.0.0.1:{port}', COMPONENT],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    while b'Serving HTTP on' not in proc.stdout.readline():
        pass
    threading.Thread(target=proc.stdout.read, daemon=True).start()
    return proc


def outcome(sock, timeout=40):
    sock.settimeout(timeout)
    data = b''
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
            if b'\r\n\r\n' in data:
                break
    except ConnectionResetError:
        return 'reset' if not data else 'reset after ' + data[:12].decode('latin-1')
    except socket.timeout:
        return 'no answer'
    if not data:
        return 'closed unanswered'
    line = data.split(b'\r\n', 1)[0].decode('latin-1')
    return line[9:12] + (' (HTML)' if b'text/html' in data.lower() else '')


for number, name in ((signal.SIGTERM, 'SIGTERM'), (signal.SIGINT, 'SIGINT')):
    port = free_port()
    proc = start(port)
    half = []
    for _ in range(20):
        s = socket.create_connection(('127.0.0.1', port))
        s.sendall(b'POST /plan HTTP/1.1\r\nhost: x\r\ncontent-length: 1000\r\n\r\n' + b' ' * 500)
        half.append(s)
    idle = socket.create_connection(('127.0.0.1', port))
    idle.sendall(b'GET /health HTTP/1.1\r\nhost: x\r\n\r\n')
    idle.recv(4096)
    time.sleep(0.5)
    sent = time.monotonic()
    proc.send_signal(number)
    results = {}
    lock = threading.Lock()

    def wait(s):
        r = outcome(s)
        with lock:
            results[r] = results.get(r, 0) + 1
    threads = [threading.Thread(target=wait, args=(s,)) for s in half]
    for t in threads:
        t.start()
    time.sleep(0.5)
    late_result = []

    def late_request():
        try:
            late = socket.create_connection(('127.0.0.1', port), timeout=2)
            late.sendall(b'GET /health HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n')
            started = time.monotonic()
            got = outcome(late, 40)
            late_result.append(f'{got} after {time.monotonic() - started:.1f} s')
        except OSError as error:
            late_result.append(f'refused ({type(error).__name__})')
    late_thread = threading.Thread(target=late_request)
    late_thread.start()
    late_thread.join(1)
    exited = None
    for _ in range(100):
        if proc.poll() is not None:
            exited = time.monotonic() - sent
            break
        time.sleep(0.1)
    still = 'exited after %.1f s' % exited if exited is not None else 'still running 10 s after, with the idle keep-alive client open'
    idle.close()
    for t in threads:
        t.join()
    late_thread.join()
    late_result = late_result[0]
    if exited is None:
        for _ in range(100):
            if proc.poll() is not None:
                still += '; exited %.1f s after the signal once the idle client closed' % (time.monotonic() - sent)
                break
            time.sleep(0.1)
        else:
            proc.kill()
            still += '; killed'
    print(f'{name}: 20 half-sent requests: {results}; a new request 0.5 s after: {late_result}; the process {still}')
