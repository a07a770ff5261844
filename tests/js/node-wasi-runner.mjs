// Runs a WASI command module under node:wasi with this process's stdio:
//   node node-wasi-runner.mjs MODULE.wasm [ARGS...]
// Exits with the module's exit status. No preopened directories, no environment.
import { WASI } from 'node:wasi';
import { readFileSync } from 'node:fs';

process.removeAllListeners('warning'); // node:wasi prints an ExperimentalWarning
const [modulePath, ...args] = process.argv.slice(2);
const wasi = new WASI({ version: 'preview1', args: ['backend-targets', ...args], env: {}, returnOnExit: true });
const instance = await WebAssembly.instantiate(await WebAssembly.compile(readFileSync(modulePath)), wasi.getImportObject());
process.exitCode = wasi.start(instance);
