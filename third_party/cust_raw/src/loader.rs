//! Loading the CUDA driver library at run time (polymul's; not upstream).
//!
//! The first call of any driver function opens the library once, as
//! cudarc, CuPy and PyTorch do: the file `$POLYMUL_CUDA_DRIVER` names if
//! that variable is set (and only that file), else `libcuda.so.1`, then
//! `libcuda.so` (`nvcuda.dll` on Windows), through the system's library
//! search (`dlopen`). It then looks up every function of the bindings once
//! ([`Table::resolve`]). A library without `cuInit` is not taken for the
//! driver. Without one, every function returns
//! `CUDA_ERROR_SHARED_OBJECT_INIT_FAILED` and [`driver_library`] says why.

use std::ffi::{c_char, c_void, OsString};
use std::sync::OnceLock;

use super::cuda::{cudaError_enum, CUresult};
use super::driver::{code_name, Table};

/// The environment variable that names the driver library file to load
/// instead of the default names (`libcuda.so.1`, then `libcuda.so`; on
/// Windows `nvcuda.dll`). For unusual installations and for tests: set to a
/// file that does not exist, the process behaves as on a machine without
/// the NVIDIA driver. Read once, at the first driver call.
pub const DRIVER_ENV: &str = "POLYMUL_CUDA_DRIVER";

/// The names tried, in order, where [`DRIVER_ENV`] is unset or empty.
#[cfg(windows)]
pub const DRIVER_NAMES: &[&str] = &["nvcuda.dll"];
/// The names tried, in order, where [`DRIVER_ENV`] is unset or empty.
#[cfg(not(windows))]
pub const DRIVER_NAMES: &[&str] = &["libcuda.so.1", "libcuda.so"];

/// The loaded driver (or its absence) and its functions.
pub(crate) struct Driver {
    pub(crate) fns: Table,
    /// The name the library was opened by, or why none could be.
    status: Result<String, String>,
    /// Keeps the library mapped: `fns` points into it. Never dropped (the
    /// `Driver` lives in a `static`).
    _lib: Option<libloading::Library>,
}

static DRIVER: OnceLock<Driver> = OnceLock::new();

/// The driver, loaded on the first call.
#[inline]
pub(crate) fn driver() -> &'static Driver {
    DRIVER.get_or_init(|| {
        let chosen = std::env::var_os(DRIVER_ENV).filter(|v| !v.is_empty());
        load(chosen)
    })
}

/// Which driver library the bindings call, loading it if no driver
/// function has been called yet: `Ok` with the name it was opened by
/// (`libcuda.so.1`, or the file [`DRIVER_ENV`] names), or `Err` with why
/// none could be opened (the loader's message for each name tried).
pub fn driver_library() -> Result<&'static str, &'static str> {
    match &driver().status {
        Ok(name) => Ok(name),
        Err(why) => Err(why),
    }
}

/// How many of the bindings' driver functions the loaded library exports,
/// and how many there are: `(0, n)` without a library.
pub fn driver_functions() -> (usize, usize) {
    (driver().fns.resolved(), Table::LEN)
}

/// Opens `chosen` (the override), or else the first of [`DRIVER_NAMES`]
/// that opens and exports `cuInit`, and resolves the table from it.
fn load(chosen: Option<OsString>) -> Driver {
    let candidates: Vec<OsString> = match &chosen {
        Some(path) => vec![path.clone()],
        None => DRIVER_NAMES.iter().map(OsString::from).collect(),
    };
    let mut why = Vec::new();
    for name in &candidates {
        let shown = name.to_string_lossy().into_owned();
        // SAFETY: opening a library runs its initialisers; these are the
        // NVIDIA driver's (the file the system resolves for the driver's
        // names, or the one the user names in DRIVER_ENV as the driver),
        // the same code that ran at start when the bindings linked it.
        let lib = match unsafe { libloading::Library::new(name) } {
            Ok(lib) => lib,
            Err(e) => {
                why.push(e.to_string());
                continue;
            }
        };
        // SAFETY: `lib` is taken for a CUDA driver library, whose exports
        // have cuda.h's prototypes (driver.rs's module documentation); one
        // without cuInit is refused just below, before any call.
        let fns = unsafe { Table::resolve(&lib) };
        if fns.cuInit.is_some() {
            return Driver { fns, status: Ok(shown), _lib: Some(lib) };
        }
        why.push(format!("{shown} has no cuInit: not a CUDA driver library"));
    }
    let why = why.join("; ");
    let status = match chosen {
        Some(path) => format!("{DRIVER_ENV}={}: {why}", path.to_string_lossy()),
        None => why,
    };
    Driver { fns: Table::default(), status: Err(status), _lib: None }
}

/// What a function that is not in the table returns: without a library
/// `CUDA_ERROR_SHARED_OBJECT_INIT_FAILED` (the driver's shared object could
/// not be initialised), with one `CUDA_ERROR_NOT_FOUND` (cuda.h: "a named
/// symbol was not found … driver function names").
#[cold]
pub(crate) fn unavailable() -> CUresult {
    if driver().status.is_ok() {
        cudaError_enum::CUDA_ERROR_NOT_FOUND
    } else {
        cudaError_enum::CUDA_ERROR_SHARED_OBJECT_INIT_FAILED
    }
}

