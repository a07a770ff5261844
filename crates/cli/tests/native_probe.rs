//! The native probe against stand-in libraries that this suite builds from
//! `crates/cli/tests/native/*.c` with the system `cc`: a CUDA driver whose behaviour
//! `FAKE_CUDA_MODE` sets (devices, `cuInit` failing, no device, hanging,
//! crashing), a HIP runtime (`FAKE_HIP_MODE`), and empty CUDA libraries and
//! libtorch, found through `LD_LIBRARY_PATH` (or `LIBTORCH`). Through the
//! command (`probe`, `plan --probe`) and the Rust API (`backend_targets_native_probe::probe`, in
//! threads and with the command as the helper). Every reason at least once.
#![cfg(all(target_os = "linux", target_env = "gnu"))]

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use backend_targets::probe::native::NativeReason;
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_backend-targets");

/// The stand-ins, built once per run.
struct StandIns {
    /// libcuda.so.1, libamdhip64.so.6, and the CUDA 12 libraries: libcublas.so.12
    /// (12.9.3, CUDA 12.8), libcufft.so.11 (11.4.1), libcudnn.so.9 (the shim)
    /// with libcudnn_graph.so.9 (9.28.0, CUDA 12.9).
    ok: PathBuf,
    /// The CUDA 13 libraries: libcublas.so.13 (13.4.1, CUDA 13.0),
    /// libcufft.so.12 (12.2.0), libcudnn.so.9 with a graph built for CUDA 13.4.
    cu13: PathBuf,
    /// libcublas.so.12 that needs a libcublasLt.so.12 found nowhere.
    broken: PathBuf,
    /// cuDNN 9's shim without its sub-library.
    shim_only: PathBuf,
    /// A libcublas.so.12 that loads but has no entry point to answer with.
    hollow: PathBuf,
    /// Only the driver: a link to ok/libcuda.so.1.
    driver_only: PathBuf,
    /// A libtorch root: `lib/libtorch.so` (2.15, a CPU build).
    libtorch: PathBuf,
    /// A libtorch root built for CUDA 13: `lib/libtorch.so` needs
    /// `libcudart.so.13` (beside it, found through its `$ORIGIN`).
    libtorch_cu13: PathBuf,
    /// A folder whose `libcudnn.so.9` is a link to ok/libcudnn.so.9: the
    /// shim's `$ORIGIN` is this folder, where no libcudnn_graph.so.9 is.
    cudnn_link: PathBuf,
    /// A libcuda.so.1 whose initialiser escapes the probe's end of its
    /// check (`escape.c`: `ESCAPE_MODE`), then hangs.
    escape: PathBuf,
    /// The sources' build folder (for files a test copies).
    root: PathBuf,
}

fn cc(args: &[&str]) {
    let status = Command::new("cc").args(args).status().expect("the system C compiler (cc)");
    assert!(status.success(), "cc {args:?}");
}

fn stand_ins() -> &'static StandIns {
    static BUILT: OnceLock<StandIns> = OnceLock::new();
    BUILT.get_or_init(|| {
        let sources = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/native");
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("native-stand-ins-{}", std::process::id()));
        let dir = |name: &str| root.join(name);
        let (libtorch_cu13, cudnn_link, escape) = (dir("libtorch-cu13"), dir("cudnn-link"), dir("escape"));
        let (ok, cu13, broken, deps, shim_only, hollow, driver_only, libtorch) = (
            dir("ok"),
            dir("cu13"),
            dir("broken"),
            dir("deps"),
            dir("shim-only"),
            dir("hollow"),
            dir("driver-only"),
            dir("libtorch"),
        );
        for d in [
            &ok,
            &cu13,
            &broken,
            &deps,
            &shim_only,
            &hollow,
            &driver_only,
            &libtorch.join("lib"),
            &libtorch_cu13.join("lib"),
            &cudnn_link,
            &escape,
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        let source = |name: &str| sources.join(name).to_string_lossy().into_owned();
        let shared = |src: &str, dir: &Path, name: &str, flags: &[&str]| {
            let out = dir.join(name).to_string_lossy().into_owned();
            let soname = format!("-Wl,-soname,{name}");
            let mut args = vec!["-shared", "-fPIC", "-o", &out, &soname];
            args.extend_from_slice(flags);
            let src = source(src);
            args.push(&src);
            args.push("-ldl");
            cc(&args);
        };
        shared("fake_cuda.c", &ok, "libcuda.so.1", &[]);
        shared("fake_hip.c", &ok, "libamdhip64.so.6", &[]);
        shared("escape.c", &escape, "libcuda.so.1", &[]);
        let shim = ["-Wl,--disable-new-dtags,-rpath,$ORIGIN"];
        for (dir, cublas, cufft, cudnn_cudart) in [
            (
                &ok,
                ("libcublas.so.12", ["-DMAJOR=12", "-DMINOR=9", "-DPATCH=3", "-DCUDART=12080"]),
                ("libcufft.so.11", ["-DMAJOR=11", "-DMINOR=4", "-DPATCH=1"]),
                "-DCUDART=12090",
            ),
            (
                &cu13,
                ("libcublas.so.13", ["-DMAJOR=13", "-DMINOR=4", "-DPATCH=1", "-DCUDART=13000"]),
                ("libcufft.so.12", ["-DMAJOR=12", "-DMINOR=2", "-DPATCH=0"]),
                "-DCUDART=13040",
            ),
        ] {
            shared("fake_cublas.c", dir, cublas.0, &cublas.1);
            shared("fake_cufft.c", dir, cufft.0, &cufft.1);
            shared("fake_cudnn.c", dir, "libcudnn.so.9", &shim);
            shared("fake_cudnn_graph.c", dir, "libcudnn_graph.so.9", &[cudnn_cudart]);
        }
        shared("fake_cudnn.c", &shim_only, "libcudnn.so.9", &shim);
        shared("empty.c", &hollow, "libcublas.so.12", &[]);
        shared("fake_libtorch.c", &libtorch.join("lib"), "libtorch.so", &[]);
        std::os::unix::fs::symlink(ok.join("libcuda.so.1"), driver_only.join("libcuda.so.1")).unwrap();
        std::os::unix::fs::symlink(ok.join("libcudnn.so.9"), cudnn_link.join("libcudnn.so.9")).unwrap();
        let torch_lib = libtorch_cu13.join("lib");
        shared("empty.c", &torch_lib, "libcudart.so.13", &[]);
        let torch_flags =
            [format!("-L{}", torch_lib.display()), "-Wl,--no-as-needed".into(), "-l:libcudart.so.13".into()];
        let torch_flags: Vec<&str> = torch_flags.iter().map(String::as_str).chain(["-Wl,-rpath,$ORIGIN"]).collect();
        shared("fake_libtorch.c", &torch_lib, "libtorch.so", &torch_flags);
        // libcublas.so.12 needing libcublasLt.so.12, which exists only at link time.
        shared("empty.c", &deps, "libcublasLt.so.12", &[]);
        let deps_flag = format!("-L{}", deps.display());
        shared("empty.c", &broken, "libcublas.so.12", &[&deps_flag, "-Wl,--no-as-needed", "-l:libcublasLt.so.12"]);
        StandIns { ok, cu13, broken, shim_only, hollow, driver_only, libtorch, libtorch_cu13, cudnn_link, escape, root }
    })
}

/// `path` with its links resolved, as the probe reports a library.
fn real(path: &Path) -> String {
    std::fs::canonicalize(path).unwrap().to_str().unwrap().to_string()
}

/// One run of the command.
struct Run {
    /// The output read as JSON (`Null` where it is not: `probe --report`).
    json: Value,
    stdout: String,
    stderr: String,
    status: i32,
    wall: Duration,
}

/// Runs the command with only `lib_dirs` on `LD_LIBRARY_PATH` and `env` set
/// (`LIBTORCH`, the Python environment's variables and the modes unset
/// unless given; `PATH` and `HOME` point nowhere, so that no Python
/// environment of this machine is found).
fn command(args: &[&str], lib_dirs: &[&Path], env: &[(&str, &str)], stdin: &str) -> Run {
    let path = std::env::join_paths(lib_dirs).unwrap();
    let library_path = (!lib_dirs.is_empty()).then(|| path.to_str().unwrap().to_string());
    command_with(args, library_path.as_deref(), None, env, stdin)
}

/// `command` with `LD_LIBRARY_PATH` as given (`None`: unset) and a working
/// directory.
fn command_with(
    args: &[&str],
    library_path: Option<&str>,
    cwd: Option<&Path>,
    env: &[(&str, &str)],
    stdin: &str,
) -> Run {
    let mut cmd = Command::new(BIN);
    cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    for name in [
        "LD_LIBRARY_PATH",
        "LIBTORCH",
        "LIBTORCH_USE_PYTORCH",
        "TPU_LIBRARY_PATH",
        "VIRTUAL_ENV",
        "CONDA_PREFIX",
        "PYENV_VERSION",
        "FAKE_CUDA_MODE",
        "FAKE_CUDA_VERSION",
        "FAKE_CUDA_PIDFILE",
        "FAKE_HIP_MODE",
        "FAKE_CUBLAS_MODE",
    ] {
        cmd.env_remove(name);
    }
    cmd.env("PATH", "/nonexistent-bt").env("HOME", "/nonexistent-bt");
    if let Some(value) = library_path {
        cmd.env("LD_LIBRARY_PATH", value);
    }
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    cmd.envs(env.iter().copied());
    let start = Instant::now();
    let mut child = cmd.spawn().unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let output = child.wait_with_output().unwrap();
    let wall = start.elapsed();
    let stdout = String::from_utf8(output.stdout).unwrap();
    Run {
        json: serde_json::from_str(&stdout).unwrap_or(Value::Null),
        stdout,
        stderr: String::from_utf8(output.stderr).unwrap(),
        status: output.status.code().expect("exited, not killed"),
        wall,
    }
}

fn probe(args: &[&str], lib_dirs: &[&Path], env: &[(&str, &str)]) -> Value {
    let mut all = vec!["probe"];
    all.extend_from_slice(args);
    let run = command(&all, lib_dirs, env, "");
    assert_eq!(run.status, 0, "probe {args:?}: {}", run.stderr);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    run.json
}

fn probe_target(target: Value, lib_dirs: &[&Path], env: &[(&str, &str)]) -> Value {
    let run = command(&["probe", "-"], lib_dirs, env, &target.to_string());
    assert_eq!(run.status, 0, "{}", run.stderr);
    run.json
}

/// The change that decided `key` (`accelerator` or `feature`) = `name`.
fn change<'a>(resolution: &'a Value, key: &str, name: &str) -> &'a Value {
    resolution["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c[key] == name)
        .unwrap_or_else(|| panic!("no change for {key} {name}: {resolution:#}"))
}

fn decided(resolution: &Value, key: &str, name: &str) -> (String, String) {
    let c = change(resolution, key, name);
    (c["action"].as_str().unwrap().to_string(), c["reason"].as_str().unwrap().to_string())
}

