// Deterministic plan requests for the planner benchmark: all 68 ops against a
// catalog of N capsules (the first 68 are the CPU reference capsules, so the
// CPU config always plans), two configs tried in order.
export const OPS = 'randUniform bernoulliMask add sub mul scale abs sqrt clamp max min relu gelu sigmoid tanh softplus exp log sin cos inv safeLog logSoftmax softmax sum reduceSum reduceMean flatten reshape permute transpose2d swapAdjacentAtDepth transpose3dFirstToLast transpose3dLastToFirst transpose3dLastTwo broadcastTo concatVectors concatLeadingAxis sliceLeadingAxisRange gatherScalar gatherScalarNat gatherRow gatherVecNat gatherRowsNat scatterAddVec scatterAddRow matmul bmm linear mseLoss layerNorm batchNorm batchNormChannelFirst conv conv2d convTranspose convTranspose2d maxPool maxPool2d maxPool2dPad smoothMaxPool smoothMaxPool2d avgPool avgPool2d avgPool2dPad fftFno selectiveScan scaledDotProductAttention'.split(' ');

const KINDS = [
  ['cuBLAS', 'cuda'], ['libTorch', 'cuda'], ['nativeCuda', 'cuda'], ['webGpu', 'wasm'],
  ['xla', 'tpu'], ['reference', 'cpu'], ['cuDNN', 'cuda'],
];
const TRUST = ['verified', 'checked', 'fuzzed', 'trustedExternal'];
const VJP = ['none', 'torchLeanTape', 'backendVJP', 'externalAutograd'];

export function planRequest(n, { explain = false } = {}) {
  const capsules = [];
  for (let i = 0; i < n; i++) {
    const op = OPS[i % OPS.length];
    if (i < OPS.length) {
      capsules.push({ name: `reference.${op}`, op, provider: 'reference', device: 'cpu', trustLevel: 'checked', vjpMode: 'torchLeanTape' });
      continue;
    }
    const [provider, device] = KINDS[(i * 7 + (i >> 6)) % KINDS.length];
    capsules.push({
      name: `k${i}.${provider}.${op}`, op, provider, device,
      trustLevel: TRUST[(i >> 3) % TRUST.length],
      supportsForward: i % 29 !== 0,
      vjpMode: VJP[(i >> 5) % VJP.length],
    });
  }
  return {
    ops: OPS,
    target: { os: 'linux', arch: 'x86_64', accelerator: 'cuda', features: ['nativeCuda', 'cuBLAS', 'cuFFT', 'libTorch'] },
    configs: [
      { device: 'cuda', backend: { prefer: 'cuBLAS' }, trustPolicy: 'fuzzedOk', vjpMode: 'none' },
      { device: 'cpu' },
    ],
    capsules,
    explain,
  };
}
