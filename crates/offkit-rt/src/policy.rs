//! The offload policy as LLVM applies it: `OMP_TARGET_OFFLOAD` through libomp (fixed at its
//! first use), the device a construct runs on (`checkDeviceAndCtors`, `getDevice`: lazy image
//! loading, fatal device numbers) and the outcome handler that aborts mandatory offloading.
use std::sync::OnceLock;

use crate::abi::{self, Ident};
use crate::device::Device;
use crate::log::{self, emit, fatal, info, report, SourceInfo};
use crate::{libomp, registry};

/// The effective offload policy.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Policy {
    Disabled,
    Mandatory,
}

/// The policy, fixed at its first use as in 19: `default` becomes mandatory when devices exist.
pub(crate) fn policy() -> Policy {
    static P: OnceLock<Policy> = OnceLock::new();
    *P.get_or_init(|| match libomp::target_offload() {
        0 => Policy::Disabled,
        2 => Policy::Mandatory,
        _ if registry::num_devices() > 0 => Policy::Mandatory,
        _ => Policy::Disabled,
    })
}

/// LLVM's `handleTargetOutcome`.
pub(crate) fn handle_outcome(success: bool, loc: *const Ident) {
    if policy() == Policy::Disabled {
        if success {
            fatal(
                1,
                format_args!("expected no offloading while offloading is disabled"),
            );
        }
        return;
    }
    if !success {
        if log::info_level() & info::DUMP_TABLE != 0 {
            for d in registry::devices() {
                d.dump_table(loc, false);
            }
        } else {
            report(format_args!(
                "Consult https://openmp.llvm.org/design/Runtimes.html for debugging options."
            ));
        }
        let si = SourceInfo::from_loc(loc);
        let (line, col) = (si.num(2), si.num(3));
        if line != 0 || col != 0 {
            emit(&format!("{}:{line}:{col}: ", si.file()));
        } else {
            report(format_args!(
                "Source location information not present. Compile with -g or -gline-tables-only."
            ));
        }
        fatal(
            1,
            format_args!("failure of target construct while offloading is mandatory"),
        );
    } else if log::info_level() & info::DUMP_TABLE != 0 {
        for d in registry::devices() {
            d.dump_table(loc, false);
        }
    }
}

/// The device of a construct, as LLVM's `checkDeviceAndCtors`: `None` means "not offloaded"
/// (disabled, the initial device, or a failed load with the outcome handled). A device number
/// out of range is fatal. The pending images of the device are loaded here.
pub(crate) fn check_device(dev: i64, loc: *const Ident) -> Option<&'static Device> {
    if policy() == Policy::Disabled {
        return None;
    }
    let dev = if dev == -1 {
        i64::from(libomp::default_device())
    } else {
        dev
    };
    let n = registry::num_devices();
    if n == 0 {
        handle_outcome(false, loc);
        return None;
    }
    if dev == n as i64 {
        return None;
    }
    let d = device_or_fatal(dev);
    if d.has_pending() && registry::load_pending(d).is_err() {
        report(format_args!("Failed to init globals on device {dev}"));
        handle_outcome(false, loc);
        return None;
    }
    Some(d)
}

/// LLVM's `PM->getDevice(n)` followed by `FATAL_MESSAGE(n, …)` when it fails. LLVM 22's
/// `getDevice` also loads the device's pending images (fatal when that fails); LLVM 19's leaves
/// that to the constructs (`check_device`).
pub(crate) fn device_or_fatal(dev: i64) -> &'static Device {
    let abi = abi::abi();
    match usize::try_from(dev).ok().and_then(registry::device) {
        Some(d) if dev <= i64::from(u32::MAX) => {
            if abi.device_lookup_loads && d.has_pending() && registry::load_pending(d).is_err() {
                fatal(
                    dev,
                    format_args!(
                        "the plugin backend is in an invalid or unsupported state failed to \
                         load images on device '{dev}'"
                    ),
                );
            }
            d
        }
        _ => {
            let n = registry::num_devices();
            // Both take the number as uint32_t and print it with %i.
            fatal(
                dev,
                format_args!(
                    "{} '{}' out of range, only {n} devices available",
                    abi.out_of_range, dev as u32 as i32
                ),
            )
        }
    }
}
