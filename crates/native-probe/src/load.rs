//! Opening a vendor library the way the system's dynamic loader finds it
//! (`LD_LIBRARY_PATH`'s absolute entries, the loader cache, the system
//! directories; on Windows the system directories and the application's),
//! never from the working directory; asking the loader which file it opened;
//! and reading what a library hands back (function pointers, C strings)
//! within bounds.

use std::ffi::{OsStr, c_char};
use std::path::{Path, PathBuf};

use libloading::Library;

/// A library that loaded: the handle, the absolute path of the file the
/// loader opened (symlinks resolved), the path as the loader knows it (links
/// not resolved: what the library's own `$ORIGIN` means), and the name it
/// was asked for.
pub(crate) struct Loaded {
    pub library: Library,
    pub path: String,
    pub loaded_as: PathBuf,
    pub name: String,
}

/// The loader's search path (`LD_LIBRARY_PATH`) split into the entries the
/// checks search (absolute folders) and those they must not: an empty entry
/// (a trailing `:`, which `export LD_LIBRARY_PATH=/x:$LD_LIBRARY_PATH`
/// leaves when the variable was unset) and a relative one (`.`, `lib`) make
/// the loader search the working directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct LoaderPath {
    /// The absolute entries, in order.
    pub kept: Vec<PathBuf>,
    /// The entries left out, as written (`""` for an empty one).
    pub ignored: Vec<String>,
}

/// The variable the loader searches for a bare name.
#[cfg(target_os = "macos")]
pub(crate) const LOADER_PATH_VARIABLE: &str = "DYLD_LIBRARY_PATH";
#[cfg(not(target_os = "macos"))]
pub(crate) const LOADER_PATH_VARIABLE: &str = "LD_LIBRARY_PATH";

impl LoaderPath {
    /// This process's loader path, from its environment.
    pub fn from_env() -> Self {
        Self::parse(std::env::var_os(LOADER_PATH_VARIABLE).as_deref())
    }

    /// Splits a `LD_LIBRARY_PATH` value (`None`: unset).
    pub fn parse(value: Option<&OsStr>) -> Self {
        let mut path = Self::default();
        let Some(value) = value else { return path };
        #[cfg(unix)]
        let entries: Vec<&OsStr> = {
            use std::os::unix::ffi::OsStrExt;
            value.as_bytes().split(|&b| b == b':').map(OsStr::from_bytes).collect()
        };
        #[cfg(not(unix))]
        let entries: Vec<&OsStr> = vec![value];
        for entry in entries {
            let folder = Path::new(entry);
            if folder.is_absolute() {
                path.kept.push(folder.to_path_buf());
            } else {
                path.ignored.push(entry.to_string_lossy().into_owned());
            }
        }
        path
    }

    /// The value to give a check's process: the kept entries (`None`: unset it).
    #[cfg(unix)]
    pub fn value(&self) -> Option<std::ffi::OsString> {
        (!self.kept.is_empty()).then(|| std::env::join_paths(&self.kept).unwrap_or_default())
    }

    /// Whether a bare `name` would be found in the working directory
    /// through an ignored entry (this process's loader still searches them),
    /// said as a sentence.
    pub fn shadowed_in_working_directory(&self, name: &OsStr) -> Option<String> {
        self.ignored.iter().find(|entry| Path::new(entry.as_str()).join(name).exists()).map(|entry| {
            let shown = if entry.is_empty() { "an empty entry".to_string() } else { format!("the entry `{entry}`") };
            format!(
                "{}: found in the working directory through {shown} of {LOADER_PATH_VARIABLE}, and not loaded",
                name.to_string_lossy()
            )
        })
    }
}

/// Opens the first of `candidates` that loads (newest first). On failure,
/// every candidate's loader message, joined: the one that says which
/// dependency is missing is among them.
///
/// # Safety
///
/// As [`open`]'s, for each candidate it tries: the libraries load into this
/// process.
pub(crate) unsafe fn open_first<S: AsRef<OsStr>>(candidates: &[S], search: &LoaderPath) -> Result<Loaded, String> {
    let mut messages = Vec::new();
    for name in candidates {
        // SAFETY: forwarded: this function's contract is `open`'s.
        match unsafe { open(name.as_ref(), search) } {
            Ok(loaded) => return Ok(loaded),
            Err(message) => messages.push(message),
        }
    }
    Err(messages.join("; "))
}

