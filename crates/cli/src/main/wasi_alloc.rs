//! The WASI command's allocator (`wasm32-wasip1` only): talc, as in the
//! browser build, for Rust's allocations, and the C library's allocation
//! functions over it (`malloc`, `calloc`, `realloc`, `free`,
//! `aligned_alloc`, `posix_memalign`, `malloc_usable_size`: all that
//! wasi-libc's dlmalloc defines), so that dlmalloc is not linked at all
//! (wasi-libc itself allocates only for its table of preopened folders and
//! the like). dlmalloc was some 11 KB of the module's code; talc and these
//! functions some 3 KB. (The wasi:http component, wasm32-wasip2, keeps
//! wasi-libc's allocator.)
//!
//! A failed allocation returns null, as before: Rust's then reports
//! `memory allocation of N bytes failed` and aborts, and the C library's
//! callers see `ENOMEM`.
//!
//! The command's module, not the library's: a global allocator and the C
//! library's `malloc` are choices for a whole program, which a library user
//! makes for their own.

use std::alloc::{GlobalAlloc, Layout};

#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// The least alignment of a C allocation (`malloc`'s must suit any type),
/// and the room before each pointer for its size and alignment.
const HEADER: usize = 16;

/// Allocates `size` bytes aligned to `align` for C, zeroed or not: the
/// pointer is `align` bytes into its block, and the two words before it hold
/// `size` and `align`. Null when that cannot be.
fn allocate(size: usize, align: usize, zeroed: bool) -> *mut u8 {
    let align = align.max(HEADER);
    let Some(layout) = size.checked_add(align).and_then(|total| Layout::from_size_align(total, align).ok()) else {
        return std::ptr::null_mut();
    };
    // SAFETY: the layout's size is not zero (it holds `align`).
    let block = unsafe { if zeroed { ALLOCATOR.alloc_zeroed(layout) } else { ALLOCATOR.alloc(layout) } };
    if block.is_null() {
        return block;
    }
    // SAFETY: the block holds `align` (at least 16) bytes before the
    // pointer, the header's two aligned words among them.
    unsafe {
        let pointer = block.add(align);
        pointer.cast::<usize>().sub(2).write(size);
        pointer.cast::<usize>().sub(1).write(align);
        pointer
    }
}

/// The block behind a C pointer, its layout, and the size asked for.
///
/// # Safety
/// `pointer` is not null and came from `allocate`, not yet freed.
unsafe fn block_of(pointer: *mut u8) -> (*mut u8, Layout, usize) {
    // SAFETY: `allocate` wrote the header before the pointer, and had made the
    // block with exactly this layout.
    unsafe {
        let size = pointer.cast::<usize>().sub(2).read();
        let align = pointer.cast::<usize>().sub(1).read();
        (pointer.sub(align), Layout::from_size_align_unchecked(size + align, align), size)
    }
}

/// C's `malloc`.
#[unsafe(no_mangle)]
pub extern "C" fn malloc(size: usize) -> *mut u8 {
    allocate(size, HEADER, false)
}

/// C's `calloc`: zeroed.
#[unsafe(no_mangle)]
pub extern "C" fn calloc(count: usize, size: usize) -> *mut u8 {
    count.checked_mul(size).map_or(std::ptr::null_mut(), |size| allocate(size, HEADER, true))
}

/// C's `aligned_alloc`: null for an alignment that is not a power of two.
#[unsafe(no_mangle)]
pub extern "C" fn aligned_alloc(align: usize, size: usize) -> *mut u8 {
    if !align.is_power_of_two() {
        return std::ptr::null_mut();
    }
    allocate(size, align, false)
}

/// C's `posix_memalign`: 0, or `EINVAL` for an alignment that is not a power
/// of two times the size of a pointer, or `ENOMEM`.
///
/// # Safety
/// As C's: `out` is valid for a write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn posix_memalign(out: *mut *mut u8, align: usize, size: usize) -> i32 {
    const EINVAL: i32 = 28;
    const ENOMEM: i32 = 48;
    if !align.is_power_of_two() || !align.is_multiple_of(size_of::<usize>()) {
        return EINVAL;
    }
    let pointer = allocate(size, align, false);
    if pointer.is_null() {
        return ENOMEM;
    }
    // SAFETY: the caller's contract.
    unsafe { out.write(pointer) };
    0
}