fn pair(action: &str, reason: &str) -> (String, String) {
    (action.to_string(), reason.to_string())
}

fn check<'a>(resolution: &'a Value, name: &str) -> &'a Value {
    resolution["probe"]["checks"].as_array().unwrap().iter().find(|c| c["check"] == name).unwrap()
}

#[test]
fn a_working_driver_with_two_devices_keeps_cuda_and_its_libraries() {
    let s = stand_ins();
    let r = probe(&["linuxCuda"], &[&s.ok], &[("FAKE_CUDA_MODE", "ok:2")]);
    assert_eq!(r["effective"], r["declared"]);
    assert_eq!(r["availability"]["devices"], json!(["cpu", "cuda"]));
    assert_eq!(r["availability"]["providers"], json!(["reference", "torchLean", "nativeCuda", "cuBLAS", "cuFFT"]));
    assert_eq!(decided(&r, "accelerator", "cuda"), pair("kept", "device-available"));
    assert_eq!(decided(&r, "feature", "nativeCuda"), pair("kept", "device-available"));
    assert_eq!(decided(&r, "feature", "cuBLAS"), pair("kept", "library-available"));
    assert_eq!(decided(&r, "feature", "cuFFT"), pair("kept", "library-available"));
    let cuda = check(&r, "cuda");
    assert_eq!(cuda["driverVersion"], "12.4");
    assert_eq!(cuda["library"], real(&s.ok.join("libcuda.so.1")), "the file the loader opened");
    assert_eq!(cuda["libraryName"], "libcuda.so.1");
    assert_eq!(
        cuda["devices"],
        json!([
            {"index": 0, "name": "Fake GPU 0", "computeCapability": "9.0", "memoryBytes": 80u64 << 30},
            {"index": 1, "name": "Fake GPU 1", "computeCapability": "9.0", "memoryBytes": 81u64 << 30},
        ])
    );
    let cublas = check(&r, "cuBLAS");
    assert_eq!(cublas["library"], real(&s.ok.join("libcublas.so.12")));
    assert_eq!((&cublas["libraryVersion"], &cublas["cudaMajor"]), (&json!("12.9.3"), &json!(12)), "{cublas}");
    assert_eq!(check(&r, "cuFFT")["libraryVersion"], "11.4.1");
    assert_eq!(check(&r, "cuFFT")["cudaMajor"], 12, "from its file name: cuFFT 11 is CUDA 12's");
    assert_eq!(r["probe"]["os"], "linux");
    assert_eq!(r["probe"]["isolation"], "process");
    assert_eq!(r["probe"]["timeoutMs"], 5000);
    let elapsed = r["probe"]["elapsedMs"].as_f64().unwrap();
    eprintln!("probe linuxCuda with the stand-ins (ok:2): {elapsed:.1} ms");
    assert!(elapsed < 5000.0);
    // The sentence names what was found.
    assert!(change(&r, "accelerator", "cuda")["detail"].as_str().unwrap().contains("2 CUDA devices: Fake GPU 0"));
}

#[test]
fn report_is_a_text_for_a_bug_report_around_the_resolution() {
    let s = stand_ins();
    let env = [("FAKE_CUDA_MODE", "ok:2")];
    let run = command(&["probe", "linuxCuda", "--report"], &[&s.ok], &env, "");
    assert_eq!((run.status, run.stderr.as_str()), (0, ""));
    let text = &run.stdout;
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        text.starts_with(&format!(
            "backend-targets {version} (native command, linux x86_64; checks in process isolation)\n"
        )),
        "{text}"
    );
    assert!(text.contains("\ndeclared: accelerator cuda, features [nativeCuda, cuBLAS, cuFFT]\n"), "{text}");
    assert!(text.contains("\ndecision: accelerator cuda, features [nativeCuda, cuBLAS, cuFFT]\n"), "{text}");
    assert!(text.contains("\n- kept (device-available): "), "{text}");
    assert!(text.contains("2 CUDA devices: Fake GPU 0"), "{text}");
    // The JSON between the fences is the resolution `probe` prints (but its times).
    let (_, fenced) = text.split_once("```json\n").expect(text);
    let (json, rest) = fenced.split_once("\n```\n").expect(text);
    assert_eq!(rest, "", "the fence ends the text");
    let mut reported: Value = serde_json::from_str(json).unwrap();
    let mut plain = probe(&["linuxCuda"], &[&s.ok], &env);
    for resolution in [&mut reported, &mut plain] {
        resolution["probe"]["elapsedMs"] = json!(0);
        for check in resolution["probe"]["checks"].as_array_mut().unwrap() {
            check["elapsedMs"] = json!(0);
        }
    }
    assert_eq!(reported, plain);
    assert_eq!(reported["probe"]["checks"].as_array().unwrap().len(), 3);
    assert!(text.contains("\nprobe: checks 3, "), "{text}");
    // What a maintainer asks first: the loader's and the runtimes' variables, the system.
    assert!(text.contains("\nenvironment: CUDA_VISIBLE_DEVICES"), "{text}");
    assert!(text.contains("; LD_LIBRARY_PATH"), "{text}");
    assert!(text.contains("\nsystem: ") && text.contains("kernel "), "{text}");
    // Without a driver: the decision and each change say so.
    let none = command(&["probe", "linuxCuda", "--report"], &[], &[], "");
    assert!(none.stdout.contains("\ndecision: accelerator none, features []\n"), "{}", none.stdout);
    assert!(none.stdout.contains("\n- dropped (driver-not-found): the cuda accelerator dropped: "), "{}", none.stdout);
    // And what to do, once per reason.
    let advice = format!("\nwhat to do (driver-not-found): {}\n", NativeReason::DriverNotFound.what_to_do());
    assert_eq!(none.stdout.matches(&advice).count(), 1, "{}", none.stdout);
}

#[test]
fn driver_init_failure_no_device_and_zero_devices() {
    let s = stand_ins();
    let r = probe(&["linuxCuda"], &[&s.ok], &[("FAKE_CUDA_MODE", "init-fail")]);
    assert_eq!(decided(&r, "accelerator", "cuda"), pair("dropped", "driver-init-failed"));
    // The driver's cuGetErrorName does not know 803: the probe's table names it.
    assert!(check(&r, "cuda")["message"].as_str().unwrap().contains("CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"), "{r:#}");
    assert_eq!(check(&r, "cuda")["driverVersion"], "12.4", "read without cuInit");
    assert_eq!(decided(&r, "feature", "nativeCuda"), pair("dropped", "requires-accelerator"));
    assert_eq!(decided(&r, "feature", "cuBLAS"), pair("dropped", "requires-accelerator"));
    // The libraries are not even loaded when the accelerator is dropped.
    assert_eq!(r["probe"]["checks"].as_array().unwrap().len(), 1, "{r:#}");
    assert_eq!(r["effective"], json!({"os": "linux", "arch": "x86_64", "accelerator": "none", "features": []}));
    assert_eq!(r["availability"], json!({"devices": ["cpu"], "providers": ["reference", "torchLean"]}));

    let r = probe(&["linuxCuda"], &[&s.ok], &[("FAKE_CUDA_MODE", "no-device"), ("FAKE_CUDA_VERSION", "12020")]);
    assert_eq!(decided(&r, "accelerator", "cuda"), pair("dropped", "no-device"));
    assert!(check(&r, "cuda")["message"].as_str().unwrap().contains("CUDA_ERROR_NO_DEVICE"));
    assert_eq!(check(&r, "cuda")["driverVersion"], "12.2", "read without cuInit");

    let r = probe(&["linuxCuda"], &[&s.ok], &[("FAKE_CUDA_MODE", "zero")]);
    assert_eq!(decided(&r, "accelerator", "cuda"), pair("dropped", "no-device"));
    assert!(check(&r, "cuda")["message"].as_str().unwrap().contains("0 CUDA devices"));
    assert_eq!(check(&r, "cuda")["driverVersion"], "12.4");
}

#[test]
fn no_driver_is_driver_not_found_with_the_loaders_message() {
    let r = probe(&["linuxCuda", "--enable-libtorch"], &[], &[]);
    assert_eq!(decided(&r, "accelerator", "cuda"), pair("dropped", "driver-not-found"));
    assert!(check(&r, "cuda")["message"].as_str().unwrap().contains("libcuda.so.1: cannot open shared object file"));
    assert_eq!(decided(&r, "feature", "cuFFT"), pair("dropped", "requires-accelerator"));
    assert_eq!(decided(&r, "feature", "libTorch"), pair("dropped", "library-not-found"));
}

#[test]
fn libraries_are_not_loaded_from_the_working_directory() {
    let s = stand_ins();
    // A working directory holding a driver (and a `lib` folder holding one).
    let cwd = s.root.join("cwd");
    std::fs::create_dir_all(cwd.join("lib")).unwrap();
    for file in [cwd.join("libcuda.so.1"), cwd.join("lib/libcuda.so.1")] {
        std::fs::copy(s.ok.join("libcuda.so.1"), &file).unwrap();
    }
    let elsewhere = s.root.join("empty-folder");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let elsewhere = elsewhere.to_str().unwrap();
    // Unset; a trailing `:` (what `export LD_LIBRARY_PATH=/x:$LD_LIBRARY_PATH`
    // leaves); a leading one; `.`; a relative folder.
    for (value, ignored, note) in [
        (None, json!(null), None),
        (Some(format!("{elsewhere}:")), json!([""]), Some("through an empty entry of LD_LIBRARY_PATH")),
        (Some(format!(":{elsewhere}")), json!([""]), Some("through an empty entry of LD_LIBRARY_PATH")),
        (Some(".".to_string()), json!(["."]), Some("through the entry `.` of LD_LIBRARY_PATH")),
        (Some(format!("lib:{elsewhere}")), json!(["lib"]), Some("through the entry `lib` of LD_LIBRARY_PATH")),
    ] {
        let run =
            command_with(&["probe", "linuxCuda"], value.as_deref(), Some(&cwd), &[("FAKE_CUDA_MODE", "ok:1")], "");
        assert_eq!(run.status, 0, "{}", run.stderr);
        let r = &run.json;
        assert_eq!(decided(r, "accelerator", "cuda"), pair("dropped", "driver-not-found"), "{value:?}: {r:#}");
        assert_eq!(r["probe"]["ignoredLoaderPath"], ignored, "{value:?}");
        // The message says what was there and why it was not loaded.
        let message = check(r, "cuda")["message"].as_str().unwrap();
        if let Some(note) = note {
            let want = format!("libcuda.so.1: found in the working directory {note}, and not loaded");
            assert!(message.contains(&want), "{value:?}: {message}");
        }
    }
    // The driver on an absolute entry beside an empty one is found there.
    let value = format!("{}:", s.ok.display());
    let run = command_with(&["probe", "linuxCuda"], Some(&value), Some(&cwd), &[("FAKE_CUDA_MODE", "ok:1")], "");
    assert_eq!(decided(&run.json, "accelerator", "cuda"), pair("kept", "device-available"));
    assert_eq!(check(&run.json, "cuda")["library"], real(&s.ok.join("libcuda.so.1")));
}

