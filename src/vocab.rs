//! The closed vocabularies of SPEC §1, each declared once as a spelling table.
//!
//! `spelled_enum!` (`spelling`) turns one table into the enum, its canonical spelling
//! (`as_str`, `Display`), parsing (`FromStr`, with aliases), serde, the JSON
//! Schema (feature `schema`) and the TypeScript union type (browser build), so
//! that every runtime agrees on every spelling.

pub(crate) use crate::spelling::spelled_enum;

spelled_enum! {
    /// Operating-system family relevant to backend packaging and dynamic-library loading.
    pub enum OperatingSystem {
        Linux = "linux",
        MacOS = "macOS",
        Windows = "windows",
        Wasi = "wasi",
        Unknown = "unknown",
    }
}

spelled_enum! {
    /// Machine architecture relevant to native extension availability.
    pub enum Architecture {
        X86_64 = "x86_64",
        Aarch64 = "aarch64",
        Wasm32 = "wasm32",
        Unknown = "unknown",
    }
}

spelled_enum! {
    /// Primary accelerator family for a build or machine.
    pub enum Accelerator {
        None = "none",
        Cuda = "cuda",
        Rocm = "rocm",
        Metal = "metal",
        Wasm = "wasm",
        Tpu = "tpu",
        Trainium = "trainium",
        Custom = "custom",
        External = "external",
    }
}

spelled_enum! {
    /// Optional backend feature compiled into or discoverable from a build.
    pub enum BuildFeature {
        NativeCuda = "nativeCuda",
        LibTorch = "libTorch",
        Aten = "aten",
        Mps = "mps",
        WebGpu = "webGpu",
        CuBlas = "cuBLAS",
        CuDnn = "cuDNN",
        CuFft = "cuFFT",
        Xla = "xla",
        Neuron = "neuron",
        CustomChip = "customChip",
        ExternalProvider = "externalProvider",
    }
}

spelled_enum! {
    /// A device a kernel capsule runs on.
    pub enum Device {
        Cpu = "cpu",
        Cuda = "cuda",
        Rocm = "rocm",
        Metal = "metal",
        Wasm = "wasm",
        Tpu = "tpu",
        Trainium = "trainium",
        Custom = "custom",
        External = "external",
    }
}

spelled_enum! {
    /// The implementation family a kernel capsule comes from.
    pub enum Provider {
        Reference = "reference",
        TorchLean = "torchLean",
        NativeCuda = "nativeCuda",
        LibTorch = "libTorch",
        Aten = "aten",
        Mps = "mps",
        WebGpu = "webGpu",
        CuBlas = "cuBLAS",
        CuDnn = "cuDNN",
        CuFft = "cuFFT",
        Xla = "xla",
        Neuron = "neuron",
        CustomChip = "customChip",
        External = "external",
    }
}

spelled_enum! {
    /// How much a kernel capsule has been checked.
    pub enum TrustLevel {
        Verified = "verified",
        Checked = "checked",
        Fuzzed = "fuzzed",
        TrustedExternal = "trustedExternal",
    }
}

spelled_enum! {
    /// Which trust levels an execution config accepts.
    pub enum TrustPolicy {
        VerifiedOnly = "verifiedOnly",
        Checked = "checked",
        FuzzedOk = "fuzzedOk",
        AllowTrustedExternal = "allowTrustedExternal",
    }
}

spelled_enum! {
    /// How gradients (vector-Jacobian products) are obtained.
    #[allow(clippy::upper_case_acronyms)]
    pub enum VJPMode {
        None = "none",
        TorchLeanTape = "torchLeanTape",
        BackendVjp = "backendVJP",
        ExternalAutograd = "externalAutograd",
    }
}

