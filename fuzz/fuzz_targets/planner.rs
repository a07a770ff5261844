//! Structured planner fuzzing: bytes choose the availability, the configs, the
//! catalog and the ops; every plan must respect SPEC §5 (each kernel's capsule
//! is admitted by the availability, of its op, on the config's device, forward,
//! trusted by its policy; `only(p)` yields only `p`: restated here), and per-op
//! mode never fails where whole-plan mode succeeds.
#![no_main]
use backend_targets::{vocab::*, *};
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
    let plan_in = |mode| {
        let request = PlanRequest {
            configs: Some(configs.clone()),
            availability: Some(availability.clone()),
            capsules: Some(catalog.clone()),
            mode,
            ..PlanRequest::new(ops.clone())
        };
        plan(&request, &Limits::DEFAULT).expect("a valid request")
    };
    let whole = plan_in(PlanMode::WholePlan);
    let per_op = plan_in(PlanMode::PerOp);
    if whole.ok {
        assert!(per_op.ok, "per-op fallback failed where a whole plan exists");
    }
    // SPEC §5's rules a kernel's capsule must meet, restated here.
    let trust_rank = |level| TrustLevel::ALL.iter().position(|&l| l == level).unwrap();
    let policy_rank = |policy| TrustPolicy::ALL.iter().position(|&p| p == policy).unwrap();
    for result in [&whole, &per_op] {
        for kernel in result.kernels.iter().flatten() {
            let config = &configs[kernel.config_index];
            let capsule = catalog.iter().find(|c| c.name == kernel.capsule).unwrap();
            assert!(
                availability.devices.contains(&capsule.device) && availability.providers.contains(&capsule.provider)
            );
            assert_eq!((capsule.op, capsule.device), (kernel.op, config.device));
            assert!(capsule.supports_forward);
            assert!(trust_rank(capsule.trust_level) <= policy_rank(config.trust_policy));
            if let BackendPreference::Only(p) = config.backend {
                assert_eq!(capsule.provider, p);
            }
        }
    }
});