#[test]
fn library_is_the_absolute_file_the_loader_opened_beside_the_name_asked() {
    let s = stand_ins();
    // driver-only/libcuda.so.1 is a link to ok/libcuda.so.1.
    let r = probe(&["linuxCuda"], &[&s.driver_only], &[]);
    let cuda = check(&r, "cuda");
    assert_eq!(cuda["library"], real(&s.ok.join("libcuda.so.1")));
    assert_ne!(cuda["library"], s.driver_only.join("libcuda.so.1").to_str().unwrap());
    assert_eq!(cuda["libraryName"], "libcuda.so.1");
}

#[test]
fn a_hung_driver_is_a_timeout_within_the_bound() {
    let s = stand_ins();
    let run = command(&["probe", "linuxCuda", "--timeout-ms", "300"], &[&s.ok], &[("FAKE_CUDA_MODE", "hang")], "");
    assert_eq!(run.status, 0, "{}", run.stderr);
    let r = &run.json;
    assert_eq!(decided(r, "accelerator", "cuda"), pair("dropped", "timeout"));
    assert!(check(r, "cuda")["message"].as_str().unwrap().contains("within 300 ms"));
    assert_eq!(decided(r, "feature", "cuBLAS"), pair("dropped", "requires-accelerator"));
    let elapsed = r["probe"]["elapsedMs"].as_f64().unwrap();
    eprintln!("hung driver, --timeout-ms 300: the probe answered after {elapsed:.1} ms (wall {:?})", run.wall);
    assert!((300.0..1000.0).contains(&elapsed), "{elapsed}");
    assert!(run.wall < Duration::from_secs(2), "{:?}", run.wall);
}

#[test]
fn a_process_left_holding_the_pipe_does_not_delay_the_answer() {
    let s = stand_ins();
    let run = command(&["probe", "linuxCuda"], &[&s.ok], &[("FAKE_CUDA_MODE", "daemon")], "");
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(decided(&run.json, "accelerator", "cuda"), pair("kept", "device-available"));
    assert!(run.wall < Duration::from_secs(2), "waited for the daemon: {:?}", run.wall);
}

#[test]
fn a_crashing_driver_is_check_crashed_with_the_signal() {
    let s = stand_ins();
    for (mode, signal, name) in [("crash", 11, "SIGSEGV"), ("abort", 6, "SIGABRT")] {
        let r = probe(&["linuxCuda"], &[&s.ok], &[("FAKE_CUDA_MODE", mode)]);
        assert_eq!(decided(&r, "accelerator", "cuda"), pair("dropped", "check-crashed"), "{mode}");
        let cuda = check(&r, "cuda");
        assert_eq!(cuda["signal"], signal, "{mode}");
        assert!(cuda["message"].as_str().unwrap().contains(name), "{mode}: {cuda}");
    }
}

#[test]
fn a_library_with_a_missing_dependency_is_library_not_found_naming_it() {
    let s = stand_ins();
    // The broken cuBLAS first on the path, the working driver after it.
    let r = probe(&["linuxCuda"], &[&s.broken, &s.ok], &[("FAKE_CUDA_MODE", "ok:1")]);
    assert_eq!(decided(&r, "accelerator", "cuda"), pair("kept", "device-available"));
    assert_eq!(decided(&r, "feature", "cuBLAS"), pair("dropped", "library-not-found"));
    let message = check(&r, "cuBLAS")["message"].as_str().unwrap();
    assert!(message.contains("libcublasLt.so.12: cannot open shared object file"), "{message}");
    assert_eq!(decided(&r, "feature", "cuFFT"), pair("kept", "library-available"));
    assert_eq!(r["effective"]["features"], json!(["nativeCuda", "cuFFT"]));
}

#[test]
fn cudnn_and_libtorch_load_or_not() {
    let s = stand_ins();
    let target =
        json!({"os": "linux", "arch": "x86_64", "accelerator": "cuda", "features": ["cuDNN", "libTorch", "aten"]});
    let libtorch = s.libtorch.to_str().unwrap();
    let r = probe_target(target.clone(), &[&s.ok], &[("LIBTORCH", libtorch)]);
    assert_eq!(decided(&r, "feature", "cuDNN"), pair("kept", "library-available"));
    assert_eq!(decided(&r, "feature", "libTorch"), pair("kept", "library-available"));
    assert_eq!(decided(&r, "feature", "aten"), pair("kept", "library-available"));
    assert_eq!(check(&r, "libTorch")["library"], s.libtorch.join("lib/libtorch.so").to_str().unwrap());
    // One check serves both rows.
    assert_eq!(r["probe"]["checks"].as_array().unwrap().iter().filter(|c| c["check"] == "libTorch").count(), 1);

    let r = probe_target(target, &[], &[]);
    assert_eq!(decided(&r, "feature", "cuDNN"), pair("dropped", "requires-accelerator"));
    assert_eq!(decided(&r, "feature", "libTorch"), pair("dropped", "library-not-found"));
    let target = json!({"os": "linux", "arch": "x86_64", "accelerator": "cuda", "features": ["cuDNN"]});
    let r = probe_target(target, &[&s.broken, &s.ok.join("none")], &[]);
    assert_eq!(decided(&r, "accelerator", "cuda"), pair("dropped", "driver-not-found"));
}

#[test]
fn cudnn_absent_while_the_driver_works() {
    let s = stand_ins();
    // Only the driver: a folder with a link to it and nothing else.
    let only = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("native-driver-only-{}", std::process::id()));
    std::fs::create_dir_all(&only).unwrap();
    let link = only.join("libcuda.so.1");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(s.ok.join("libcuda.so.1"), &link).unwrap();
    let target = json!({"os": "linux", "arch": "x86_64", "accelerator": "cuda", "features": ["cuDNN"]});
    let r = probe_target(target, &[&only], &[]);
    assert_eq!(decided(&r, "accelerator", "cuda"), pair("kept", "device-available"));
    assert_eq!(decided(&r, "feature", "cuDNN"), pair("dropped", "library-not-found"));
    let message = check(&r, "cuDNN")["message"].as_str().unwrap();
    assert!(message.contains("libcudnn.so.9") && message.contains("libcudnn.so.8"), "newest first: {message}");
}

#[test]
fn rocm_through_the_hip_runtime() {
    let s = stand_ins();
    let r = probe(&["linuxRocm"], &[&s.ok], &[("FAKE_HIP_MODE", "ok:2")]);
    assert_eq!(decided(&r, "accelerator", "rocm"), pair("kept", "device-available"));
    assert_eq!(check(&r, "rocm")["devices"][1]["name"], "Fake Instinct 1");
    assert_eq!(r["availability"]["devices"], json!(["cpu", "rocm"]));
    let r = probe(&["linuxRocm"], &[&s.ok], &[("FAKE_HIP_MODE", "init-fail")]);
    assert_eq!(decided(&r, "accelerator", "rocm"), pair("dropped", "driver-init-failed"));
    assert!(check(&r, "rocm")["message"].as_str().unwrap().contains("hipErrorInsufficientDriver"));
    // HIP 5.2 on a host without an AMD GPU: hipInit 101, a count of 0 with 100.
    let r = probe(&["linuxRocm"], &[&s.ok], &[("FAKE_HIP_MODE", "no-device")]);
    assert_eq!(decided(&r, "accelerator", "rocm"), pair("dropped", "no-device"));
    let message = check(&r, "rocm")["message"].as_str().unwrap();
    assert!(message.contains("hipErrorInvalidDevice") && message.contains("hipErrorNoDevice"), "{message}");
    assert_eq!(check(&r, "rocm")["libraryVersion"], "5.2.21153", "read before hipInit");
    let r = probe(&["linuxRocm"], &[&s.ok], &[("FAKE_HIP_MODE", "no-device-100")]);
    assert_eq!(decided(&r, "accelerator", "rocm"), pair("dropped", "no-device"));
    let r = probe(&["linuxRocm"], &[], &[]);
    assert_eq!(decided(&r, "accelerator", "rocm"), pair("dropped", "driver-not-found"));
}

#[test]
fn metal_off_macos_is_unsupported_platform() {
    let r = probe(&["macOSMetal"], &[], &[]);
    assert_eq!(decided(&r, "accelerator", "metal"), pair("dropped", "unsupported-platform"));
    assert_eq!(decided(&r, "feature", "mps"), pair("dropped", "unsupported-platform"));
    assert_eq!(r["availability"]["devices"], json!(["cpu"]));
}

#[test]
fn tpu_and_trainium_without_device_nodes_are_no_device() {
    let has = |prefix: &str| {
        std::fs::read_dir("/dev").unwrap().flatten().any(|e| e.file_name().to_string_lossy().starts_with(prefix))
    };
    if !has("accel") && !Path::new("/dev/vfio/0").exists() {
        let r = probe(&["linuxTpu"], &[], &[]);
        assert_eq!(decided(&r, "accelerator", "tpu"), pair("dropped", "no-device"));
        assert_eq!(decided(&r, "feature", "xla"), pair("dropped", "no-device"));
    }
    if !has("neuron") {
        let r = probe(&["linuxTrainium"], &[], &[]);
        assert_eq!(decided(&r, "accelerator", "trainium"), pair("dropped", "no-device"));
        assert_eq!(decided(&r, "feature", "neuron"), pair("dropped", "no-device"));
    }
}

#[test]
fn caller_supplied_chips_and_the_browser_target_stay_as_declared() {
    for (preset, accelerator, feature) in [
        ("customChip", "custom", "customChip"),
        ("external", "external", "externalProvider"),
        ("wasm", "wasm", "webGpu"),
    ] {
        let r = probe(&[preset], &[], &[]);
        assert_eq!(r["effective"], r["declared"], "{preset}");
        assert_eq!(decided(&r, "accelerator", accelerator), pair("asDeclared", "not-probeable"));
        assert_eq!(decided(&r, "feature", feature), pair("asDeclared", "not-probeable"));
        assert_eq!(r["probe"]["checks"], json!([]), "nothing loaded for {preset}");
    }
    // Nothing declared, nothing decided.
    let r = probe(&["linuxCpu", "--arch", "aarch64"], &[], &[]);
    assert_eq!(r["changes"], json!([]));
    assert_eq!(r["declared"]["arch"], "aarch64");
}

