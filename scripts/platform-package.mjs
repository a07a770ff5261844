// The platform packages of the native command, one table: each names npm's
// host (`os`, `cpu`, `libc`, the fields npm installs an optional dependency
// by) and the Rust target that builds its command. pkg-template/package.json
// lists them all as optional dependencies (tests/js/native-package.test.mjs
// holds the two equal); pkg-template/native.js finds the one for its host by
// the same name.
//
//   node scripts/platform-package.mjs NAME COMMAND OUT_DIR
//
// writes OUT_DIR/NAME/ (package.json, README.md, the licences, bin/ with
// COMMAND, the command built for that target) and packs it into
// dist/NAME-<version>.tgz. scripts/build.sh makes the one for this host
// (linux-x64-gnu here); another is made the same way on its own host or
// from a cross build (`cargo build --release --bin backend-targets --target
// <rust target>`), then this script: docs/npm-build.md, "Platform packages".
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** name suffix → npm's fields and the Rust target. */
export const PLATFORMS = {
  'linux-x64-gnu': { os: 'linux', cpu: 'x64', libc: 'glibc', rust: 'x86_64-unknown-linux-gnu' },
  'linux-arm64-gnu': { os: 'linux', cpu: 'arm64', libc: 'glibc', rust: 'aarch64-unknown-linux-gnu' },
  'linux-x64-musl': { os: 'linux', cpu: 'x64', libc: 'musl', rust: 'x86_64-unknown-linux-musl' },
  'darwin-arm64': { os: 'darwin', cpu: 'arm64', rust: 'aarch64-apple-darwin' },
  'win32-x64': { os: 'win32', cpu: 'x64', rust: 'x86_64-pc-windows-msvc' },
};

/** The npm name of a platform package. */
export const packageName = (suffix) => `backend-targets-${suffix}`;

/** The package.json of a platform package at `version`. */
export function manifest(suffix, version) {
  const platform = PLATFORMS[suffix];
  return {
    name: packageName(suffix),
    version,
    description: `The backend-targets native command for ${suffix} (${platform.rust}): what detectNative() runs `
      + 'from the backend-targets package. Installed by it as an optional dependency; not for direct use.',
    license: 'MIT OR Apache-2.0',
    os: [platform.os],
    cpu: [platform.cpu],
    ...(platform.libc === undefined ? {} : { libc: [platform.libc] }),
    files: ['bin/', 'README.md', 'LICENSE', 'LICENSE-APACHE'],
    preferUnplugged: true,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [suffix, command, outDir] = process.argv.slice(2);
  if (outDir === undefined || PLATFORMS[suffix] === undefined) {
    console.error(`usage: node scripts/platform-package.mjs NAME COMMAND OUT_DIR (NAME: ${Object.keys(PLATFORMS).join(', ')})`);
    process.exit(2);
  }
  const { version } = JSON.parse(readFileSync(join(ROOT, 'pkg-template', 'package.json'), 'utf8'));
  const dir = join(outDir, packageName(suffix));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'bin'), { recursive: true });
  const exe = PLATFORMS[suffix].os === 'win32' ? 'backend-targets.exe' : 'backend-targets';
  copyFileSync(command, join(dir, 'bin', exe));
  chmodSync(join(dir, 'bin', exe), 0o755);
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest(suffix, version), null, 2)}\n`);
  writeFileSync(join(dir, 'README.md'), `# ${packageName(suffix)}\n\nThe \`backend-targets\` native command built for `
    + `${suffix} (\`${PLATFORMS[suffix].rust}\`). The \`backend-targets\` package installs it as an optional dependency `
    + 'and its `detectNative()` runs it, in Node, to probe the host\'s CUDA, Metal, ROCm, TPU or Neuron runtime. '
    + 'Not for direct use: see the backend-targets package\'s README.\n');
  for (const licence of ['LICENSE', 'LICENSE-APACHE']) copyFileSync(join(ROOT, licence), join(dir, licence));
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', join(ROOT, 'dist')], { cwd: dir, encoding: 'utf8' }).trim();
  console.log(`dist/${tarball}`);
}
