//! The library carries no process-wide effect, read from its objects (Linux):
//! the rlib this test was built against (`target/<profile>/deps/
//! libbackend_targets.rlib`, its own objects only, none of std's or a
//! dependency's) holds no loader constructor (`.init_array`, `.ctors`), no
//! definition of the C library's allocation functions and no global
//! allocator. The source scan (`tests/library_effects.rs`) sees every target
//! at once; this sees what the compiler really emitted for this one. Uses
//! binutils' `objdump` and `nm`: missing, the test fails.
#![cfg(all(target_os = "linux", target_env = "gnu"))]

use std::path::PathBuf;
use std::process::Command;

/// The library's rlib beside this test (`libbackend_targets-<hash>.rlib`;
/// the newest, should another feature set have left one there too).
fn rlib() -> PathBuf {
    let deps = std::env::current_exe().unwrap().parent().unwrap().to_path_buf();
    let rlib = std::fs::read_dir(&deps)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            name.starts_with("libbackend_targets-") && name.ends_with(".rlib")
        })
        .max_by_key(|path| path.metadata().and_then(|m| m.modified()).ok());
    rlib.unwrap_or_else(|| panic!("no libbackend_targets-*.rlib in {}", deps.display()))
}

fn tool(name: &str, args: &[&str], rlib: &PathBuf) -> String {
    let output =
        Command::new(name).args(args).arg(rlib).output().unwrap_or_else(|e| panic!("{name} (binutils) is needed: {e}"));
    assert!(output.status.success(), "{name}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn the_library_objects_have_no_constructor_no_malloc_and_no_global_allocator() {
    let rlib = rlib();
    let sections = tool("objdump", &["-h"], &rlib);
    assert!(sections.contains("file format"), "objdump read the archive's objects");
    for section in [".init_array", ".ctors", ".preinit_array", ".fini_array", ".dtors"] {
        assert!(!sections.contains(section), "the library's objects have a {section} section: a constructor");
    }
    let defined = tool("nm", &["--defined-only"], &rlib);
    assert!(defined.lines().filter(|line| line.contains(" T ")).count() > 100, "nm read the library's functions");
    for line in defined.lines() {
        let symbol = line.rsplit(' ').next().unwrap_or("");
        for c_function in ["malloc", "calloc", "realloc", "free", "aligned_alloc", "posix_memalign"] {
            assert_ne!(symbol, c_function, "the library defines C's {c_function}");
        }
        // `#[global_allocator]` defines `__rust_alloc` and its kin (which
        // the library only calls, undefined); the allocator is the program's.
        for shim in ["__rust_alloc", "__rust_dealloc", "__rust_realloc"] {
            assert!(!symbol.contains(shim), "the library defines a global allocator: {symbol}");
        }
    }
}
