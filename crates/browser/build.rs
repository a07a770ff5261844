//! Declares the `browser` cfg alias and caps the
//! browser module's memory.

fn main() {
    // `cfg(browser)`: the module's code, built for wasm32-unknown-unknown
    // only (wgpu's own build.rs declares its aliases so); elsewhere the crate
    // is empty.
    cfg_aliases::cfg_aliases! {
        browser: { all(target_arch = "wasm32", target_os = "unknown") },
    }
    // The module's memory stops at 2 GiB (see the allocator in src/api.rs):
    // far above what the request limits let a plan use, and clear of the
    // 4 GiB edge of a 32-bit address space.
    let target = |name| std::env::var(name).unwrap_or_default();
    if target("CARGO_CFG_TARGET_ARCH") == "wasm32" && target("CARGO_CFG_TARGET_OS") == "unknown" {
        println!("cargo::rustc-link-arg=--max-memory={MAX_BROWSER_MEMORY}");
    }
}

/// The module's maximum memory: 2 GiB (32,768 pages of 64 KiB).
const MAX_BROWSER_MEMORY: u64 = 2 << 30;
