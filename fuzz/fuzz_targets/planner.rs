//! Structured planner fuzzing: bytes choose the availability, the configs, the
//! catalog and the ops; every plan must respect SPEC §5 (each kernel's capsule
//! is admitted by the availability and admissible under the config that
//! served it; `only(p)` yields only `p`), and per-op mode never fails where
//! whole-plan mode succeeds.
#![no_main]
use backend_targets::*;
use libfuzzer_sys::fuzz_target;

struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn next(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn pick<T: Copy>(&mut self, all: &[T]) -> T {
        all[self.next() as usize % all.len()]
    }
    fn subset<T: Copy + PartialEq>(&mut self, all: &[T]) -> Vec<T> {
        let mut out = Vec::new();
        for _ in 0..(self.next() % 5) {
            let v = self.pick(all);
            if !out.contains(&v) {
                out.push(v);
            }
        }
        out
    }
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes(data);
    let ops: Vec<BackendOp> = (0..b.next() % 6).map(|_| b.pick(&BackendOp::ALL[..8])).collect();
    let mut devices = vec![Device::Cpu];
    devices.extend(b.subset(&Device::ALL[1..]));
    let mut providers = vec![Provider::Reference, Provider::TorchLean];
    providers.extend(b.subset(&Provider::ALL[2..]));
    let availability = Availability { devices, providers, web_gpu: None };
    let configs: Vec<ExecutionConfig> = (0..1 + b.next() % 3)
        .map(|_| ExecutionConfig {
            device: b.pick(&Device::ALL[..4]),
            backend: match b.next() % 3 {
                0 => BackendPreference::Auto,
                1 => BackendPreference::Prefer(b.pick(Provider::ALL)),
                _ => BackendPreference::Only(b.pick(Provider::ALL)),
            },
            trust_policy: b.pick(TrustPolicy::ALL),
            vjp_mode: b.pick(VJPMode::ALL),
        })
        .collect();
    let catalog: Vec<KernelCapsule> = (0..b.next() % 24)
        .map(|i| KernelCapsule {
            name: format!("c{i}"),
            op: b.pick(&BackendOp::ALL[..8]),
            provider: b.pick(Provider::ALL),
            device: b.pick(&Device::ALL[..4]),
            trust_level: b.pick(TrustLevel::ALL),
            supports_forward: b.next() % 4 != 0,
            vjp_mode: b.pick(VJPMode::ALL),
            requires: None,
        })
        .collect();
    let planner = Planner::new(&catalog, &availability);
    let whole = planner.plan(&ops, &configs, PlanMode::WholePlan);
    let per_op = planner.plan(&ops, &configs, PlanMode::PerOp);
    if whole.ok {
        assert!(per_op.ok, "per-op fallback failed where a whole plan exists");
    }
    for result in [&whole, &per_op] {
        for kernel in result.kernels.iter().flatten() {
            let config = &configs[kernel.config_index];
            let capsule = catalog.iter().find(|c| c.name == kernel.capsule).unwrap();
            assert!(availability.admits(capsule.device, capsule.provider));
            assert!(is_admissible(capsule, kernel.op, config, &availability));
            if let BackendPreference::Only(p) = config.backend {
                assert_eq!(capsule.provider, p);
            }
        }
    }
});