/// Copies the entry point `name` out of `library`.
///
/// # Safety
///
/// `T` must be the entry point's C signature, as an `unsafe extern "C" fn`
/// pointer type: calling the result with another signature is undefined
/// behaviour. The pointer is valid only while `library` stays loaded; the
/// checks never unload their libraries (they `forget` them), so it lives as
/// long as the process.
pub(crate) unsafe fn symbol<T: Copy>(library: &Library, name: &str) -> Result<T, String> {
    let mut bytes = name.as_bytes().to_vec();
    bytes.push(0);
    // SAFETY: forwarded to the caller (the signature); the symbol is copied
    // out while the library is loaded.
    unsafe { library.get::<T>(&bytes) }.map(|s| *s).map_err(|_| format!("the library has no `{name}`"))
}

/// The text a library wrote into `buffer`: up to its first NUL, or the
/// whole buffer when it wrote none (never past its end), as UTF-8 with
/// invalid bytes replaced.
pub(crate) fn text_in(buffer: &[c_char]) -> String {
    // c_char is i8 (x86_64) or u8 (aarch64 Linux) by platform: its one byte,
    // the same either way, without a cast that is a no-op on one of them.
    let bytes: Vec<u8> = buffer.iter().map(|&c| c.to_ne_bytes()[0]).take_while(|&b| b != 0).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The longest C string a library returns (an error name) that is read:
/// a longer one is cut there.
pub(crate) const MAX_RETURNED_TEXT: usize = 256;

/// A C string a library returned (a pointer to its static text), read at
/// most [`MAX_RETURNED_TEXT`] bytes.
///
/// # Safety
///
/// `text` must be null or point to memory readable up to its NUL or
/// [`MAX_RETURNED_TEXT`] bytes, whichever comes first (what a library's
/// documented "returns a static string" promises).
pub(crate) unsafe fn returned_text(text: *const c_char) -> Option<String> {
    if text.is_null() {
        return None;
    }
    // SAFETY: the caller's promise; strnlen reads no further than the bound.
    #[cfg(unix)]
    let length = unsafe { libc::strnlen(text, MAX_RETURNED_TEXT) };
    #[cfg(not(unix))]
    let length = {
        let mut n = 0;
        // SAFETY: as above, one byte at a time up to the bound.
        while n < MAX_RETURNED_TEXT && unsafe { *text.add(n) } != 0 {
            n += 1;
        }
        n
    };
    // SAFETY: `length` bytes were just read.
    let bytes = unsafe { std::slice::from_raw_parts(text.cast::<u8>(), length) };
    Some(String::from_utf8_lossy(bytes).into_owned())
}

/// Opens one library by name (searched) or by path (a `/` in it).
///
/// # Safety
///
/// The library loads into this process: the loader runs its initialisers
/// (and those of the libraries it needs) here, foreign code that may do
/// anything to the process (crash or abort it, exit it, hang, write to its
/// stdout or stderr, change its signal dispositions or environment, start
/// threads or processes), and it stays loaded. The caller must ensure that
/// this process may suffer that: it is a check's own child process, which
/// the probe started to be given up ([`serve_check`](crate::serve_check)), or a process whose
/// owner accepted it for itself ([`probe_in_threads`](crate::probe_in_threads)).
pub(crate) unsafe fn open(name: &OsStr, search: &LoaderPath) -> Result<Loaded, String> {
    let shown = name.to_string_lossy().into_owned();
    let path = Path::new(name);
    if path.components().count() > 1 && !path.is_absolute() {
        return Err(format!("{shown}: a relative path, which names the working directory, is not loaded"));
    }
    // A bare name, where this process's own loader path has entries that
    // name the working directory (a check on a thread of a caller started
    // so; a check's process gets a clean path): the absolute entries first,
    // by path, as the loader would search them; then the loader's own search
    // (its cache, the system folders), unless the ignored entries would find
    // the name in the working directory first.
    let mut target = name.to_os_string();
    if path.components().count() == 1 && !search.ignored.is_empty() {
        if let Some(found) = search.kept.iter().map(|dir| dir.join(name)).find(|p| p.exists()) {
            target = found.into_os_string();
        } else if let Some(message) = search.shadowed_in_working_directory(name) {
            return Err(message);
        }
    }
    // The loader runs the library's initialisers (and its dependencies'):
    // the step a process that ends here ended in (a library's `exit(N)`).
    super::step(|| format!("the load of {shown} (its initialisers)"));
    // SAFETY: forwarded: `load`'s contract is this function's (the caller's).
    let library = unsafe { load(&target) }.map_err(|error| loader_message(name, &error))?;
    // What runs next in vendor code is a call into it (or its threads).
    super::step(|| format!("a call into {shown}"));
    let (library, resolved) = resolved_path(library);
    let loaded_as = resolved.map_or_else(|| PathBuf::from(&target), PathBuf::from);
    let path = std::fs::canonicalize(&loaded_as).unwrap_or_else(|_| loaded_as.clone()).to_string_lossy().into_owned();
    Ok(Loaded { library, path, loaded_as, name: shown })
}

/// The file names of the objects loaded in this process (the program, its
/// libraries and every library they pulled in), as the loader knows them.
#[cfg(target_os = "linux")]
pub(crate) fn loaded_objects() -> Vec<String> {
    use std::ffi::{CStr, c_int, c_void};
    unsafe extern "C" fn each(info: *mut libc::dl_phdr_info, _size: usize, names: *mut c_void) -> c_int {
        // SAFETY: the loader passes a valid `dl_phdr_info` whose `dlpi_name`
        // is null or its own NUL-terminated copy of the path; `names` is the
        // vector passed to dl_iterate_phdr below.
        unsafe {
            let name = (*info).dlpi_name;
            if !name.is_null() {
                let names = &mut *names.cast::<Vec<String>>();
                names.push(CStr::from_ptr(name).to_string_lossy().into_owned());
            }
        }
        0
    }
    let mut names: Vec<String> = Vec::new();
    // SAFETY: `each` only reads what the loader hands it and pushes to `names`,
    // which outlives the call.
    unsafe { libc::dl_iterate_phdr(Some(each), (&raw mut names).cast()) };
    names
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn loaded_objects() -> Vec<String> {
    Vec::new()
}

/// Loads a vendor library by name (searched) or path.
///
/// # Safety
/// Loading runs the library's initialisers (and those of what it needs):
/// foreign code that may do anything to this process. The caller accepts
/// that for the process it runs in: a check's own process, or a caller who
/// chose to probe in its own.
#[cfg(not(windows))]
unsafe fn load(name: &OsStr) -> Result<Library, libloading::Error> {
    // dlopen searches LD_LIBRARY_PATH, the cache and the system directories
    // for a bare name; a path is opened as it is.
    // SAFETY: `Library::new`'s contract is this function's (the caller's).
    unsafe { Library::new(name) }
}

/// Loads a vendor library by name (searched) or path.
///
/// # Safety
/// As on Unix: loading runs the library's initialisers, which the caller
/// accepts for the process it runs in.
#[cfg(windows)]
unsafe fn load(name: &OsStr) -> Result<Library, libloading::Error> {
    use libloading::os::windows::{LOAD_LIBRARY_SEARCH_DEFAULT_DIRS, Library as WindowsLibrary};
    // The application's directory, System32 and AddDllDirectory's: not the
    // working directory nor PATH (LoadLibrary's default would search both).
    // SAFETY: `load_with_flags`'s contract is this function's (the caller's);
    // the flags are valid `LoadLibraryExW` flags.
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
    use std::ffi::{CStr, c_void};

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
        // SAFETY: the link map lives as long as the handle; `l_name` is the
        // loader's own NUL-terminated copy of the path.
        let name = unsafe { (*map).l_name };
        // SAFETY: as above: not null (checked), NUL-terminated, and copied
        // before the handle is given back below.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_relative_entries_are_left_out() {
        let path = LoaderPath::parse(Some(OsStr::new("/a::lib:.:/b/c:")));
        assert_eq!(path.kept, [PathBuf::from("/a"), PathBuf::from("/b/c")]);
        assert_eq!(path.ignored, ["", "lib", ".", ""]);
        assert_eq!(path.value(), Some(std::ffi::OsString::from("/a:/b/c")));
        assert_eq!(LoaderPath::parse(None), LoaderPath::default());
        assert_eq!(LoaderPath::parse(Some(OsStr::new(""))).ignored, [""]);
        assert_eq!(LoaderPath::parse(Some(OsStr::new(":"))).value(), None);
    }

    #[test]
    fn text_is_read_within_the_buffer() {
        let full = [b'A' as c_char; 8];
        assert_eq!(text_in(&full), "AAAAAAAA");
        let mut short = [0 as c_char; 8];
        short[0] = b'G' as c_char;
        short[2] = b'X' as c_char;
        assert_eq!(text_in(&short), "G");
        let long = vec![b'e'; MAX_RETURNED_TEXT * 4].into_iter().chain([0]).map(|b| b as c_char).collect::<Vec<_>>();
        // SAFETY: a NUL-terminated buffer.
        assert_eq!(unsafe { returned_text(long.as_ptr()) }.unwrap().len(), MAX_RETURNED_TEXT);
        // SAFETY: null is allowed.
        assert_eq!(unsafe { returned_text(std::ptr::null()) }, None);
    }
}