#[test]
fn plan_with_probe_plans_against_the_probed_availability() {
    let s = stand_ins();
    let request = json!({
        "ops": ["matmul"],
        "configs": [{"device": "cuda"}, {"device": "cpu"}],
        "target": {"os": "linux", "arch": "x86_64", "accelerator": "cuda", "features": ["nativeCuda", "cuBLAS"]},
        "capsules": [
            {"name": "cublas.matmul", "op": "matmul", "provider": "cuBLAS", "device": "cuda",
             "trustLevel": "checked", "vjpMode": "torchLeanTape"},
            {"name": "reference.matmul", "op": "matmul", "provider": "reference", "device": "cpu",
             "trustLevel": "checked", "vjpMode": "torchLeanTape"},
        ],
    })
    .to_string();
    let run = command(&["plan", "--probe"], &[&s.ok], &[("FAKE_CUDA_MODE", "ok:1")], &request);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(run.json["ok"], true);
    assert_eq!(run.json["configIndex"], 0, "{:#}", run.json);
    assert_eq!(run.json["availability"], run.json["resolution"]["availability"]);
    assert_eq!(run.json["kernels"][0]["device"], "cuda");

    let run = command(&["plan", "--probe", "--timeout-ms", "2000"], &[], &[], &request);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(run.json["availability"]["devices"], json!(["cpu"]));
    assert_eq!(run.json["configIndex"], 1, "the cuda config fails without a driver");
    assert_eq!(decided(&run.json["resolution"], "accelerator", "cuda"), pair("dropped", "driver-not-found"));
}

#[test]
fn bad_probe_input_exits_2_with_code_and_path() {
    let cases: &[(&[&str], &str, &str)] = &[
        (&["plan", "--probe"], r#"{"ops": ["add"]}"#, "error [missing-field] at target: "),
        (&["plan", "--timeout-ms", "10"], r#"{"ops": ["add"]}"#, "error [usage] at --timeout-ms: "),
        (&["probe", "linuxCuda", "--timeout-ms", "0"], "", "error [invalid-value] at --timeout-ms: "),
        (&["probe", "linuxCuda", "--timeout-ms", "x"], "", "error [invalid-value] at --timeout-ms: "),
        (&["probe"], "", "error [usage] at preset: "),
        (&["probe", "linuxRocm", "--enable-libtorch"], "", "error [unsupported-option] at --enable-libtorch: "),
        (
            &["probe", "-"],
            r#"{"os": "linux", "features": ["cuBLAS", "cuBLAS"]}"#,
            "error [duplicate-value] at features[1]: ",
        ),
        (&["probe", "-", "--os", "linux"], "", "error [usage] at --os: "),
    ];
    for (args, stdin, want) in cases {
        let run = command(args, &[], &[], stdin);
        assert_eq!(run.status, 2, "{args:?}: {}", run.stderr);
        assert!(run.json.is_null(), "{args:?}: nothing on stdout");
        assert!(run.stderr.contains(want) && run.stderr.lines().count() == 1, "{args:?}: {}", run.stderr);
    }
}

/// The check protocol through the command, as the probe's child meets it:
/// `__probe-check <check> [--driver-version M.m]` answers with the check's
/// report as one JSON line (on stdout where no answer channel, descriptor 3,
/// was opened) and status 0; a malformed request is refused with the usage
/// line on stderr, nothing on stdout, and status 2.
#[test]
fn the_command_answers_a_check_request_and_refuses_a_malformed_one() {
    let run = |args: &[&str]| {
        let mut cmd = Command::new(BIN);
        cmd.args(args).stdin(Stdio::null());
        // SAFETY: runs in the forked child before exec; close is
        // async-signal-safe and touches no memory of this process.
        unsafe {
            cmd.pre_exec(|| {
                libc::close(3);
                Ok(())
            })
        };
        cmd.output().unwrap()
    };
    for request in [&["__probe-check", "metal"][..], &["__probe-check", "metal", "--driver-version", "12.4"]] {
        let out = run(request);
        assert_eq!(out.status.code(), Some(0), "{request:?}");
        assert!(out.stderr.is_empty(), "{request:?}");
        let line = String::from_utf8(out.stdout).unwrap();
        assert!(line.ends_with('\n') && line.matches('\n').count() == 1, "{request:?}: {line:?}");
        let report: Value = serde_json::from_str(&line).unwrap();
        assert_eq!((&report["check"], &report["reason"]), (&json!("metal"), &json!("unsupported-platform")));
    }
    for malformed in [
        &["__probe-check"][..],
        &["__probe-check", "nonsense"],
        &["__probe-check", "metal", "--driver-version"],
        &["__probe-check", "metal", "--driver-version", "x"],
        &["__probe-check", "metal", "extra"],
    ] {
        let out = run(malformed);
        assert_eq!(out.status.code(), Some(2), "{malformed:?}");
        assert!(out.stdout.is_empty(), "{malformed:?}");
        assert_eq!(
            String::from_utf8(out.stderr).unwrap(),
            "backend-targets: __probe-check takes <check> [--driver-version M.m]\n",
            "{malformed:?}"
        );
    }
}

/// The Rust API, in a child of this test binary so that `LD_LIBRARY_PATH`
/// (read by the loader at start-up) and the mode are its own.
#[test]
fn the_rust_api_in_threads_and_with_the_command_as_helper() {
    let s = stand_ins();
    for mode in ["ok:1", "hang"] {
        let output = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "rust_api_child", "--ignored", "--nocapture", "--test-threads=1"])
            .env("LD_LIBRARY_PATH", &s.ok)
            .env("FAKE_CUDA_MODE", mode)
            .env("NATIVE_API_CHILD", "1")
            .output()
            .unwrap();
        let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        assert!(output.status.success() && text.contains("1 passed"), "{mode}:\n{text}");
        eprintln!("{}", text.lines().filter(|l| l.starts_with("api:")).collect::<Vec<_>>().join("\n"));
    }
    // Options::default(): the command found on PATH (the folder of this
    // build's binary), and a PATH without it (the answer says what to do).
    let bin_dir = Path::new(BIN).parent().unwrap().to_path_buf();
    for path in [bin_dir.clone().into_os_string(), "/nonexistent-bt".into()] {
        let output = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "rust_api_child", "--ignored", "--nocapture", "--test-threads=1"])
            .env("LD_LIBRARY_PATH", &s.ok)
            .env("PATH", &path)
            .env("NATIVE_API_PATH", "1")
            .env("FAKE_CUDA_MODE", "ok:1")
            .env("NATIVE_API_CHILD", "1")
            .output()
            .unwrap();
        let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        assert!(output.status.success() && text.contains("1 passed"), "PATH={path:?}:\n{text}");
    }
    // A caller started with an empty entry in LD_LIBRARY_PATH, in a folder
    // holding a libcuda.so.1 (one without entry points: loading it would
    // read as driver-init-failed): in threads too, it is not loaded.
    let cwd = s.root.join("api-cwd");
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::copy(s.hollow.join("libcublas.so.12"), cwd.join("libcuda.so.1")).unwrap();
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "rust_api_child", "--ignored", "--nocapture", "--test-threads=1"])
        .current_dir(&cwd)
        .env("LD_LIBRARY_PATH", "/nonexistent-bt:")
        .env("FAKE_CUDA_MODE", "cwd")
        .env("NATIVE_API_CHILD", "1")
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success() && text.contains("1 passed"), "cwd:\n{text}");
}

#[test]
#[ignore = "run by the_rust_api_in_threads_and_with_the_command_as_helper, with its environment"]
fn rust_api_child() {
    use backend_targets::{json::*, probe::native::*, vocab::*, *};
    use backend_targets_native_probe::{Options, probe, probe_in_threads};
    if std::env::var_os("NATIVE_API_CHILD").is_none() {
        return;
    }
    let signals = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP];
    let at_start = signals.map(disposition);
    let mode = std::env::var("FAKE_CUDA_MODE").unwrap();
    let hang = mode == "hang";
    let target = Target::linux_cuda(false);
    let cuda = Subject::Accelerator(Accelerator::Cuda);
    // The probe on threads of this process: the test accepts what the
    // stand-in libraries do to it (they crash, hang or print only in the
    // modes the test sets).
    // SAFETY: the stand-in libraries this test built are the only ones the
    // loader path reaches; a hang is abandoned, and this is a child process.
    let in_threads = |timeout_ms| unsafe { probe_in_threads(&target, timeout_ms) };
    if std::env::var_os("NATIVE_API_PATH").is_some() {
        // The default helper is the command, looked up on PATH.
        assert_eq!(Options::default().helper, PathBuf::from(backend_targets_native_probe::DEFAULT_HELPER));
        let r = probe(&target, &Options { timeout_ms: 2000, ..Options::default() });
        assert_eq!(r.probe.isolation, Isolation::Process);
        if std::env::var("PATH").unwrap().split(':').any(|dir| Path::new(dir).join("backend-targets").exists()) {
            let change = r.change(cuda).unwrap();
            assert_eq!((change.action, change.reason), (ChangeAction::Kept, NativeReason::DeviceAvailable), "{r:?}");
        } else {
            let check = &r.probe.checks[0];
            assert_eq!(check.reason, NativeReason::CheckCrashed, "{r:?}");
            assert!(
                check.message.contains("the helper was not found: put the `backend-targets` command on PATH"),
                "{}",
                check.message
            );
        }
        return;
    }
    if mode == "cwd" {
        for r in [in_threads(2000), probe(&target, &Options { timeout_ms: 2000, helper: BIN.into() })] {
            let change = r.change(cuda).unwrap();
            assert_eq!((change.action, change.reason), (ChangeAction::Dropped, NativeReason::DriverNotFound), "{r:?}");
            assert_eq!(r.probe.ignored_loader_path, [""]);
            if r.probe.isolation == Isolation::Thread {
                let message = &r.probe.checks[0].message;
                assert!(message.contains("found in the working directory through an empty entry"), "{message}");
            }
        }
        return;
    }
    let threads = in_threads(400);
    let helper = probe(&target, &Options { timeout_ms: 400, helper: BIN.into() });
    assert_eq!(threads.probe.isolation, Isolation::Thread);
    assert_eq!(helper.probe.isolation, Isolation::Process);
    for (how, r) in [("threads", &threads), ("helper", &helper)] {
        println!(
            "api: {how}, FAKE_CUDA_MODE {}: {:.1} ms",
            std::env::var("FAKE_CUDA_MODE").unwrap(),
            r.probe.elapsed_ms
        );
        let change = r.change(cuda).unwrap();
        if hang {
            assert_eq!((change.action, change.reason), (ChangeAction::Dropped, NativeReason::Timeout), "{how}");
            assert!(r.probe.elapsed_ms >= 400.0 && r.probe.elapsed_ms < 1400.0, "{how}: {}", r.probe.elapsed_ms);
            assert_eq!(r.effective.accelerator, Accelerator::None);
        } else {
            assert_eq!((change.action, change.reason), (ChangeAction::Kept, NativeReason::DeviceAvailable), "{how}");
            assert_eq!(r.effective, target);
            assert_eq!(r.availability, target.declared_availability());
            assert_eq!(r.probe.checks[0].devices.len(), 1);
        }
    }
    // Both isolations decide alike.
    let decisions =
        |r: &NativeResolution| r.changes.iter().map(|c| (c.subject, c.action, c.reason)).collect::<Vec<_>>();
    assert_eq!(decisions(&threads), decisions(&helper));
    assert_eq!(
        to_json(&threads.changes),
        to_json(&helper.changes).replace("its process group was killed", "its thread was abandoned")
    );
    // Probing in processes installed no signal handler: a signal's
    // disposition is the program's to choose (the command's is crates/cli/src/main.rs).
    assert_eq!(signals.map(disposition), at_start, "the library changed a signal's disposition");
    // The program's call installs them where nobody handles the signal (one
    // ignored by the test's starter, as SIGINT in a background job, stays so).
    backend_targets_native_probe::install_termination_handlers();
    for ((signal, before), now) in signals.into_iter().zip(at_start).zip(signals.map(disposition)) {
        let want_handler = before == libc::SIG_DFL;
        assert_eq!(now != before, want_handler, "signal {signal}: {before} -> {now}");
        assert!(!want_handler || now != libc::SIG_IGN, "signal {signal}: ignored, not handled");
    }
}

