// Generated from the core (src/probe/web.rs, `Unreached`) by tests/generated_js.rs:
// do not edit; `cargo xtask gen` writes it again.

/** `probe()`'s `timeoutMs` when not given. */
export const DEFAULT_PROBE_TIMEOUT_MS = 2000;

/** `verify`'s `budgetMs` when not given. */
export const DEFAULT_VERIFY_BUDGET_MS = 1000;

/** The version of a kept verdict's form, in its cache key (`verdictKey`). */
export const VERDICT_FORMAT = 3;

/** Where a sentence below says the probe's bound. */
export const TIMEOUT_MS = "{timeoutMs}";

/** Where a sentence below says why the module could not be had. */
export const CAUSE = "{cause}";

/** The answers a probe reaches before any adapter exists, by name: the
 *  `wasm` target resolved by the probe's report (`detect()`), the report
 *  itself its `probe` (`probe()`); `timeoutMs` and `elapsedMs` are 0 and
 *  each sentence says TIMEOUT_MS where the module writes the bound. */
export const UNREACHED = {
  "no-webgpu-api": {
    "declared": {
      "os": "wasi",
      "arch": "wasm32",
      "accelerator": "wasm",
      "features": [
        "webGpu"
      ]
    },
    "effective": {
      "os": "wasi",
      "arch": "wasm32",
      "accelerator": "wasm",
      "features": []
    },
    "availability": {
      "devices": [
        "cpu",
        "wasm"
      ],
      "providers": [
        "reference",
        "torchLean"
      ]
    },
    "changes": [
      {
        "feature": "webGpu",
        "action": "dropped",
        "reason": "no-webgpu-api",
        "detail": "navigator.gpu is missing in this secure context: this browser has no WebGPU, or has it switched off"
      }
    ],
    "asDeclared": [],
    "probe": {
      "available": false,
      "reason": "no-webgpu-api",
      "message": "navigator.gpu is missing in this secure context: this browser has no WebGPU, or has it switched off",
      "apiPresent": false,
      "timeoutMs": 0,
      "elapsedMs": 0.0
    }
  },
  "insecure-context": {
    "declared": {
      "os": "wasi",
      "arch": "wasm32",
      "accelerator": "wasm",
      "features": [
        "webGpu"
      ]
    },
    "effective": {
      "os": "wasi",
      "arch": "wasm32",
      "accelerator": "wasm",
      "features": []
    },
    "availability": {
      "devices": [
        "cpu",
        "wasm"
      ],
      "providers": [
        "reference",
        "torchLean"
      ]
    },
    "changes": [
      {
        "feature": "webGpu",
        "action": "dropped",
        "reason": "no-webgpu-api",
        "detail": "navigator.gpu is missing: this page is not a secure context, and WebGPU is only offered over https or on localhost"
      }
    ],
    "asDeclared": [],
    "probe": {
      "available": false,
      "reason": "no-webgpu-api",
      "message": "navigator.gpu is missing: this page is not a secure context, and WebGPU is only offered over https or on localhost",
      "apiPresent": false,
      "timeoutMs": 0,
      "elapsedMs": 0.0
    }
  },
  "null-webgpu-api": {
    "declared": {
      "os": "wasi",
      "arch": "wasm32",
      "accelerator": "wasm",
      "features": [
        "webGpu"
      ]
    },
    "effective": {
      "os": "wasi",
      "arch": "wasm32",
      "accelerator": "wasm",
      "features": []
    },
    "availability": {
      "devices": [
        "cpu",
        "wasm"
      ],
      "providers": [
        "reference",
        "torchLean"
      ]
    },
    "changes": [
      {
        "feature": "webGpu",
        "action": "dropped",
        "reason": "no-webgpu-api",
        "detail": "navigator.gpu is null: this browser has the WebGPU API switched on without an implementation (as WebKitGTK's WebGPU setting does on Linux)"
      }
    ],
    "asDeclared": [],
    "probe": {
      "available": false,
      "reason": "no-webgpu-api",
      "message": "navigator.gpu is null: this browser has the WebGPU API switched on without an implementation (as WebKitGTK's WebGPU setting does on Linux)",
      "apiPresent": false,
      "timeoutMs": 0,
      "elapsedMs": 0.0
    }
  },
  "no-time": {
    "declared": {
      "os": "wasi",
      "arch": "wasm32",
      "accelerator": "wasm",
      "features": [
        "webGpu"
      ]
    },
    "effective": {
      "os": "wasi",
      "arch": "wasm32",
      "accelerator": "wasm",
      "features": []
    },
    "availability": {
      "devices": [
        "cpu",
        "wasm"
      ],
      "providers": [
        "reference",
        "torchLean"
      ]
    },
    "changes": [
      {
        "feature": "webGpu",
        "action": "dropped",
        "reason": "timeout",
        "detail": "no answer within {timeoutMs} ms"
      }
    ],
    "asDeclared": [],
    "probe": {
      "available": false,
      "reason": "timeout",
      "message": "no answer within {timeoutMs} ms",
      "apiPresent": true,
      "timeoutMs": 0,
      "elapsedMs": 0.0
    }
  },
  "adapter-timeout": {
    "declared": {
      "os": "wasi",
      "arch": "wasm32",
      "accelerator": "wasm",
      "features": [
        "webGpu"
      ]
    },
    "effective": {
      "os": "wasi",
      "arch": "wasm32",
      "accelerator": "wasm",
      "features": []
    },
    "availability": {
      "devices": [
        "cpu",
        "wasm"
      ],
      "providers": [
        "reference",
        "torchLean"
      ]
    },
    "changes": [
      {
        "feature": "webGpu",
        "action": "dropped",
        "reason": "timeout",
        "detail": "no answer from requestAdapter() within {timeoutMs} ms"
      }
    ],
    "asDeclared": [],
    "probe": {
      "available": false,
      "reason": "timeout",
      "message": "no answer from requestAdapter() within {timeoutMs} ms",
      "apiPresent": true,
      "timeoutMs": 0,
      "elapsedMs": 0.0
    }
  },
  "no-adapter": {
    "declared": {
      "os": "wasi",
      "arch": "wasm32",
      "accelerator": "wasm",
      "features": [
        "webGpu"
      ]
    },
    "effective": {
      "os": "wasi",
      "arch": "wasm32",
      "accelerator": "wasm",
      "features": []
    },
    "availability": {
      "devices": [
        "cpu",
        "wasm"
      ],
      "providers": [
        "reference",
        "torchLean"
      ]
    },
    "changes": [
      {
        "feature": "webGpu",
        "action": "dropped",
        "reason": "no-adapter",
        "detail": "requestAdapter() answered null: no suitable adapter"
      }
    ],
    "asDeclared": [],
    "probe": {
      "available": false,
      "reason": "no-adapter",
      "message": "requestAdapter() answered null: no suitable adapter",
      "apiPresent": true,
      "timeoutMs": 0,
      "elapsedMs": 0.0
    }
  },
  "module-unavailable": {
    "declared": {
      "os": "wasi",
      "arch": "wasm32",
      "accelerator": "wasm",
      "features": [
        "webGpu"
      ]
    },
    "effective": {
      "os": "wasi",
      "arch": "wasm32",
      "accelerator": "wasm",
      "features": []
    },
    "availability": {
      "devices": [
        "cpu",
        "wasm"
      ],
      "providers": [
        "reference",
        "torchLean"
      ]
    },
    "changes": [
      {
        "feature": "webGpu",
        "action": "dropped",
        "reason": "verify-failed",
        "detail": "the module that probes and verifies WebGPU could not be had within {timeoutMs} ms ({cause}): WebGPU is not used this time, and the next call tries again"
      }
    ],
    "asDeclared": [],
    "probe": {
      "available": false,
      "reason": "verify-failed",
      "message": "the module that probes and verifies WebGPU could not be had within {timeoutMs} ms ({cause}): WebGPU is not used this time, and the next call tries again",
      "apiPresent": true,
      "timeoutMs": 0,
      "elapsedMs": 0.0
    }
  },
};
