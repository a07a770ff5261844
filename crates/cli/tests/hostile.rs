//! Hostile input (inputs built to exhaust or confuse) met by the command as a process: full disks,
//! closed streams, reads bounded by the byte limit, options given twice.
//! (What the library alone meets: tests/hostile.rs in the core.)

// Native only (WASI cannot spawn a process).
#[cfg(not(target_family = "wasm"))]
mod command {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};

    fn command() -> Command {
        Command::new(env!("CARGO_BIN_EXE_backend-targets"))
    }

    fn run(args: &[&str], stdin: &[u8]) -> (i32, Vec<u8>, String) {
        let mut child =
            command().args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let _ = child.stdin.take().unwrap().write_all(stdin);
        let out = child.wait_with_output().unwrap();
        (out.status.code().unwrap(), out.stdout, String::from_utf8(out.stderr).unwrap())
    }

    #[test]
    fn a_full_disk_is_an_error_with_a_status_and_a_line() {
        let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else { return };
        let mut child = command().arg("presets").stdout(full).stderr(Stdio::piped()).spawn().unwrap();
        let mut stderr = String::new();
        child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
        assert_eq!(child.wait().unwrap().code(), Some(3));
        assert!(
            stderr.starts_with("backend-targets: error [output] at (top level): cannot write the output"),
            "{stderr}"
        );
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_closed_stdout_is_an_error_with_a_status_and_a_line() {
        use std::os::unix::process::CommandExt;
        // `backend-targets presets >&-`: the runtime puts /dev/null where
        // the descriptor was; the output would be lost with status 0.
        for args in [&["presets"][..], &["probe", "linuxCpu"], &["plan"]] {
            let mut cmd = command();
            cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::null()).stderr(Stdio::piped());
            // SAFETY: close is async-signal-safe; it runs in the child before exec.
            unsafe { cmd.pre_exec(|| if libc::close(1) == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) }) };
            let mut child = cmd.spawn().unwrap();
            let _ = child.stdin.take().unwrap().write_all(br#"{"ops": ["add"]}"#);
            let out = child.wait_with_output().unwrap();
            let stderr = String::from_utf8(out.stderr).unwrap();
            assert_eq!(out.status.code(), Some(3), "{args:?}: {stderr}");
            assert_eq!(
                stderr, "backend-targets: error [output] at (top level): cannot write the output: it is closed\n",
                "{args:?}"
            );
        }
    }

    #[test]
    fn a_closed_pipe_ends_quietly_but_not_with_success() {
        // 10,000 ops: some 1.8 MB of output, far more than a pipe holds.
        let request = format!(r#"{{"ops":[{}]}}"#, vec!["\"add\""; 10_000].join(","));
        let mut child =
            command().arg("plan").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        drop(child.stdout.take());
        child.stdin.take().unwrap().write_all(request.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(141));
        assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    }

    #[test]
    fn input_is_read_with_the_byte_limit_never_whole() {
        // An endless stdin: refused once past the limit, not read to the end.
        let mut child = command()
            .args(["plan", "--limit", "requestBytes=1000"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let writer = std::thread::spawn(move || while stdin.write_all(&[b' '; 4096]).is_ok() {});
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.contains("error [limit-exceeded] at (top level): more than 1000 bytes"), "{stderr}");
    }

    #[test]
    fn limits_can_be_raised_up_to_their_ceiling() {
        let request = format!(r#"{{"ops":[{}]}}"#, vec!["\"add\""; 10_001].join(","));
        let (status, _, stderr) = run(&["plan"], request.as_bytes());
        assert_eq!(status, 2);
        assert!(stderr.contains("[limit-exceeded] at ops: 10001 ops, more than the limit ops = 10000"), "{stderr}");
        let (status, stdout, _) = run(&["plan", "--limit", "ops=20000"], request.as_bytes());
        assert_eq!((status, stdout.is_empty()), (0, false));
        let (status, _, stderr) = run(&["plan", "--limit", "ops=1000001"], b"{}");
        assert_eq!(status, 2);
        assert!(
            stderr.contains("[invalid-value] at --limit.ops: the limit ops can be raised to 1000000 at most"),
            "{stderr}"
        );
        let (status, _, stderr) = run(&["plan", "--limit", "ops=1", "--limit", "ops=2"], b"{}");
        assert_eq!(status, 2);
        assert!(stderr.contains("[usage] at --limit: the limit ops is given twice"), "{stderr}");
        let (status, _, stderr) = run(&["plan", "--limit", "opz=1"], b"{}");
        assert_eq!(status, 2);
        assert!(stderr.contains("[unknown-variant] at --limit"), "{stderr}");
    }

    #[test]
    fn a_directory_as_request_is_located_at_the_option() {
        let dir = env!("CARGO_MANIFEST_DIR");
        let (status, _, stderr) = run(&["plan", "--request", dir], b"");
        assert_eq!(status, 2);
        assert!(stderr.contains("error [io] at --request: cannot read"), "{stderr}");
        assert!(stderr.trim_end().ends_with("it is a directory"), "{stderr}");
    }

    #[test]
    fn a_repeated_option_is_an_error() {
        // One rule for every command and option (`--limit` names one limit
        // per use; a limit named twice is refused too).
        for args in [
            &["target", "portableCpu", "--os", "linux", "--os", "macOS"][..],
            &["target", "portableCpu", "--arch", "x86_64", "--arch", "aarch64"],
            &["target", "linuxCuda", "--enable-libtorch", "--enable-libtorch"],
            &["target", "linuxCpu", "--pretty", "--pretty"],
            &["availability", "linuxCpu", "--pretty", "--pretty"],
            &["presets", "--pretty", "--pretty"],
            &["reference-capsules", "--pretty", "--pretty"],
            &["schema", "Target", "--pretty", "--pretty"],
            &["plan", "--request", "a", "--request", "b"],
            &["plan", "-r", "a", "--request", "b"],
            &["plan", "--pretty", "--pretty"],
            &["plan", "--probe", "--probe"],
            &["plan", "--probe", "--timeout-ms", "5", "--timeout-ms", "6"],
            &["plan", "--limit", "ops=5", "--limit", "ops=6"],
            &["probe", "linuxCpu", "--pretty", "--pretty"],
            &["probe", "linuxCpu", "--timeout-ms", "5", "--timeout-ms", "6"],
        ] {
            let (status, stdout, stderr) = run(args, b"{}");
            assert_eq!(status, 2, "{args:?}: {stderr}");
            assert!(stdout.is_empty());
            assert!(stderr.contains("is given twice"), "{args:?}: {stderr}");
        }
    }

    #[test]
    fn schema_takes_pretty() {
        let (status, stdout, _) = run(&["schema", "Target", "--pretty"], b"");
        assert_eq!(status, 0);
        let pretty = String::from_utf8(stdout).unwrap();
        let (_, compact, _) = run(&["schema", "Target"], b"");
        let a: serde_json::Value = serde_json::from_str(&pretty).unwrap();
        let b: serde_json::Value = serde_json::from_slice(&compact).unwrap();
        assert_eq!(a, b);
        assert!(pretty.lines().count() > 10);
    }
}