/// A signal's disposition in this process (`SIG_DFL`, `SIG_IGN` or a handler).
fn disposition(signal: i32) -> libc::sighandler_t {
    // SAFETY: sigaction with no new action only reads the current one into a
    // zeroed plain struct.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        assert_eq!(libc::sigaction(signal, std::ptr::null(), &mut action), 0);
        action.sa_sigaction
    }
}

#[test]
fn a_library_that_loads_but_cannot_answer_is_unusable() {
    let s = stand_ins();
    let target = json!({"os": "linux", "arch": "x86_64", "accelerator": "cuda", "features": ["cuBLAS"]});
    // Loads (it is a shared object) but has no entry point to answer with.
    let r = probe_target(target.clone(), &[&s.hollow, &s.driver_only], &[]);
    assert_eq!(decided(&r, "feature", "cuBLAS"), pair("dropped", "library-unusable"), "{r:#}");
    let cublas = check(&r, "cuBLAS");
    assert!(cublas["message"].as_str().unwrap().contains("the library has no `cublasGetProperty`"), "{cublas}");
    assert_eq!(cublas["library"], real(&s.hollow.join("libcublas.so.12")));
    // Answers its first call with an error: the library's own status.
    let r = probe_target(target, &[&s.ok], &[("FAKE_CUBLAS_MODE", "fail")]);
    assert_eq!(decided(&r, "feature", "cuBLAS"), pair("dropped", "library-unusable"));
    assert!(check(&r, "cuBLAS")["message"].as_str().unwrap().contains("cublasGetProperty, with status 1"), "{r:#}");
}

#[test]
fn cudnn_9_is_kept_only_with_its_sub_library_and_names_it_when_missing() {
    let s = stand_ins();
    let target = json!({"os": "linux", "arch": "x86_64", "accelerator": "cuda", "features": ["cuDNN"]});
    // The shim alone: its first call would abort; the probe names the missing part instead.
    let r = probe_target(target.clone(), &[&s.shim_only, &s.driver_only], &[]);
    assert_eq!(decided(&r, "feature", "cuDNN"), pair("dropped", "library-unusable"), "{r:#}");
    let message = check(&r, "cuDNN")["message"].as_str().unwrap();
    assert!(message.contains("libcudnn_graph.so.9: cannot open shared object file"), "{message}");
    assert!(check(&r, "cuDNN")["signal"].is_null(), "no abort: {message}");
    // With it: its version and the CUDA it was built for.
    let r = probe_target(target, &[&s.ok], &[]);
    assert_eq!(decided(&r, "feature", "cuDNN"), pair("kept", "library-available"));
    let cudnn = check(&r, "cuDNN");
    assert_eq!((&cudnn["libraryVersion"], &cudnn["cudaMajor"]), (&json!("9.28.0"), &json!(12)), "{cudnn}");
}

#[test]
fn cudnn_through_a_link_is_judged_where_its_shim_looks() {
    let s = stand_ins();
    // The shim's $ORIGIN is the link's folder, which holds no graph library:
    // the real shim aborts there, so the probe must not keep it.
    let target = json!({"os": "linux", "arch": "x86_64", "accelerator": "cuda", "features": ["cuDNN"]});
    let r = probe_target(target.clone(), &[&s.cudnn_link, &s.driver_only], &[]);
    assert_eq!(decided(&r, "feature", "cuDNN"), pair("dropped", "library-unusable"), "{r:#}");
    assert!(check(&r, "cuDNN")["message"].as_str().unwrap().contains("libcudnn_graph.so.9"), "{r:#}");
    // The graph library on the loader's path: the shim finds it there too.
    let r = probe_target(target, &[&s.cudnn_link, &s.driver_only, &s.ok], &[]);
    assert_eq!(decided(&r, "feature", "cuDNN"), pair("kept", "library-available"), "{r:#}");
}

#[test]
fn a_cuda_build_of_libtorch_is_judged_against_the_driver_on_a_cuda_target() {
    let s = stand_ins();
    let root = s.libtorch_cu13.to_str().unwrap();
    let cuda = json!({"os": "linux", "arch": "x86_64", "accelerator": "cuda", "features": ["nativeCuda", "libTorch"]});
    // Behind a 12.2 driver, a libtorch built for CUDA 13 runs no CUDA kernel.
    let r = probe_target(cuda.clone(), &[&s.driver_only], &[("LIBTORCH", root), ("FAKE_CUDA_VERSION", "12020")]);
    assert_eq!(decided(&r, "accelerator", "cuda"), pair("kept", "device-available"));
    assert_eq!(decided(&r, "feature", "libTorch"), pair("dropped", "driver-too-old"), "{r:#}");
    let message = check(&r, "libTorch")["message"].as_str().unwrap();
    assert!(message.contains("libtorch.so needs a CUDA 13 driver; this driver is 12.2"), "{message}");
    // A CUDA 13 driver runs it.
    let r = probe_target(cuda.clone(), &[&s.driver_only], &[("LIBTORCH", root), ("FAKE_CUDA_VERSION", "13000")]);
    assert_eq!(decided(&r, "feature", "libTorch"), pair("kept", "library-available"));
    assert_eq!(check(&r, "libTorch")["cudaMajor"], 13);
    // Without a driver its CPU kernels still run: kept (CUDA is dropped anyway).
    let r = probe_target(cuda, &[], &[("LIBTORCH", root)]);
    assert_eq!(decided(&r, "accelerator", "cuda"), pair("dropped", "driver-not-found"));
    assert_eq!(decided(&r, "feature", "libTorch"), pair("kept", "library-available"));
    // On a CPU target it is not judged against a driver.
    let cpu = json!({"os": "linux", "arch": "x86_64", "accelerator": "none", "features": ["libTorch"]});
    let r = probe_target(cpu, &[&s.driver_only], &[("LIBTORCH", root), ("FAKE_CUDA_VERSION", "12020")]);
    assert_eq!(decided(&r, "feature", "libTorch"), pair("kept", "library-available"));
}

#[test]
fn a_library_built_for_a_newer_cuda_than_the_driver_is_passed_over() {
    let s = stand_ins();
    let target =
        json!({"os": "linux", "arch": "x86_64", "accelerator": "cuda", "features": ["cuBLAS", "cuFFT", "cuDNN"]});
    // Only CUDA 13 libraries behind a 12.2 driver.
    let r = probe_target(target.clone(), &[&s.cu13, &s.driver_only], &[("FAKE_CUDA_VERSION", "12020")]);
    assert_eq!(decided(&r, "accelerator", "cuda"), pair("kept", "device-available"));
    for (feature, file) in [("cuBLAS", "libcublas.so.13"), ("cuFFT", "libcufft.so.12"), ("cuDNN", "libcudnn.so.9")] {
        assert_eq!(decided(&r, "feature", feature), pair("dropped", "driver-too-old"), "{feature}: {r:#}");
        let message = check(&r, feature)["message"].as_str().unwrap();
        let want = format!("{file} needs a CUDA 13 driver");
        assert!(message.contains(&want) && message.contains("this driver is 12.2"), "{feature}: {message}");
        assert_eq!(check(&r, feature)["cudaMajor"], 13, "{feature}");
    }
    // A cuDNN 9 for CUDA 13 first on the path shadows any other libcudnn.so.9.
    let message = check(&r, "cuDNN")["message"].as_str().unwrap();
    assert!(message.contains("put a libcudnn.so.9 built for CUDA 12 first on the loader's path"), "{message}");
    // CUDA 13 and CUDA 12 libraries side by side: the newest the driver runs.
    let r = probe_target(target.clone(), &[&s.cu13, &s.ok], &[("FAKE_CUDA_VERSION", "12020")]);
    assert_eq!(decided(&r, "feature", "cuBLAS"), pair("kept", "library-available"));
    assert_eq!(check(&r, "cuBLAS")["library"], real(&s.ok.join("libcublas.so.12")));
    assert!(check(&r, "cuBLAS")["message"].as_str().unwrap().contains("passed over: libcublas.so.13 needs a CUDA 13"));
    assert_eq!(check(&r, "cuFFT")["library"], real(&s.ok.join("libcufft.so.11")));
    // A CUDA 13 driver runs them.
    let r = probe_target(target, &[&s.cu13, &s.ok], &[("FAKE_CUDA_VERSION", "13000")]);
    assert_eq!(check(&r, "cuBLAS")["library"], real(&s.cu13.join("libcublas.so.13")));
    assert_eq!(check(&r, "cuDNN")["cudaMajor"], 13);
    assert_eq!(r["effective"], r["declared"]);
}

#[test]
fn the_toolkit_stub_and_unnamed_codes_are_named() {
    let s = stand_ins();
    let r = probe(&["linuxCuda"], &[&s.ok], &[("FAKE_CUDA_MODE", "stub")]);
    assert_eq!(decided(&r, "accelerator", "cuda"), pair("dropped", "driver-not-found"));
    let message = check(&r, "cuda")["message"].as_str().unwrap();
    assert!(message.contains("the CUDA toolkit's stub library, not a driver"), "{message}");
    assert!(message.contains("CUDA_ERROR_STUB_LIBRARY"), "{message}");
    assert!(check(&r, "cuda")["driverVersion"].is_null(), "the stub answers no version");
    let r = probe(&["linuxCuda"], &[&s.ok], &[("FAKE_CUDA_MODE", "unknown-code")]);
    assert!(check(&r, "cuda")["message"].as_str().unwrap().ends_with("failed with CUresult 4242"), "{r:#}");
}

