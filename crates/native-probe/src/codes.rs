//! The result codes the checks can meet, named from the vendors' headers
//! (`cuda.h`'s `CUresult`, `hip_runtime_api.h`'s `hipError_t`): used when a
//! library's own name function fails or is missing (the toolkit's stub
//! `libcuda.so` fails `cuGetErrorName` too), so that a message never reads
//! as a bare number. One table per API.

/// `CUresult` values that `cuInit`, `cuDriverGetVersion`,
/// `cuDeviceGetCount` and the device queries can answer.
pub(crate) const CUDA_RESULTS: &[(i32, &str)] = &[
    (0, "CUDA_SUCCESS"),
    (1, "CUDA_ERROR_INVALID_VALUE"),
    (2, "CUDA_ERROR_OUT_OF_MEMORY"),
    (3, "CUDA_ERROR_NOT_INITIALIZED"),
    (4, "CUDA_ERROR_DEINITIALIZED"),
    (34, "CUDA_ERROR_STUB_LIBRARY"),
    (46, "CUDA_ERROR_DEVICE_UNAVAILABLE"),
    (100, "CUDA_ERROR_NO_DEVICE"),
    (101, "CUDA_ERROR_INVALID_DEVICE"),
    (102, "CUDA_ERROR_DEVICE_NOT_LICENSED"),
    (302, "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND"),
    (303, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED"),
    (304, "CUDA_ERROR_OPERATING_SYSTEM"),
    (800, "CUDA_ERROR_NOT_PERMITTED"),
    (801, "CUDA_ERROR_NOT_SUPPORTED"),
    (802, "CUDA_ERROR_SYSTEM_NOT_READY"),
    (803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"),
    (804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"),
    (999, "CUDA_ERROR_UNKNOWN"),
];

/// [`CUDA_ERROR_STUB_LIBRARY`]: the driver that loaded is the CUDA toolkit's
/// stub (`stubs/libcuda.so`), which links programs but runs nothing.
pub(crate) const CUDA_ERROR_STUB_LIBRARY: i32 = 34;
/// [`CUDA_ERROR_NO_DEVICE`].
pub(crate) const CUDA_ERROR_NO_DEVICE: i32 = 100;

/// `hipError_t` values that `hipInit`, `hipGetDeviceCount` and the version
/// queries can answer.
pub(crate) const HIP_ERRORS: &[(i32, &str)] = &[
    (0, "hipSuccess"),
    (1, "hipErrorInvalidValue"),
    (2, "hipErrorOutOfMemory"),
    (3, "hipErrorNotInitialized"),
    (4, "hipErrorDeinitialized"),
    (35, "hipErrorInsufficientDriver"),
    (100, "hipErrorNoDevice"),
    (101, "hipErrorInvalidDevice"),
    (303, "hipErrorSharedObjectInitFailed"),
    (304, "hipErrorOperatingSystem"),
    (801, "hipErrorNotSupported"),
    (999, "hipErrorUnknown"),
];

/// `hipErrorNoDevice`.
pub(crate) const HIP_ERROR_NO_DEVICE: i32 = 100;
/// `hipErrorInvalidDevice`: what HIP 5.2's `hipInit` answers on a host
/// without an AMD GPU.
pub(crate) const HIP_ERROR_INVALID_DEVICE: i32 = 101;

/// The table's name for `code`, or `<what> <code>` when it has none.
pub(crate) fn name_in(table: &[(i32, &str)], what: &str, code: i32) -> String {
    table.iter().find(|(c, _)| *c == code).map_or_else(|| format!("{what} {code}"), |(_, name)| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_is_sorted_with_unique_codes_and_names() {
        for table in [CUDA_RESULTS, HIP_ERRORS] {
            assert!(table.windows(2).all(|w| w[0].0 < w[1].0));
            let mut names: Vec<_> = table.iter().map(|(_, n)| *n).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), table.len());
        }
        assert_eq!(name_in(CUDA_RESULTS, "CUresult", CUDA_ERROR_STUB_LIBRARY), "CUDA_ERROR_STUB_LIBRARY");
        assert_eq!(name_in(CUDA_RESULTS, "CUresult", CUDA_ERROR_NO_DEVICE), "CUDA_ERROR_NO_DEVICE");
        assert_eq!(name_in(CUDA_RESULTS, "CUresult", 12345), "CUresult 12345");
        assert_eq!(name_in(HIP_ERRORS, "hipError_t", HIP_ERROR_INVALID_DEVICE), "hipErrorInvalidDevice");
        assert_eq!(name_in(HIP_ERRORS, "hipError_t", HIP_ERROR_NO_DEVICE), "hipErrorNoDevice");
    }
}
