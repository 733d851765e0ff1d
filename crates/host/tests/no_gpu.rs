//! Without a GPU the library reports a typed error instead of panicking.

use polymul::{Error, Gpu};

#[test]
fn gpu_creation_never_panics() {
    match Gpu::new() {
        Ok(gpu) => assert!(!gpu.info().name.is_empty()),
        Err(Error::NoGpu { detail }) => assert!(!detail.is_empty()),
        Err(e) => panic!("unexpected error kind: {e}"),
    }
    // A device ordinal that cannot exist is an error either way.
    assert!(matches!(Gpu::with_device(1 << 20), Err(Error::NoGpu { .. } | Error::NoSuchDevice { .. })));
}

#[test]
fn embedded_ptx_is_present_for_every_arch() {
    let archs = polymul::expert::embedded_ptx_archs();
    assert!(!archs.is_empty());
    for sm in archs {
        let ptx = polymul::expert::embedded_ptx(sm).unwrap().unwrap();
        assert!(ptx.contains(&format!("\n.target sm_{sm}\n")));
        assert!(ptx.contains(".entry ntt_fwd_radix2_stage_barrett4_u64"));
        assert!(!ptx.contains("panic"));
    }
}

/// The images are unpacked once a process: a second call gives the same
/// text and bytes, not a copy. The PTX of every arch is the same module
/// (the same entry points), whatever its `.target` line.
#[test]
fn embedded_images_are_unpacked_once() {
    let archs = polymul::expert::embedded_ptx_archs();
    let entries = |ptx: &str| -> Vec<String> {
        ptx.lines().filter(|l| l.contains(".entry ")).map(str::to_string).collect()
    };
    let first = polymul::expert::embedded_ptx(archs[0]).unwrap().unwrap();
    for &sm in &archs {
        let a = polymul::expert::embedded_ptx(sm).unwrap().unwrap();
        let b = polymul::expert::embedded_ptx(sm).unwrap().unwrap();
        assert!(std::ptr::eq(a, b), "sm_{sm}: PTX unpacked twice");
        assert_eq!(a.lines().find(|l| l.starts_with(".target ")), Some(format!(".target sm_{sm}").as_str()));
        // sm_90 adds the cluster kernels; the others have the same entries.
        if sm < 90 {
            assert_eq!(entries(a), entries(first), "sm_{sm}");
        }
    }
    for sm in polymul::expert::embedded_cubin_archs() {
        let a = polymul::expert::embedded_cubin(sm).unwrap().unwrap();
        let b = polymul::expert::embedded_cubin(sm).unwrap().unwrap();
        assert!(std::ptr::eq(a, b), "sm_{sm}: cubin unpacked twice");
    }
    assert_eq!(polymul::expert::embedded_ptx(1).unwrap(), None);
    assert_eq!(polymul::expert::embedded_cubin(1).unwrap(), None);
}

/// Where `ptxas` was found at build time the kernels are also embedded as
/// SASS: an ELF image per PTX arch (none where it was not found).
#[test]
fn embedded_cubins_are_elf_images_of_built_archs() {
    let ptx = polymul::expert::embedded_ptx_archs();
    for sm in polymul::expert::embedded_cubin_archs() {
        assert!(ptx.contains(&sm), "cubin for sm_{sm} without its PTX");
        let bin = polymul::expert::embedded_cubin(sm).unwrap().unwrap();
        assert_eq!(&bin[..4], b"\x7fELF", "sm_{sm} cubin is not an ELF image");
    }
}

/// What may cross threads: a `Gpu` handle and every plan are owned
/// (`'static`: no borrowed GPU), `Send` and `Sync` (each launch makes its
/// context current), so an application can keep a GPU and its plans in one
/// struct and share it between threads; streams and device buffers move
/// between threads. Checked at compile time.
#[test]
fn thread_safety_of_the_public_types() {
    fn send_sync<T: Send + Sync + 'static>() {}
    fn send<T: Send>() {}
    send_sync::<polymul::Gpu>();
    send_sync::<polymul::NttPlan<u32>>();
    send_sync::<polymul::NttPlan<u64>>();
    send_sync::<polymul::rns::RnsPlan<u64>>();
    send_sync::<polymul::dgt::DgtPlan<u32>>();
    send_sync::<polymul::planner::Multiplier<u64>>();
    send_sync::<polymul::expert::LaunchChain>();
    send_sync::<polymul::GpuStream>();
    send::<polymul::DeviceVec<u64>>();
    send_sync::<polymul::planner::Wisdom>();
    send_sync::<polymul::rns::RnsBasis<u64>>();
}