#[test]
fn a_library_only_a_python_environment_holds_is_named_not_loaded() {
    let s = stand_ins();
    let venv = s.root.join("venv");
    let site = venv.join("lib/python3.11/site-packages");
    for dir in ["nvidia/cublas/lib", "torch/lib"] {
        std::fs::create_dir_all(site.join(dir)).unwrap();
    }
    std::fs::copy(s.ok.join("libcublas.so.12"), site.join("nvidia/cublas/lib/libcublas.so.12")).unwrap();
    std::fs::copy(s.libtorch.join("lib/libtorch.so"), site.join("torch/lib/libtorch.so")).unwrap();
    let venv = venv.to_str().unwrap();
    let target = json!({"os": "linux", "arch": "x86_64", "accelerator": "cuda", "features": ["cuBLAS", "libTorch"]});
    let r = probe_target(target.clone(), &[&s.driver_only], &[("VIRTUAL_ENV", venv)]);
    assert_eq!(decided(&r, "feature", "cuBLAS"), pair("dropped", "library-not-found"));
    let message = check(&r, "cuBLAS")["message"].as_str().unwrap();
    let file = site.join("nvidia/cublas/lib/libcublas.so.12");
    assert!(message.contains(&format!("libcublas.so.12 is in a Python environment ({})", file.display())), "{message}");
    assert!(message.contains("not on the loader's path"), "{message}");
    assert!(check(&r, "libTorch")["message"].as_str().unwrap().contains("LIBTORCH_USE_PYTORCH=1"), "{r:#}");
    // As tch does: LIBTORCH_USE_PYTORCH takes PyTorch's libtorch.
    let r = probe_target(target, &[&s.driver_only], &[("VIRTUAL_ENV", venv), ("LIBTORCH_USE_PYTORCH", "1")]);
    assert_eq!(decided(&r, "feature", "libTorch"), pair("kept", "library-available"));
    assert_eq!(check(&r, "libTorch")["library"], real(&site.join("torch/lib/libtorch.so")));
    assert_eq!(check(&r, "libTorch")["libraryVersion"], "2.15");
}

