//! Raw bindings to the CUDA Driver API (cust_raw 0.11.3, vendored by
//! polymul), loaded at run time: building needs no CUDA and no driver, and
//! a binary starts without one. The first call of a driver function opens
//! the driver library ([`DRIVER_NAMES`], or the file [`DRIVER_ENV`] names)
//! and resolves every function once; without it each function returns
//! `CUDA_ERROR_SHARED_OBJECT_INIT_FAILED`, and [`driver_library`] says why.
//! The types are bindgen's (`cuda.rs`); the functions keep bindgen's names
//! and signatures (`driver.rs`, written by `gen_dlopen.py`).
#![allow(warnings)]

mod cuda;
mod driver;
mod loader;
pub use cuda::*;
pub use driver::*;
pub use loader::{driver_functions, driver_library, DRIVER_ENV, DRIVER_NAMES};
