//! Opening a vendor library the way the system's dynamic loader finds it
//! (`LD_LIBRARY_PATH`, the loader cache, the system directories; on Windows
//! the system directories and the application's, never the working
//! directory), and asking the loader which file it opened.

use std::ffi::OsStr;

use libloading::Library;

/// A library that loaded, with the file the loader resolved.
pub(crate) struct Loaded {
    pub library: Library,
    pub path: String,
}

/// Opens the first of `candidates` that loads (newest first). On failure,
/// every candidate's loader message, joined: the one that says which
/// dependency is missing is among them.
pub(crate) fn open_first<S: AsRef<OsStr>>(candidates: &[S]) -> Result<Loaded, String> {
    let mut messages = Vec::new();
    for name in candidates {
        match open(name.as_ref()) {
            Ok(loaded) => return Ok(loaded),
            Err(message) => messages.push(message),
        }
    }
    Err(messages.join("; "))
}

/// Copies a function pointer out of `library` (which must outlive its use).
/// `T` must be the entry point's C signature.
pub(crate) fn symbol<T: Copy>(library: &Library, name: &str) -> Result<T, String> {
    let mut bytes = name.as_bytes().to_vec();
    bytes.push(0);
    // SAFETY: the callers name each entry point with its documented C signature.
    unsafe { library.get::<T>(&bytes) }.map(|s| *s).map_err(|_| format!("the library has no `{name}`"))
}

/// Opens one library by name (searched) or by path (a `/` in it).
pub(crate) fn open(name: &OsStr) -> Result<Loaded, String> {
    // SAFETY: loading runs the library's initialisers; the caller runs this in
    // a check, which the command isolates in a child process (`isolate`).
    let library = unsafe { load(name) }.map_err(|error| loader_message(name, &error))?;
    let (library, path) = resolved_path(library);
    let path = path.unwrap_or_else(|| name.to_string_lossy().into_owned());
    Ok(Loaded { library, path })
}

#[cfg(not(windows))]
unsafe fn load(name: &OsStr) -> Result<Library, libloading::Error> {
    // dlopen searches LD_LIBRARY_PATH, the cache and the system directories
    // for a bare name; never the working directory.
    unsafe { Library::new(name) }
}

#[cfg(windows)]
unsafe fn load(name: &OsStr) -> Result<Library, libloading::Error> {
    use libloading::os::windows::{LOAD_LIBRARY_SEARCH_DEFAULT_DIRS, Library as WindowsLibrary};
    // The application's directory, System32 and AddDllDirectory's: not the
    // working directory nor PATH (LoadLibrary's default would search both).
    unsafe { WindowsLibrary::load_with_flags(name, LOAD_LIBRARY_SEARCH_DEFAULT_DIRS) }.map(Library::from)
}

/// The loader's own words (they name a missing dependency), without the
/// wrapper's prefix.
fn loader_message(name: &OsStr, error: &libloading::Error) -> String {
    let text = match error {
        libloading::Error::DlOpen { desc } => format!("{desc:?}"),
        other => other.to_string(),
    };
    // `DlDescription`'s Debug is the C string quoted; unquote it.
    let text = text.trim_matches('"').to_string();
    let name = name.to_string_lossy();
    if text.contains(name.as_ref()) { text } else { format!("{name}: {text}") }
}

/// The file the loader opened for `library` (glibc's `dlinfo`).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn resolved_path(library: Library) -> (Library, Option<String>) {
    use libloading::os::unix::Library as UnixLibrary;
    use std::ffi::{CStr, c_char, c_void};

    // The public head of glibc's `struct link_map` (<link.h>).
    #[repr(C)]
    struct LinkMap {
        l_addr: usize,
        l_name: *const c_char,
    }

    let handle = UnixLibrary::from(library).into_raw();
    let mut map: *const LinkMap = std::ptr::null();
    // SAFETY: `handle` is a live dlopen handle; RTLD_DI_LINKMAP writes a pointer.
    let status = unsafe { libc::dlinfo(handle, libc::RTLD_DI_LINKMAP, (&raw mut map).cast::<c_void>()) };
    let path = if status != 0 || map.is_null() {
        None
    } else {
        // SAFETY: the link map lives as long as the handle; `l_name` is a C string.
        let name = unsafe { (*map).l_name };
        (!name.is_null()).then(|| unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned())
    };
    // SAFETY: the handle came from `into_raw` above and is still open.
    let library = Library::from(unsafe { UnixLibrary::from_raw(handle) });
    (library, path.filter(|p| !p.is_empty()))
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn resolved_path(library: Library) -> (Library, Option<String>) {
    (library, None)
}