spelled_enum! {
    /// The closed vocabulary of backend operations (68). Parsing also accepts
    /// the snake_case report names.
    pub enum BackendOp {
        RandUniform = "randUniform" | "rand_uniform",
        BernoulliMask = "bernoulliMask" | "bernoulli_mask",
        Add = "add",
        Sub = "sub",
        Mul = "mul",
        Scale = "scale",
        Abs = "abs",
        Sqrt = "sqrt",
        Clamp = "clamp",
        Max = "max",
        Min = "min",
        Relu = "relu",
        Gelu = "gelu",
        Sigmoid = "sigmoid",
        Tanh = "tanh",
        Softplus = "softplus",
        Exp = "exp",
        Log = "log",
        Sin = "sin",
        Cos = "cos",
        Inv = "inv",
        SafeLog = "safeLog" | "safe_log",
        LogSoftmax = "logSoftmax" | "log_softmax",
        Softmax = "softmax",
        Sum = "sum",
        ReduceSum = "reduceSum" | "reduce_sum",
        ReduceMean = "reduceMean" | "reduce_mean",
        Flatten = "flatten",
        Reshape = "reshape",
        Permute = "permute",
        Transpose2d = "transpose2d",
        SwapAdjacentAtDepth = "swapAdjacentAtDepth",
        Transpose3dFirstToLast = "transpose3dFirstToLast" | "transpose3d_first_to_last",
        Transpose3dLastToFirst = "transpose3dLastToFirst" | "transpose3d_last_to_first",
        Transpose3dLastTwo = "transpose3dLastTwo" | "transpose3d_last_two",
        BroadcastTo = "broadcastTo",
        ConcatVectors = "concatVectors" | "concat_vectors",
        ConcatLeadingAxis = "concatLeadingAxis" | "concat_leading_axis",
        SliceLeadingAxisRange = "sliceLeadingAxisRange" | "slice_leading_axis_range",
        GatherScalar = "gatherScalar" | "gather_scalar",
        GatherScalarNat = "gatherScalarNat" | "gather_scalar_nat",
        GatherRow = "gatherRow" | "gather_row",
        GatherVecNat = "gatherVecNat" | "gather_vec_nat",
        GatherRowsNat = "gatherRowsNat" | "gather_rows_nat",
        ScatterAddVec = "scatterAddVec" | "scatter_add_vec",
        ScatterAddRow = "scatterAddRow" | "scatter_add_row",
        Matmul = "matmul",
        Bmm = "bmm",
        Linear = "linear",
        MseLoss = "mseLoss" | "mse_loss",
        LayerNorm = "layerNorm" | "layer_norm",
        BatchNorm = "batchNorm" | "batch_norm",
        BatchNormChannelFirst = "batchNormChannelFirst" | "batchnorm_channel_first",
        Conv = "conv",
        Conv2d = "conv2d",
        ConvTranspose = "convTranspose" | "conv_transpose",
        ConvTranspose2d = "convTranspose2d" | "conv_transpose2d",
        MaxPool = "maxPool" | "max_pool",
        MaxPool2d = "maxPool2d" | "max_pool2d",
        MaxPool2dPad = "maxPool2dPad" | "max_pool2d_pad",
        SmoothMaxPool = "smoothMaxPool" | "smooth_max_pool",
        SmoothMaxPool2d = "smoothMaxPool2d" | "smooth_max_pool2d",
        AvgPool = "avgPool" | "avg_pool",
        AvgPool2d = "avgPool2d" | "avg_pool2d",
        AvgPool2dPad = "avgPool2dPad" | "avg_pool2d_pad",
        FftFno = "fftFno" | "fft_fno",
        SelectiveScan = "selectiveScan" | "selective_scan",
        ScaledDotProductAttention = "scaledDotProductAttention" | "scaled_dot_product_attention",
    }
}

impl BackendOp {
    /// Whether a training run needs a VJP for this op (false only for the
    /// two random ops).
    pub const fn requires_vjp(self) -> bool {
        !matches!(self, Self::RandUniform | Self::BernoulliMask)
    }
}

