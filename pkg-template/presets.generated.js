// Generated from the core's preset table (src/target.rs, `preset_table!`) by
// tests/generated_js.rs: do not edit; `cargo xtask gen` writes it again.
// The full entry's presets (index.js re-exports them): wasm-bindgen's
// exports behind the entry's guard, each under its name in the module, and
// under the preset's own name where the glue reserves it.
import { guarded } from './guard.js';

export const portableCpu = guarded('portableCpu');
export const linuxCpu = guarded('linuxCpu');
export const macOSCpu = guarded('macOSCpu');
export const windowsCpu = guarded('windowsCpu');
export const linuxCuda = guarded('linuxCuda');
export const windowsCuda = guarded('windowsCuda');
export const linuxRocm = guarded('linuxRocm');
export const macOSMetal = guarded('macOSMetal');
export const wasmPreset = guarded('wasmPreset');
export const linuxTpu = guarded('linuxTpu');
export const linuxTrainium = guarded('linuxTrainium');
export const customChip = guarded('customChip');
export const external = guarded('external');
export { wasmPreset as wasm };