/// The address of `name` (NUL-terminated) in `lib` as a `T`, or `None`
/// where the library does not export it (or exports it as null).
///
/// # Safety
/// `T` is a function pointer type whose signature is the C prototype of
/// `name` in `lib`.
pub(crate) unsafe fn symbol<T: Copy>(lib: &libloading::Library, name: &[u8]) -> Option<T> {
    const { assert!(std::mem::size_of::<T>() == std::mem::size_of::<*mut c_void>()) };
    // SAFETY: reading the symbol's address as a data pointer makes no
    // claim about what it points to.
    let addr: *mut c_void = match unsafe { lib.get::<*mut c_void>(name) } {
        Ok(sym) => *sym,
        Err(_) => return None,
    };
    if addr.is_null() {
        return None;
    }
    // SAFETY: `T` is a function pointer (caller) of the same size as `addr`
    // (asserted above), and `addr`, non-null, is the function's address.
    Some(unsafe { std::mem::transmute_copy::<*mut c_void, T>(&addr) })
}

/// `cuGetErrorString` where the driver cannot answer: `CUDA_ERROR_INVALID_VALUE`
/// for a null `pStr` (as the driver does), else a static description.
///
/// # Safety
/// `pStr` is null or valid for a write.
#[cold]
pub(crate) unsafe fn error_string(error: CUresult, pStr: *mut *const c_char) -> CUresult {
    if pStr.is_null() {
        return cudaError_enum::CUDA_ERROR_INVALID_VALUE;
    }
    let text: &'static [u8] = match error {
        cudaError_enum::CUDA_ERROR_SHARED_OBJECT_INIT_FAILED => {
            b"the CUDA driver library could not be loaded\0"
        }
        cudaError_enum::CUDA_ERROR_NOT_FOUND => b"named symbol not found\0",
        other => code_name(other),
    };
    // SAFETY: `pStr` is non-null (checked) and valid for a write (caller);
    // `text` is a static NUL-terminated string.
    unsafe { *pStr = text.as_ptr().cast() };
    cudaError_enum::CUDA_SUCCESS
}

/// `cuGetErrorName` where the driver cannot answer: the code's name from
/// `cudaError_enum`.
///
/// # Safety
/// `pStr` is null or valid for a write.
#[cold]
pub(crate) unsafe fn error_name(error: CUresult, pStr: *mut *const c_char) -> CUresult {
    if pStr.is_null() {
        return cudaError_enum::CUDA_ERROR_INVALID_VALUE;
    }
    // SAFETY: as in `error_string`.
    unsafe { *pStr = code_name(error).as_ptr().cast() };
    cudaError_enum::CUDA_SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    #[test]
    fn a_missing_file_is_no_driver() {
        let d = load(Some("/nonexistent/polymul-test/libcuda.so.1".into()));
        let why = d.status.as_ref().expect_err("a file that does not exist loaded");
        assert!(why.starts_with("POLYMUL_CUDA_DRIVER=/nonexistent/polymul-test/libcuda.so.1: "), "{why}");
        assert_eq!(d.fns.resolved(), 0);
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_library_without_cuinit_is_not_the_driver() {
        // libm is a shared library every glibc system has, and not a driver.
        let d = load(Some("libm.so.6".into()));
        let why = d.status.as_ref().expect_err("libm taken for the driver");
        assert!(why.contains("has no cuInit"), "{why}");
    }

    #[test]
    fn error_text_without_a_driver() {
        for (code, name) in [
            (cudaError_enum::CUDA_SUCCESS, "CUDA_SUCCESS"),
            (cudaError_enum::CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS"),
            (cudaError_enum::CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN"),
        ] {
            let mut p: *const c_char = std::ptr::null();
            // SAFETY: `p` is a live local.
            assert_eq!(unsafe { error_name(code, &mut p) }, cudaError_enum::CUDA_SUCCESS);
            // SAFETY: error_name stored a static NUL-terminated string.
            assert_eq!(unsafe { CStr::from_ptr(p) }.to_str().unwrap(), name);
            let mut p: *const c_char = std::ptr::null();
            // SAFETY: as above.
            assert_eq!(unsafe { error_string(code, &mut p) }, cudaError_enum::CUDA_SUCCESS);
            // SAFETY: as above.
            assert_eq!(unsafe { CStr::from_ptr(p) }.to_str().unwrap(), name);
        }
        let mut p: *const c_char = std::ptr::null();
        // SAFETY: as above.
        unsafe { error_string(cudaError_enum::CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, &mut p) };
        // SAFETY: as above.
        assert!(unsafe { CStr::from_ptr(p) }.to_str().unwrap().contains("could not be loaded"));
        // SAFETY: a null pStr is refused before any write.
        assert_eq!(
            unsafe { error_string(cudaError_enum::CUDA_SUCCESS, std::ptr::null_mut()) },
            cudaError_enum::CUDA_ERROR_INVALID_VALUE
        );
    }
}