/// C's `realloc`: a null pointer allocates; on failure the old block stays.
///
/// # Safety
/// As C's: `pointer` is null or came from these functions, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn realloc(pointer: *mut u8, size: usize) -> *mut u8 {
    if pointer.is_null() {
        return malloc(size);
    }
    // SAFETY: the caller's contract.
    let (block, layout, _) = unsafe { block_of(pointer) };
    let align = layout.align();
    let Some(total) = size.checked_add(align).filter(|total| Layout::from_size_align(*total, align).is_ok()) else {
        return std::ptr::null_mut();
    };
    // SAFETY: the block was allocated with `layout`; the new size is a valid
    // layout with the same alignment (checked above), and keeps the header's
    // room in front.
    unsafe {
        let block = ALLOCATOR.realloc(block, layout, total);
        if block.is_null() {
            return block;
        }
        let pointer = block.add(align);
        pointer.cast::<usize>().sub(2).write(size);
        pointer
    }
}

/// C's `free`: null is ignored.
///
/// # Safety
/// As C's: `pointer` is null or came from these functions, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn free(pointer: *mut u8) {
    if pointer.is_null() {
        return;
    }
    // SAFETY: the caller's contract; the block was allocated with this layout.
    unsafe {
        let (block, layout, _) = block_of(pointer);
        ALLOCATOR.dealloc(block, layout);
    }
}

/// C's `malloc_usable_size`: the size asked for (0 for null).
///
/// # Safety
/// As C's: `pointer` is null or came from these functions, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn malloc_usable_size(pointer: *mut u8) -> usize {
    if pointer.is_null() {
        return 0;
    }
    // SAFETY: the caller's contract.
    unsafe { block_of(pointer).2 }
}

#[cfg(test)]
mod tests {
    //! Under wasmtime: `cargo test --target wasm32-wasip1 --bin
    //! backend-targets wasi_alloc` (the runner is set in .cargo/config.toml;
    //! scripts/test.sh runs it).

    use super::*;

    #[test]
    fn each_c_allocation_is_aligned_sized_and_freed() {
        let pointer = malloc(100);
        assert_eq!(pointer as usize % HEADER, 0);
        // SAFETY: 100 bytes from `malloc`, freed once below.
        unsafe {
            pointer.write_bytes(7, 100);
            assert_eq!(malloc_usable_size(pointer), 100);
            let grown = realloc(pointer, 10_000);
            assert_eq!(std::slice::from_raw_parts(grown, 100), [7; 100], "realloc keeps the contents");
            assert_eq!(malloc_usable_size(grown), 10_000);
            let shrunk = realloc(grown, 3);
            assert_eq!(std::slice::from_raw_parts(shrunk, 3), [7; 3]);
            free(shrunk);
            free(std::ptr::null_mut());
            assert_eq!(malloc_usable_size(std::ptr::null_mut()), 0);
        }
    }

    #[test]
    fn calloc_zeroes_and_refuses_an_overflowing_product() {
        // SAFETY: freed once; the dirty block is written before it is freed.
        unsafe {
            let dirty = malloc(4096);
            dirty.write_bytes(0xff, 4096);
            free(dirty);
            let clean = calloc(64, 64);
            assert!(std::slice::from_raw_parts(clean, 4096).iter().all(|&b| b == 0));
            free(clean);
        }
        assert!(calloc(usize::MAX, 2).is_null());
        assert!(malloc(usize::MAX - 8).is_null());
        // SAFETY: a live pointer from `malloc`, and a size no layout can
        // hold: `realloc` refuses it and keeps the block, freed once here.
        unsafe {
            let kept = malloc(1);
            assert!(realloc(kept, usize::MAX - 8).is_null());
            free(kept);
        }
    }

    #[test]
    fn aligned_allocations_keep_their_alignment_through_realloc() {
        for align in [16, 64, 4096] {
            let pointer = aligned_alloc(align, 10);
            assert_eq!(pointer as usize % align, 0, "{align}");
            // SAFETY: 10 bytes from `aligned_alloc`, freed once.
            unsafe {
                pointer.write_bytes(1, 10);
                let moved = realloc(pointer, 100_000);
                assert_eq!(moved as usize % align, 0, "{align}");
                assert_eq!(std::slice::from_raw_parts(moved, 10), [1; 10]);
                free(moved);
            }
        }
        assert!(aligned_alloc(24, 10).is_null());
        let mut out = std::ptr::null_mut();
        // SAFETY: `out` is a valid place for the pointer.
        unsafe {
            assert_eq!(posix_memalign(&mut out, 256, 1), 0);
            assert_eq!(out as usize % 256, 0);
            free(out);
            assert_eq!(posix_memalign(&mut out, 2, 1), 28, "EINVAL: not a multiple of a pointer's size");
            assert_eq!(posix_memalign(&mut out, 48, 1), 28, "EINVAL: not a power of two");
        }
    }
}
