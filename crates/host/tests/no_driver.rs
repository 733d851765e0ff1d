//! Without the NVIDIA driver library. The bindings open it at run time
//! (third_party/cust_raw), so on a machine without `libcuda.so.1` the CPU
//! backend works and the GPU is `Error::NoGpu`, saying what is missing,
//! where no driver call panics or aborts.
//!
//! The library is opened once per process, so the test runs itself again
//! as a child process with `POLYMUL_CUDA_DRIVER` naming a file that does
//! not exist (which behaves as a machine without the driver), and checks
//! there.

use std::ffi::CStr;
use std::os::raw::{c_char, c_int};
use std::process::Command;

use cust::sys::{self, cudaError_enum};
use polymul::prelude::*;
use polymul::{CpuPlan, Error, ErrorKind, Gpu, NttParams, cpu};

/// Set in the child process.
const CHILD: &str = "POLYMUL_NO_DRIVER_TEST_CHILD";
/// The library the child is told to load.
const MISSING: &str = "/nonexistent/polymul-no-driver-test/libcuda.so.1";

#[test]
fn without_the_driver_library() {
    if std::env::var_os(CHILD).is_some() {
        return child();
    }
    assert!(!std::path::Path::new(MISSING).exists());
    let exe = std::env::current_exe().expect("the test binary's path");
    let out = Command::new(exe)
        .args(["--exact", "without_the_driver_library", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env(sys::DRIVER_ENV, MISSING)
        .output()
        .expect("running the test binary again");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "child failed ({}):\n{stdout}\n{stderr}", out.status);
    // The child ran this test, not an empty selection.
    assert!(stdout.contains("test result: ok. 1 passed"), "{stdout}");
}

/// The checks, in a process whose driver library does not exist.
fn child() {
    // The bindings: no library, no function, and why.
    let why = sys::driver_library().expect_err("a library that does not exist was loaded");
    assert!(why.starts_with(&format!("{}={MISSING}: ", sys::DRIVER_ENV)), "{why}");
    let (resolved, total) = sys::driver_functions();
    assert_eq!(resolved, 0);
    assert!(total > 300, "{total} driver functions in the bindings");

    // Every driver function returns an error code; out-parameters untouched.
    let mut count: c_int = -7;
    // SAFETY: cuInit takes flags by value.
    assert_eq!(unsafe { sys::cuInit(0) }, cudaError_enum::CUDA_ERROR_SHARED_OBJECT_INIT_FAILED);
    // SAFETY: `count` is a live local for the out-parameter.
    assert_eq!(
        unsafe { sys::cuDeviceGetCount(&mut count) },
        cudaError_enum::CUDA_ERROR_SHARED_OBJECT_INIT_FAILED
    );
    assert_eq!(count, -7);

    // Error codes can still be named and described (cust's Display and
    // polymul's messages go through them).
    let text = |f: unsafe extern "C" fn(sys::CUresult, *mut *const c_char) -> sys::CUresult, e| {
        let mut p: *const c_char = std::ptr::null();
        // SAFETY: `p` is a live local for the out-parameter.
        assert_eq!(unsafe { f(e, &mut p) }, cudaError_enum::CUDA_SUCCESS);
        assert!(!p.is_null());
        // SAFETY: on success the function stored a static NUL-terminated string.
        unsafe { CStr::from_ptr(p) }.to_str().expect("ASCII").to_string()
    };
    assert_eq!(
        text(sys::cuGetErrorName, cudaError_enum::CUDA_ERROR_ILLEGAL_ADDRESS),
        "CUDA_ERROR_ILLEGAL_ADDRESS"
    );
    assert!(
        text(sys::cuGetErrorString, cudaError_enum::CUDA_ERROR_SHARED_OBJECT_INIT_FAILED)
            .contains("could not be loaded")
    );
    assert!(cust::error::CudaError::LaunchFailed.to_string().contains("CUDA_ERROR_LAUNCH_FAILED"));

    // polymul: no GPU, with the reason and what to install.
    for r in [Gpu::device_count().map(drop), Gpu::new().map(drop), Gpu::with_device(1).map(drop)] {
        let e = r.expect_err("a GPU without a driver");
        assert_eq!(e.kind(), ErrorKind::NoGpu);
        let Error::NoGpu { detail } = &e else { panic!("not NoGpu: {e}") };
        assert!(detail.contains(sys::DRIVER_NAMES[0]), "{detail}");
        assert!(detail.contains(MISSING), "{detail}");
        assert!(e.to_string().contains("install the NVIDIA driver"), "{e}");
    }

    // The CPU backend: the NTT product equals the schoolbook product.
    let params = NttParams::<u64>::with_prime_bits(64, 40).expect("a 40-bit prime for N = 64");
    let q = params.q();
    let a: Vec<u64> = (0..64u64).map(|i| (i * i * 1_000_003 + 5) % q).collect();
    let b: Vec<u64> = (0..64u64).map(|i| q - 1 - i).collect();
    let c = CpuPlan::new(params).expect("a CPU plan").polymul(&a, &b).expect("a CPU product");
    assert_eq!(c, cpu::negacyclic_naive(&a, &b, q).expect("the schoolbook product"));
}

/// Where a driver library loads (a GPU machine, or one with the driver's
/// library and no GPU), calls go through the table to it: the driver
/// reports its version. Without one there is nothing to call.
#[test]
fn with_the_driver_library_calls_reach_it() {
    let Ok(name) = sys::driver_library() else { return };
    let (resolved, total) = sys::driver_functions();
    eprintln!("driver library {name}: {resolved} of the bindings' {total} functions");
    assert!(resolved > 0 && resolved <= total);
    let mut version: c_int = 0;
    // SAFETY: `version` is a live local for the out-parameter.
    assert_eq!(unsafe { sys::cuDriverGetVersion(&mut version) }, cudaError_enum::CUDA_SUCCESS);
    // CUDA versions are 1000·major + 10·minor; cuda.h 11.4's bindings need
    // a driver of CUDA 11 or newer for most of their functions.
    assert!(version >= 11000, "driver version {version}");
}
