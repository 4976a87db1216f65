//! Device detection on recorded KFD topologies (`tests/sysfs/*`, written in the kernel's
//! `properties` format: every property of `kfd_topology.c`'s node in its order, values decimal).
use std::path::PathBuf;

use omptarget::arch::{self, Kind};

fn tree(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/sysfs")
        .join(name)
}

fn ids(name: &str, hsa_xnack: Option<bool>) -> Vec<(String, String)> {
    arch::amd_gpus(&tree(name), hsa_xnack)
        .unwrap()
        .into_iter()
        .map(|d| {
            assert_eq!((d.kind, d.triple), (Kind::Amdgpu, "amdgcn-amd-amdhsa"));
            (d.target_id(), d.origin)
        })
        .collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| ((*b).to_owned(), (*a).to_owned()))
        .collect()
}

#[test]
fn gfx90a_with_and_without_sram_ecc_and_xnack_off_by_module_default() {
    // Node 2's capability has only the deprecated bit 19, which means nothing.
    assert_eq!(
        ids("mi210-xnack-off", None),
        pairs(&[
            ("kfd node 1", "gfx90a:sramecc+:xnack-"),
            ("kfd node 2", "gfx90a:sramecc-:xnack-"),
        ])
    );
}

#[test]
fn xnack_on_by_module_default_and_hsa_xnack_overrides_it() {
    assert_eq!(
        ids("mi210-xnack-on", None),
        pairs(&[("kfd node 1", "gfx90a:sramecc+:xnack+")])
    );
    assert_eq!(
        ids("mi210-xnack-on", Some(false)),
        pairs(&[("kfd node 1", "gfx90a:sramecc+:xnack-")])
    );
    assert_eq!(
        ids("mi210-xnack-off", Some(true))[0].0,
        "gfx90a:sramecc+:xnack+"
    );
}

#[test]
fn several_nodes_in_numeric_order_cpu_nodes_skipped_features_only_where_allowed() {
    // noretry -1: the kernel decides per chip, so xnack is left out ("any"); gfx1100 has
    // neither feature; node 10 sorts after 3.
    assert_eq!(
        ids("mixed", None),
        pairs(&[
            ("kfd node 2", "gfx1100"),
            ("kfd node 3", "gfx90a:sramecc-"),
            ("kfd node 10", "gfx942:sramecc+"),
        ])
    );
    assert_eq!(
        ids("mixed", Some(true)),
        pairs(&[
            ("kfd node 2", "gfx1100"),
            ("kfd node 3", "gfx90a:sramecc-:xnack+"),
            ("kfd node 10", "gfx942:sramecc+:xnack+"),
        ])
    );
}

#[test]
fn no_gpu_and_no_topology_are_no_devices() {
    assert!(ids("cpu-only", None).is_empty());
    let empty = tempfile::tempdir().unwrap();
    assert!(arch::amd_gpus(empty.path(), None).unwrap().is_empty());
}

#[test]
fn malformed_topologies_name_the_file_and_offset() {
    let d = tempfile::tempdir().unwrap();
    let node = d.path().join(arch::KFD_NODES).join("1");
    std::fs::create_dir_all(&node).unwrap();
    let props = node.join("properties");
    std::fs::write(&props, "simd_count 4\ngfx_target_version gfx90a\n").unwrap();
    let e = arch::amd_gpus(d.path(), None).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "`{}`: `gfx_target_version` is not a decimal number at offset 0xd",
            props.display()
        )
    );
    std::fs::create_dir_all(d.path().join(arch::KFD_NODES).join("x")).unwrap();
    let e = arch::amd_gpus(d.path(), None).unwrap_err();
    assert!(e.to_string().contains("not a number"), "{e}");
}

#[test]
fn detect_lists_gpus_then_the_host() {
    let probe = arch::Probe {
        sysfs_root: Some(tree("mi210-xnack-on")),
        hsa_xnack: None,
        cuda: true, // no libcuda.so.1 on CI machines: no NVIDIA device, no error
    };
    let all = arch::detect(&probe).unwrap();
    let kinds: Vec<Kind> = all.iter().map(|d| d.kind).collect();
    assert_eq!(kinds.first(), Some(&Kind::Amdgpu));
    assert_eq!(kinds.last(), Some(&Kind::Host));
    let host = all.last().unwrap();
    assert_eq!(host.triple, "x86_64-pc-linux-gnu");
    assert!(host.extensions.iter().all(|e| !e.is_empty()));
}
