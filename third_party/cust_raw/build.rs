//! polymul's build script for the vendored `cust_raw`: it links nothing.
//!
//! The driver library (`libcuda.so.1`) is opened at run time (src/loader.rs),
//! so building needs neither the driver nor a CUDA toolkit. The crates.io
//! `cust_raw`'s script, which linked `libcuda`, is gone; this empty one only
//! stands in for it until the manifest's `build = "build.rs"` is dropped
//! (third_party/README.md).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
}