/// The pids a `daemon` or `fork-hang` stand-in wrote: its own, then the
/// check's process (its parent).
fn pids_in(file: &Path) -> (i32, i32) {
    let start = Instant::now();
    loop {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let numbers: Vec<i32> = text.split_whitespace().filter_map(|n| n.parse().ok()).collect();
        if text.ends_with('\n') && numbers.len() == 2 {
            return (numbers[0], numbers[1]);
        }
        assert!(start.elapsed() < Duration::from_secs(10), "no pids in {}", file.display());
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Whether `pid` is a live process (not gone, not a zombie), waiting up to
/// a second for it to go.
fn alive(pid: i32) -> bool {
    let start = Instant::now();
    loop {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat.rsplit(')').next().and_then(|rest| rest.split_whitespace().next()).unwrap_or("");
        if state.is_empty() || state == "Z" || state == "X" {
            return false;
        }
        if start.elapsed() > Duration::from_secs(1) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn no_process_outlives_the_probe() {
    let s = stand_ins();
    // A driver that forks a process and answers: the fork is ended with the check.
    let file = s.root.join("daemon.pid");
    let _ = std::fs::remove_file(&file);
    let env = [("FAKE_CUDA_MODE", "daemon"), ("FAKE_CUDA_PIDFILE", file.to_str().unwrap())];
    let run = command(&["probe", "linuxCuda"], &[&s.ok], &env, "");
    assert_eq!(decided(&run.json, "accelerator", "cuda"), pair("kept", "device-available"));
    assert!(run.wall < Duration::from_secs(2), "waited for the fork: {:?}", run.wall);
    let (fork, check) = pids_in(&file);
    assert!(!alive(fork) && !alive(check), "left behind: fork {fork} ({}), check {check}", alive(fork));
    // A driver that forks and hangs: both ended at the deadline.
    let file = s.root.join("fork-hang.pid");
    let _ = std::fs::remove_file(&file);
    let env = [("FAKE_CUDA_MODE", "fork-hang"), ("FAKE_CUDA_PIDFILE", file.to_str().unwrap())];
    let run = command(&["probe", "linuxCuda", "--timeout-ms", "300"], &[&s.ok], &env, "");
    assert_eq!(decided(&run.json, "accelerator", "cuda"), pair("dropped", "timeout"));
    let (fork, check) = pids_in(&file);
    assert!(!alive(fork) && !alive(check), "left behind at the deadline");
}

/// `bin probe linuxCuda` (bounded at 20 s) against the working stand-ins,
/// the driver in `mode` writing its pids to `pidfile` (removed first), stdout
/// piped or not; each signal in `dispositions` set to its action in the child
/// before exec, as the shell that starts a probe leaves it (a background job
/// or `nohup` ignores SIGINT and SIGHUP, a terminal does not).
fn pidfile_probe(
    bin: &Path,
    mode: &str,
    pidfile: &Path,
    stdout: Stdio,
    dispositions: Vec<(i32, libc::sighandler_t)>,
) -> Command {
    let s = stand_ins();
    let _ = std::fs::remove_file(pidfile);
    let mut cmd = Command::new(bin);
    cmd.args(["probe", "linuxCuda", "--timeout-ms", "20000"])
        .env("LD_LIBRARY_PATH", &s.ok)
        .env("FAKE_CUDA_MODE", mode)
        .env("FAKE_CUDA_PIDFILE", pidfile)
        .stdout(stdout)
        .stderr(Stdio::null());
    // SAFETY: signal is async-signal-safe, and the closure allocates nothing
    // (it reads the vector it owns); it runs in the child before exec.
    unsafe {
        cmd.pre_exec(move || {
            for &(signal, action) in &dispositions {
                libc::signal(signal, action);
            }
            Ok(())
        })
    };
    cmd
}

/// Starts `probe linuxCuda` with a driver that forks and hangs, waits for
/// the fork, ends the probe with `signal`, and answers the fork's and the
/// check's pids.
fn probe_ended_by(signal: i32, name: &str) -> (i32, i32) {
    let file = stand_ins().root.join(format!("ended-{name}.pid"));
    // The probe handles `signal` only where it would end the probe (its
    // default action); a test run as a background job starts with SIGINT
    // ignored, and the probe would inherit that: set it as a terminal does.
    let dispositions = if signal == libc::SIGKILL { vec![] } else { vec![(signal, libc::SIG_DFL)] };
    let mut child = pidfile_probe(Path::new(BIN), "fork-hang", &file, Stdio::null(), dispositions).spawn().unwrap();
    let pids = pids_in(&file);
    // SAFETY: signals a child this test started.
    unsafe { libc::kill(child.id() as i32, signal) };
    let status = child.wait().unwrap();
    assert_eq!(std::os::unix::process::ExitStatusExt::signal(&status), Some(signal), "{status}");
    pids
}

#[test]
fn ending_the_probe_ends_its_checks() {
    // SIGTERM (`kill PID`, Node's `child.kill()`), SIGINT and SIGHUP: the
    // check's whole process group goes with the probe.
    for (signal, name) in [(libc::SIGTERM, "SIGTERM"), (libc::SIGINT, "SIGINT"), (libc::SIGHUP, "SIGHUP")] {
        let (fork, check) = probe_ended_by(signal, name);
        assert!(!alive(check), "{name}: the check {check} outlived the probe");
        assert!(!alive(fork), "{name}: the driver's fork {fork} outlived the probe");
    }
    // SIGKILL cannot be caught: the check dies with its parent (Linux's
    // parent-death signal); what the driver forked is the one documented gap.
    let (fork, check) = probe_ended_by(libc::SIGKILL, "SIGKILL");
    assert!(!alive(check), "SIGKILL: the check {check} outlived the probe");
    // SAFETY: ends the orphan this case leaves.
    unsafe { libc::kill(fork, libc::SIGKILL) };
}

/// The `SigBlk` and `SigIgn` masks of `pid` (bit `n - 1` for signal `n`).
fn signal_masks(pid: i32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let field = |name: &str| {
        let line = status.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("no {name}: {status}"));
        u64::from_str_radix(line[name.len()..].trim(), 16).unwrap()
    };
    (field("SigBlk:"), field("SigIgn:"))
}

#[test]
fn checks_start_with_termination_signals_unblocked_and_default() {
    // A probe started as a background job or under nohup has SIGINT and
    // SIGHUP ignored; its checks (and what a driver forks) must not inherit
    // that, nor the mask the probe holds while it spawns them.
    let file = stand_ins().root.join("signals.pid");
    let ignored = vec![(libc::SIGINT, libc::SIG_IGN), (libc::SIGHUP, libc::SIG_IGN)];
    let mut cmd = pidfile_probe(Path::new(BIN), "fork-hang", &file, Stdio::piped(), ignored);
    let start = Instant::now();
    let child = cmd.spawn().unwrap();
    let (fork, check_pid) = pids_in(&file);
    let termination: u64 = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP].iter().map(|&n| 1u64 << (n - 1)).sum();
    for (what, pid) in [("check", check_pid), ("driver's fork", fork)] {
        let (blocked, ignored) = signal_masks(pid);
        assert_eq!(blocked, 0, "the {what} {pid} starts with signals blocked: SigBlk {blocked:#x}");
        assert_eq!(ignored & termination, 0, "the {what} {pid} ignores termination signals: SigIgn {ignored:#x}");
    }
    // `kill PID` ends a driver's leftover helper, and the check itself.
    // SAFETY: signals processes this test's probe started.
    unsafe { libc::kill(fork, libc::SIGTERM) };
    assert!(!alive(fork), "the driver's fork {fork} survived SIGTERM");
    // SAFETY: as above.
    unsafe { libc::kill(check_pid, libc::SIGTERM) };
    let output = child.wait_with_output().unwrap();
    assert!(start.elapsed() < Duration::from_secs(10), "the check survived SIGTERM: {:?}", start.elapsed());
    let r: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(decided(&r, "accelerator", "cuda"), pair("dropped", "check-crashed"), "{r:#}");
    assert_eq!(check(&r, "cuda")["signal"], libc::SIGTERM, "{r:#}");
}

#[test]
fn what_a_driver_detaches_with_setsid_ends_with_its_check() {
    let s = stand_ins();
    // A daemon that left the check's group and session: reparented to the
    // command (a child subreaper) when its parent dies, and ended with the
    // checks; once started by the check itself, once by a process that
    // exited at once (a double fork).
    for mode in ["setsid", "setsid-twice"] {
        let file = s.root.join(format!("{mode}.pid"));
        let _ = std::fs::remove_file(&file);
        let env = [("FAKE_CUDA_MODE", mode), ("FAKE_CUDA_PIDFILE", file.to_str().unwrap())];
        let run = command(&["probe", "linuxCuda"], &[&s.ok], &env, "");
        assert_eq!(decided(&run.json, "accelerator", "cuda"), pair("kept", "device-available"), "{mode}");
        assert!(run.wall < Duration::from_secs(2), "{mode}: waited for the daemon: {:?}", run.wall);
        let (daemon, _) = pids_in(&file);
        let left = alive(daemon);
        if left {
            // SAFETY: ends the daemon this case started, left behind.
            unsafe { libc::kill(daemon, libc::SIGKILL) };
        }
        assert!(!left, "{mode}: the detached daemon {daemon} outlived the probe");
    }
}

#[test]
fn a_hung_check_that_escapes_its_group_ends_with_the_probe() {
    let s = stand_ins();
    // A driver's initialiser moves a process out of the check's group (a
    // fork that makes its own session, or joins the probe's group, or the
    // check's process itself joining the probe's group), clears its
    // parent-death signal, and the check hangs: at the deadline the probe
    // ends the check's group, which no longer holds it. Once the probe has
    // exited, none of them may be alive.
    for mode in ["fork-setsid", "fork-join", "check-join"] {
        let file = s.root.join(format!("escape-{mode}.pid"));
        let _ = std::fs::remove_file(&file);
        let env = [("ESCAPE_MODE", mode), ("ESCAPE_PIDFILE", file.to_str().unwrap())];
        let run = command(&["probe", "linuxCuda", "--timeout-ms", "500"], &[&s.escape], &env, "");
        assert_eq!(decided(&run.json, "accelerator", "cuda"), pair("dropped", "timeout"), "{mode}: {:#}", run.json);
        let (escaped, check_pid) = pids_in(&file);
        // (In `check-join` the check is the one that escaped: one pid.)
        let mut pids = vec![escaped, check_pid];
        pids.dedup();
        let left: Vec<i32> = pids.into_iter().filter(|&pid| alive(pid)).collect();
        for &pid in &left {
            // SAFETY: ends a process this case's probe started, left behind.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        assert!(left.is_empty(), "{mode}: {left:?} outlived the probe (escaped {escaped}, check {check_pid})");
        assert!(run.wall < Duration::from_secs(3), "{mode}: the probe took {:?}", run.wall);
    }
    // The probe ended by SIGTERM while the check that left its group hangs:
    // the check goes with it.
    let file = s.root.join("escape-sigterm.pid");
    let _ = std::fs::remove_file(&file);
    let mut cmd = Command::new(BIN);
    cmd.args(["probe", "linuxCuda", "--timeout-ms", "20000"])
        .env("LD_LIBRARY_PATH", &s.escape)
        .env("ESCAPE_MODE", "check-join")
        .env("ESCAPE_PIDFILE", &file)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: signal is async-signal-safe; the closure runs in the child
    // before exec (SIGTERM at its default, as a terminal leaves it).
    unsafe {
        cmd.pre_exec(|| {
            libc::signal(libc::SIGTERM, libc::SIG_DFL);
            Ok(())
        })
    };
    let mut child = cmd.spawn().unwrap();
    let (_, check_pid) = pids_in(&file);
    // SAFETY: signals the probe this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    assert_eq!(std::os::unix::process::ExitStatusExt::signal(&status), Some(libc::SIGTERM), "{status}");
    let left = alive(check_pid);
    if left {
        // SAFETY: ends the check this case started, left behind.
        unsafe { libc::kill(check_pid, libc::SIGKILL) };
    }
    assert!(!left, "the check {check_pid} that left its group outlived the probe ended by SIGTERM");
}

#[test]
fn what_a_driver_detaches_ends_with_a_probe_ended_by_a_signal() {
    let s = stand_ins();
    // The check detaches a daemon (setsid), then hangs; the probe is ended
    // by SIGTERM while it runs: the daemon goes with it.
    let file = s.root.join("setsid-hang.pid");
    let default = vec![(libc::SIGTERM, libc::SIG_DFL)];
    let mut cmd = pidfile_probe(Path::new(BIN), "setsid-hang", &file, Stdio::null(), default);
    let mut child = cmd.spawn().unwrap();
    let (daemon, check_pid) = pids_in(&file);
    let start = Instant::now();
    // SAFETY: signals the probe this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    assert_eq!(std::os::unix::process::ExitStatusExt::signal(&status), Some(libc::SIGTERM), "{status}");
    assert!(start.elapsed() < Duration::from_secs(2), "the probe took {:?} to end", start.elapsed());
    assert!(!alive(check_pid), "the check {check_pid} outlived the probe");
    let left = alive(daemon);
    if left {
        // SAFETY: ends the daemon this case started, left behind.
        unsafe { libc::kill(daemon, libc::SIGKILL) };
    }
    assert!(!left, "the detached daemon {daemon} outlived the probe ended by SIGTERM");
}

#[test]
fn checks_start_when_the_command_is_replaced_or_deleted_mid_run() {
    let s = stand_ins();
    // An upgrade replaces the command's file (or removes it) while a probe
    // runs: the checks that start after it (cuBLAS waits for the driver's
    // check) still run this probe's own executable.
    for replaced in [false, true] {
        let dir = s.root.join(format!("upgrade-{replaced}"));
        std::fs::create_dir_all(&dir).unwrap();
        let bin = dir.join("backend-targets");
        std::fs::copy(BIN, &bin).unwrap();
        let file = dir.join("slow.pid");
        let mut cmd = pidfile_probe(&bin, "slow:300", &file, Stdio::piped(), vec![]);
        // The copy's write descriptor may still be open in a child another
        // test forked meanwhile (until its exec): "text file busy" a moment.
        let start = Instant::now();
        let child = loop {
            match cmd.spawn() {
                Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && start.elapsed().as_secs() < 5 => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                spawned => break spawned.unwrap(),
            }
        };
        pids_in(&file);
        std::fs::remove_file(&bin).unwrap();
        if replaced {
            std::fs::write(&bin, "#!/bin/sh\nexit 1\n").unwrap();
            std::fs::set_permissions(&bin, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        }
        let output = child.wait_with_output().unwrap();
        let r: Value = serde_json::from_slice(&output.stdout).unwrap();
        let what = if replaced { "replaced" } else { "deleted" };
        assert_eq!(decided(&r, "accelerator", "cuda"), pair("kept", "device-available"), "{what}: {r:#}");
        assert_eq!(decided(&r, "feature", "cuBLAS"), pair("kept", "library-available"), "{what}: {r:#}");
    }
}

#[test]
fn what_a_library_prints_is_never_taken_for_the_answer() {
    let s = stand_ins();
    // A forged answer on stdout and stderr, then the real failure.
    for _ in 0..5 {
        let r = probe(&["linuxCuda"], &[&s.ok], &[("FAKE_CUDA_MODE", "forge")]);
        assert_eq!(decided(&r, "accelerator", "cuda"), pair("dropped", "no-device"), "{r:#}");
        assert!(!r.to_string().contains("H100"));
    }
    // A forged answer, then the process exits: no answer at all.
    let r = probe(&["linuxCuda"], &[&s.ok], &[("FAKE_CUDA_MODE", "forge-exit")]);
    assert_eq!(decided(&r, "accelerator", "cuda"), pair("dropped", "check-crashed"), "{r:#}");
    assert!(check(&r, "cuda")["message"].as_str().unwrap().contains("without an answer"));
    // Honest chatter (constructor and destructor output, 16 MiB of it) and a
    // destructor that hangs after the answer: the answer, every time, at once.
    for mode in ["stdio", "chatter:16777216", "destructor-hang"] {
        for _ in 0..5 {
            let run =
                command(&["probe", "linuxCuda", "--timeout-ms", "3000"], &[&s.ok], &[("FAKE_CUDA_MODE", mode)], "");
            assert_eq!(decided(&run.json, "accelerator", "cuda"), pair("kept", "device-available"), "{mode}");
            assert!(run.wall < Duration::from_millis(2500), "{mode}: {:?}", run.wall);
        }
    }
    // A library that exits inside its call: no answer.
    let r = probe(&["linuxCuda"], &[&s.ok], &[("FAKE_CUDA_MODE", "exit")]);
    assert_eq!(decided(&r, "accelerator", "cuda"), pair("dropped", "check-crashed"));
}

#[test]
fn a_library_that_takes_the_answer_channel_gets_no_answer_written_to_it() {
    let s = stand_ins();
    // A library closes descriptor 3 and opens its log, which gets 3: the
    // answer still reaches the probe, and nothing is appended to the log.
    let log = s.root.join("take-channel.log");
    let _ = std::fs::remove_file(&log);
    let env = [("FAKE_CUDA_MODE", "take-channel"), ("FAKE_CUDA_LOG", log.to_str().unwrap())];
    let r = probe(&["linuxCuda"], &[&s.ok], &env);
    assert_eq!(decided(&r, "accelerator", "cuda"), pair("kept", "device-available"), "{r:#}");
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "", "the answer went into the library's log");
    // It closes every descriptor first: no channel is left, and the probe
    // says so; still nothing in the log.
    let log = s.root.join("take-all.log");
    let _ = std::fs::remove_file(&log);
    let env = [("FAKE_CUDA_MODE", "take-all"), ("FAKE_CUDA_LOG", log.to_str().unwrap())];
    let r = probe(&["linuxCuda"], &[&s.ok], &env);
    assert_eq!(decided(&r, "accelerator", "cuda"), pair("dropped", "check-crashed"), "{r:#}");
    let message = check(&r, "cuda")["message"].as_str().unwrap();
    assert!(message.contains("lost its answer channel"), "{message}");
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "", "the answer went into the library's log");
}

#[test]
fn a_library_that_exits_is_reported_as_exiting_with_its_status_and_step() {
    let s = stand_ins();
    // A vendor library whose initialiser calls exit(3) (3 was once also the
    // status the check used for a lost answer channel): the library's exit,
    // with its status and the step, not a channel it took.
    let r = probe(&["linuxCuda"], &[&s.ok], &[("FAKE_CUDA_MODE", "load-exit:3")]);
    assert_eq!(decided(&r, "accelerator", "cuda"), pair("dropped", "check-crashed"), "{r:#}");
    let cuda = check(&r, "cuda");
    let message = cuda["message"].as_str().unwrap();
    assert!(
        message.contains(
            "the library exited the process with status 3 during the load of libcuda.so.1 (its initialisers)"
        ),
        "{message}"
    );
    assert!(!message.contains("answer channel"), "{message}");
    assert!(cuda.get("signal").is_none_or(Value::is_null), "{cuda}");
    // Another status, and an exit inside a call (cuInit's exit(0)).
    let r = probe(&["linuxCuda"], &[&s.ok], &[("FAKE_CUDA_MODE", "load-exit:1")]);
    let message = check(&r, "cuda")["message"].as_str().unwrap();
    assert!(message.contains("with status 1 during the load of libcuda.so.1"), "{message}");
    let r = probe(&["linuxCuda"], &[&s.ok], &[("FAKE_CUDA_MODE", "exit")]);
    let message = check(&r, "cuda")["message"].as_str().unwrap();
    assert!(message.contains("with status 0 during a call into libcuda.so.1"), "{message}");
    // A crash says its step too.
    let r = probe(&["linuxCuda"], &[&s.ok], &[("FAKE_CUDA_MODE", "crash")]);
    let message = check(&r, "cuda")["message"].as_str().unwrap();
    assert!(message.contains("(SIGSEGV) during a call into libcuda.so.1"), "{message}");
}

/// Runs `bin args…` as `sh -c` would after starting `sleep 30` in the
/// background and `exec`ing the command: the sleep is a child the command
/// inherited through exec, not one it started. Answers the sleep's pid and
/// the command's status and stdout (the pid's line taken off).
fn exec_with_an_inherited_child(args: &[&str], env: &[(&str, &str)], stdin: &str) -> (i32, i32, String) {
    let script = r#"sleep 30 </dev/null >/dev/null 2>&1 & echo $!; exec "$0" "$@""#;
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(script).arg(BIN).args(args);
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.env("PATH", std::env::var_os("PATH").unwrap_or_default()).envs(env.iter().copied());
    let mut child = cmd.spawn().unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let (pid, rest) = stdout.split_once('\n').unwrap_or_else(|| panic!("no pid line: {stdout:?}"));
    let status = output.status.code().unwrap_or_else(|| panic!("killed: {}", output.status));
    (pid.trim().parse().unwrap(), status, rest.to_string())
}

#[test]
fn probe_leaves_alone_a_child_it_inherited_through_exec() {
    let s = stand_ins();
    let request = r#"{"ops": ["add"], "target": {"os": "linux", "arch": "x86_64"}}"#;
    let library_path = [("LD_LIBRARY_PATH", s.ok.to_str().unwrap())];
    for (args, stdin, env) in [
        (&["probe", "linuxCpu"][..], "", &[][..]),
        (&["plan", "--probe"], request, &[]),
        (&["probe", "linuxCuda"], "", &library_path),
    ] {
        let (sleep, status, stdout) = exec_with_an_inherited_child(args, env, stdin);
        let left = alive(sleep);
        if left {
            // SAFETY: ends the sleep this case started.
            unsafe { libc::kill(sleep, libc::SIGKILL) };
        }
        assert_eq!(status, 0, "{args:?}: {stdout}");
        let answer: Value = serde_json::from_str(&stdout).expect(&stdout);
        assert!(answer.is_object(), "{args:?}: {answer}");
        assert!(left, "{args:?}: the command killed the sleep {sleep} it inherited through exec, not its probe's");
    }
}

/// `unshare -rm sh -c 'mount -t tmpfs none /proc && exec bin args…'`: the
/// command where no `/proc` is mounted (a chroot, a container without it);
/// `None` where this machine cannot make such a namespace.
fn without_proc(args: &[&str], env: &[(&str, &str)], stdin: &str) -> Option<Run> {
    let script = r#"mount -t tmpfs none /proc && test ! -e /proc/self && exec "$0" "$@""#;
    let possible = Command::new("unshare")
        .args(["-rm", "sh", "-c", script, "true"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !possible {
        return None;
    }
    let mut cmd = Command::new("unshare");
    cmd.args(["-rm", "sh", "-c", script, BIN]).args(args).envs(env.iter().copied());
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = cmd.spawn().unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    Some(Run {
        json: serde_json::from_str(&stdout).unwrap_or(Value::Null),
        stdout,
        stderr: String::from_utf8(output.stderr).unwrap(),
        status: output.status.code().expect("exited, not killed"),
        wall: start.elapsed(),
    })
}

#[test]
fn without_proc_the_probe_answers_what_it_could_not_check() {
    let s = stand_ins();
    let Some(run) = without_proc(&["probe", "linuxCpu"], &[], "") else {
        eprintln!("skipped: no user and mount namespace here (unshare -rm), so no run without /proc");
        return;
    };
    assert_eq!((run.status, run.stderr.as_str()), (0, ""), "{}", run.stderr);
    assert_eq!(run.json["probe"]["checks"], json!([]), "{:#}", run.json);
    assert_eq!(run.json["effective"], run.json["declared"]);
    // plan --probe plans against it.
    let request = r#"{"ops": ["add"], "target": {"os": "linux", "arch": "x86_64"}}"#;
    let run = without_proc(&["plan", "--probe"], &[], request).unwrap();
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(run.json["ok"], true, "{:#}", run.json);
    // A check that needs a process cannot start: it says so, and why.
    let run = without_proc(&["probe", "linuxCuda"], &[("LD_LIBRARY_PATH", s.ok.to_str().unwrap())], "").unwrap();
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(run.wall < Duration::from_secs(5), "{:?}", run.wall);
    assert_eq!(decided(&run.json, "accelerator", "cuda"), pair("dropped", "check-crashed"), "{:#}", run.json);
    let message = check(&run.json, "cuda")["message"].as_str().unwrap();
    assert!(message.contains("/proc is not mounted here"), "{message}");
}

#[test]
fn every_value_a_driver_returns_is_bounded_and_checked() {
    let s = stand_ins();
    // 100,000 devices: counted, 64 listed, at once.
    let run = command(&["probe", "linuxCuda"], &[&s.ok], &[("FAKE_CUDA_MODE", "devices:100000")], "");
    let cuda = check(&run.json, "cuda");
    assert_eq!(cuda["devices"].as_array().unwrap().len(), 64);
    assert!(cuda["message"].as_str().unwrap().starts_with("100000 CUDA devices (the first 64 listed)"));
    assert!(run.wall < Duration::from_secs(2), "{:?}", run.wall);
    // A count of -1 is not a count.
    let r = probe(&["linuxCuda"], &[&s.ok], &[("FAKE_CUDA_MODE", "count:-1")]);
    assert_eq!(decided(&r, "accelerator", "cuda"), pair("dropped", "driver-init-failed"));
    assert!(check(&r, "cuda")["message"].as_str().unwrap().contains("-1, which is not a count"));
    // A name that fills its buffer without a NUL is read within the buffer.
    let r = probe(&["linuxCuda"], &[&s.ok], &[("FAKE_CUDA_MODE", "long-name")]);
    assert_eq!(check(&r, "cuda")["devices"][0]["name"], "A".repeat(256));
    // Memory beyond 2^53 and a compute capability of -5.-5 are not reported.
    let r = probe(&["linuxCuda"], &[&s.ok], &[("FAKE_CUDA_MODE", "wild-values")]);
    let device = &check(&r, "cuda")["devices"][0];
    assert_eq!(device, &json!({"index": 0, "name": "Fake GPU 0"}), "{r:#}");
    // A 1 MiB error name is cut.
    let r = probe(&["linuxCuda"], &[&s.ok], &[("FAKE_CUDA_MODE", "long-error")]);
    let message = check(&r, "cuda")["message"].as_str().unwrap();
    assert!(message.len() < 400 && message.contains(&"E".repeat(256)), "{} bytes", message.len());
    assert!(r.to_string().len() < 4096);
}

#[test]
fn a_check_that_ends_near_the_deadline_is_answered_or_timed_out_never_crashed() {
    let s = stand_ins();
    for timeout in [1, 2, 3, 5, 8, 13, 21, 34] {
        let r = probe(&["linuxCuda", "--timeout-ms", &timeout.to_string()], &[&s.ok], &[]);
        let (_, reason) = decided(&r, "accelerator", "cuda");
        assert!(reason == "device-available" || reason == "timeout", "--timeout-ms {timeout}: {r:#}");
    }
}

/// Checks `value` against a schema of the committed definitions: `$ref`,
/// `type`, `properties`/`required`, `items`, `oneOf`, `anyOf`, `enum`, `const` (what
/// schemars writes for these forms). Unknown properties are refused, except
/// inside a `oneOf` branch (a flattened enum's, which names one key).
fn conforms(defs: &Value, schema: &Value, value: &Value, path: &str) -> Result<(), String> {
    check_value(defs, schema, value, path, true)
}

fn check_value(defs: &Value, schema: &Value, value: &Value, path: &str, strict: bool) -> Result<(), String> {
    let conforms = |defs, schema, value, path: &str| check_value(defs, schema, value, path, strict);
    let branch = |defs, schema, value, path: &str| check_value(defs, schema, value, path, false);
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.trim_start_matches("#/$defs/");
        conforms(defs, &defs[name], value, path)?;
    }
    if let Some(options) = schema["oneOf"].as_array() {
        let passing = options.iter().filter(|s| branch(defs, s, value, path).is_ok()).count();
        if passing != 1 {
            return Err(format!("{path}: {passing} of oneOf match {value}"));
        }
    }
    if let Some(options) = schema["anyOf"].as_array()
        && !options.iter().any(|s| conforms(defs, s, value, path).is_ok())
    {
        return Err(format!("{path}: no anyOf matches {value}"));
    }
    if let Some(constant) = schema.get("const")
        && constant != value
    {
        return Err(format!("{path}: {value} is not {constant}"));
    }
    if let Some(values) = schema["enum"].as_array()
        && !values.contains(value)
    {
        return Err(format!("{path}: {value} not in {values:?}"));
    }
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    let type_of = match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_u64() || n.is_i64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    if !types.is_empty() && !types.iter().any(|&t| t == type_of || (t == "number" && type_of == "integer")) {
        return Err(format!("{path}: {type_of} is not {types:?}"));
    }
    if let Some(items) = schema.get("items")
        && let Some(array) = value.as_array()
    {
        for (i, item) in array.iter().enumerate() {
            conforms(defs, items, item, &format!("{path}[{i}]"))?;
        }
    }
    if let Some(object) = value.as_object()
        && schema.get("properties").is_some()
    {
        let properties = schema["properties"].as_object().unwrap();
        for required in schema["required"].as_array().into_iter().flatten() {
            if !object.contains_key(required.as_str().unwrap()) {
                return Err(format!("{path}: missing {required}"));
            }
        }
        for (key, field) in object {
            // A field of a flattened `oneOf` branch is checked by the branch.
            let in_branch =
                schema["oneOf"].as_array().into_iter().flatten().any(|b| b["properties"].get(key).is_some());
            match properties.get(key) {
                Some(field_schema) => conforms(defs, field_schema, field, &format!("{path}.{key}"))?,
                None if in_branch || !strict => {}
                None => return Err(format!("{path}: unknown property {key}")),
            }
        }
    }
    Ok(())
}

#[test]
fn the_outputs_conform_to_their_json_schemas() {
    let s = stand_ins();
    let defs: Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas/defs.json")).unwrap(),
    )
    .unwrap();
    let resolution = json!({"$ref": "#/$defs/NativeResolution"});
    let outputs = [
        probe(
            &["linuxCuda", "--enable-libtorch"],
            &[&s.ok],
            &[("FAKE_CUDA_MODE", "ok:2"), ("LIBTORCH", s.libtorch.to_str().unwrap())],
        ),
        probe(&["linuxCuda"], &[&s.ok], &[("FAKE_CUDA_MODE", "crash")]),
        probe(&["linuxRocm"], &[&s.ok], &[]),
        probe(&["customChip"], &[], &[]),
        probe(&["macOSMetal"], &[], &[]),
    ];
    for output in &outputs {
        conforms(&defs, &resolution, output, "").unwrap();
    }
    // The checker refuses what the schema does not describe.
    let mut wrong = outputs[0].clone();
    wrong["changes"][0]["feature"] = json!("cuBLAS");
    assert!(conforms(&defs, &resolution, &wrong, "").is_err(), "a change naming two subjects");
    wrong = outputs[0].clone();
    wrong["probe"]["checks"][0]["reason"] = json!("fine");
    assert!(conforms(&defs, &resolution, &wrong, "").is_err(), "an unknown reason");

    let request = json!({"ops": ["add"], "target": {"accelerator": "cuda", "features": ["cuBLAS"]}}).to_string();
    let run = command(&["plan", "--probe"], &[&s.ok], &[], &request);
    assert_eq!(run.status, 0, "{}", run.stderr);
    conforms(&defs, &json!({"$ref": "#/$defs/ProbedPlanResult"}), &run.json, "").unwrap();
}
