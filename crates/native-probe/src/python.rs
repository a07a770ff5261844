//! Where a Python environment keeps vendor libraries that the loader does
//! not search: NVIDIA's wheels put them in `site-packages/nvidia/*/lib`,
//! PyTorch in `site-packages/torch/lib`. A library check that finds nothing
//! on the loader's path names what is there (a hint, never a load); with
//! `LIBTORCH_USE_PYTORCH` the libtorch check takes PyTorch's copy, as `tch`
//! does. The environments are found from the environment and the file
//! system only (`VIRTUAL_ENV`, `CONDA_PREFIX`, the `python3` on `PATH`
//! followed through its links and pyenv's shims, the user's `~/.local`):
//! no Python is run.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use backend_targets::probe::native::NativeCheck;

/// At most this many folders are looked at in one place (a `site-packages`
/// with thousands of entries is not listed).
const MAX_ENTRIES: usize = 4096;

fn entries(dir: &Path) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut list: Vec<PathBuf> = read.filter_map(Result::ok).take(MAX_ENTRIES).map(|e| e.path()).collect();
    list.sort();
    list
}

/// The prefixes of the active Python environments, most specific first.
fn prefixes() -> Vec<PathBuf> {
    let mut list = Vec::new();
    for variable in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(value) = std::env::var_os(variable).map(PathBuf::from).filter(|p| p.is_absolute()) {
            list.push(value);
        }
    }
    if let Some(python) = python_on_path() {
        list.extend(prefix_of(&python));
    }
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from).filter(|p| p.is_absolute()) {
        list.push(home.join(".local"));
    }
    let mut unique = Vec::new();
    for prefix in list {
        if !unique.contains(&prefix) {
            unique.push(prefix);
        }
    }
    unique
}

/// The first `python3` in `PATH`'s absolute entries.
fn python_on_path() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).filter(|dir| dir.is_absolute()).map(|dir| dir.join("python3")).find(|p| p.is_file())
}

/// A `python3`'s prefix: `<prefix>/bin/python3.X` after its links; a pyenv
/// shim stands for `$PYENV_ROOT/versions/<version>` (`PYENV_VERSION`, else
/// pyenv's global `version` file).
fn prefix_of(python: &Path) -> Vec<PathBuf> {
    let real = std::fs::canonicalize(python).unwrap_or_else(|_| python.to_path_buf());
    let bin = real.parent().unwrap_or(Path::new("/"));
    if bin.file_name() == Some(OsStr::new("shims")) {
        let root = bin.parent().unwrap_or(Path::new("/"));
        let version = std::env::var("PYENV_VERSION").ok().or_else(|| {
            let text = std::fs::read_to_string(root.join("version")).ok()?;
            text.lines().next().map(|line| line.trim().to_string())
        });
        return version
            .filter(|v| !v.is_empty() && !v.contains('/') && v != "system")
            .map(|v| vec![root.join("versions").join(v)])
            .unwrap_or_default();
    }
    let prefix = bin.parent().unwrap_or(Path::new("/")).to_path_buf();
    // Debian's pip installs beside the system Python, under /usr/local.
    if prefix == Path::new("/usr") { vec![prefix, PathBuf::from("/usr/local")] } else { vec![prefix] }
}

/// The `site-packages` (and Debian's `dist-packages`) folders of a prefix.
fn package_folders(prefix: &Path) -> Vec<PathBuf> {
    let mut list = Vec::new();
    for lib in [prefix.join("lib"), prefix.join("lib64")] {
        for version in entries(&lib) {
            let named = version.file_name().and_then(OsStr::to_str).is_some_and(|n| n.starts_with("python3"));
            if named {
                list.extend(
                    ["site-packages", "dist-packages"].map(|f| version.join(f)).into_iter().filter(|p| p.is_dir()),
                );
            }
        }
    }
    list
}

/// Where `file` sits in one package folder: `nvidia/*/lib/`, `torch/lib/`.
fn find_in(folder: &Path, file: &str) -> Option<PathBuf> {
    let mut places: Vec<PathBuf> = entries(&folder.join("nvidia")).into_iter().map(|d| d.join("lib")).collect();
    places.push(folder.join("torch").join("lib"));
    places.into_iter().map(|lib| lib.join(file)).find(|p| p.is_file())
}

fn everywhere(file: &str) -> Option<PathBuf> {
    prefixes().iter().flat_map(|p| package_folders(p)).find_map(|folder| find_in(&folder, file))
}

/// PyTorch's libtorch in the active Python environment.
pub(crate) fn torch_library(file: &str) -> Option<PathBuf> {
    prefixes()
        .iter()
        .flat_map(|p| package_folders(p))
        .map(|folder| folder.join("torch").join("lib").join(file))
        .find(|p| p.is_file())
}

/// A sentence naming where one of `names` sits in a Python environment,
/// outside the loader's path.
pub(crate) fn hint(check: NativeCheck, names: &[String]) -> Option<String> {
    let (name, found) = names
        .iter()
        .filter(|n| !n.contains('/'))
        .find_map(|name| everywhere(name).map(|found| (name.as_str(), found)))?;
    let folder = found.parent().map(|p| p.display().to_string()).unwrap_or_default();
    let advice = if check == NativeCheck::LibTorch {
        "set LIBTORCH_USE_PYTORCH=1 (as for tch), or add its folder to LD_LIBRARY_PATH".to_string()
    } else {
        format!("add {folder} to LD_LIBRARY_PATH to use it here")
    };
    Some(format!(
        "{name} is in a Python environment ({}), which is not on the loader's path: {advice}",
        found.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pyenv_shim_stands_for_its_version_and_a_real_python_for_its_prefix() {
        let root = std::env::temp_dir().join(format!("bt-python-{}", std::process::id()));
        let shims = root.join("shims");
        std::fs::create_dir_all(&shims).unwrap();
        std::fs::write(shims.join("python3"), "#!/bin/sh\n").unwrap();
        std::fs::write(root.join("version"), "3.11.7\n").unwrap();
        if std::env::var_os("PYENV_VERSION").is_none() {
            assert_eq!(prefix_of(&shims.join("python3")), [root.join("versions/3.11.7")]);
        }
        let bin = root.join("env/bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(bin.join("python3"), "").unwrap();
        assert_eq!(prefix_of(&bin.join("python3")), [root.join("env")]);
        let site = root.join("env/lib/python3.11/site-packages");
        std::fs::create_dir_all(site.join("nvidia/cublas/lib")).unwrap();
        std::fs::write(site.join("nvidia/cublas/lib/libcublas.so.12"), "").unwrap();
        assert_eq!(package_folders(&root.join("env")), std::slice::from_ref(&site));
        assert_eq!(find_in(&site, "libcublas.so.12"), Some(site.join("nvidia/cublas/lib/libcublas.so.12")));
        assert_eq!(find_in(&site, "libcufft.so.11"), None);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