impl Accelerator {
    /// The device this accelerator exposes (CPU is added by [`Target::devices`](crate::Target::devices)).
    pub const fn device(self) -> Option<Device> {
        Some(match self {
            Self::None => return None,
            Self::Cuda => Device::Cuda,
            Self::Rocm => Device::Rocm,
            Self::Metal => Device::Metal,
            Self::Wasm => Device::Wasm,
            Self::Tpu => Device::Tpu,
            Self::Trainium => Device::Trainium,
            Self::Custom => Device::Custom,
            Self::External => Device::External,
        })
    }
}

impl BuildFeature {
    /// The provider a build feature exposes.
    pub const fn provider(self) -> Provider {
        match self {
            Self::NativeCuda => Provider::NativeCuda,
            Self::LibTorch => Provider::LibTorch,
            Self::Aten => Provider::Aten,
            Self::Mps => Provider::Mps,
            Self::WebGpu => Provider::WebGpu,
            Self::CuBlas => Provider::CuBlas,
            Self::CuDnn => Provider::CuDnn,
            Self::CuFft => Provider::CuFft,
            Self::Xla => Provider::Xla,
            Self::Neuron => Provider::Neuron,
            Self::CustomChip => Provider::CustomChip,
            Self::ExternalProvider => Provider::External,
        }
    }
}

impl TrustPolicy {
    /// The SPEC §4 acceptance table.
    pub const fn accepts(self, level: TrustLevel) -> bool {
        use TrustLevel as L;
        match self {
            Self::VerifiedOnly => matches!(level, L::Verified),
            Self::Checked => matches!(level, L::Verified | L::Checked),
            Self::FuzzedOk => matches!(level, L::Verified | L::Checked | L::Fuzzed),
            Self::AllowTrustedExternal => true,
        }
    }
}

impl VJPMode {
    /// SPEC §5 rule 5: whether a capsule with `capsule` VJP mode serves a
    /// config asking for `self` on `op`.
    pub const fn is_served_by(self, capsule: VJPMode, op: BackendOp) -> bool {
        if !op.requires_vjp() {
            return true;
        }
        match self {
            Self::None => true,
            Self::TorchLeanTape => matches!(capsule, Self::TorchLeanTape | Self::BackendVjp),
            Self::BackendVjp => matches!(capsule, Self::BackendVjp),
            Self::ExternalAutograd => matches!(capsule, Self::ExternalAutograd),
        }
    }
}

/// A macro callback over every spelled vocabulary: `for_each_vocabulary!(m)`
/// expands to `m!(Type);` once per table. Hidden and not API: only the
/// spelling test (`tests/core/spellings.rs`) calls it, to prove that no table
/// escapes the per-variant check.
#[macro_export]
#[doc(hidden)]
macro_rules! for_each_vocabulary {
    ($callback:ident) => {
        $callback!($crate::vocab::OperatingSystem);
        $callback!($crate::vocab::Architecture);
        $callback!($crate::vocab::Accelerator);
        $callback!($crate::vocab::BuildFeature);
        $callback!($crate::vocab::Device);
        $callback!($crate::vocab::Provider);
        $callback!($crate::vocab::TrustLevel);
        $callback!($crate::vocab::TrustPolicy);
        $callback!($crate::vocab::VJPMode);
        $callback!($crate::vocab::BackendOp);
        $callback!($crate::Preset);
        $callback!($crate::SchemaName);
        $callback!($crate::ErrorCode);
        $callback!($crate::plan_result::RejectionReason);
        $callback!($crate::plan_result::Verdict);
        $callback!($crate::PlanMode);
        $callback!($crate::probe::web::ProbeReason);
        $callback!($crate::probe::web::FeatureAction);
        $callback!($crate::probe::web::PowerPreference);
        $callback!($crate::probe::native::NativeReason);
        $callback!($crate::probe::native::ChangeAction);
        $callback!($crate::probe::native::NativeCheck);
        $callback!($crate::probe::native::Isolation);
    };
}
