//! LLVM 19's policy and diagnostics: the offload policy (`OMP_TARGET_OFFLOAD` through libomp),
//! device numbers, the outcome handler that aborts mandatory offloading, and the exact
//! `omptarget …` messages and `LIBOMPTARGET_INFO` lines on stderr.
use std::ffi::{c_char, c_void, CStr};
use std::fmt::{self, Write as _};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use crate::device::Device;
use crate::env::{stoi, Env};
use crate::ffi::Ident;
use crate::{libomp, registry};

/// `LIBOMPTARGET_INFO` bits (LLVM's `OMP_INFOTYPE_*`).
pub(crate) mod info {
    pub const KERNEL_ARGS: u32 = 0x1;
    pub const MAPPING_EXISTS: u32 = 0x2;
    pub const DUMP_TABLE: u32 = 0x4;
    pub const MAPPING_CHANGED: u32 = 0x8;
    pub const PLUGIN_KERNEL: u32 = 0x10;
    pub const DATA_TRANSFER: u32 = 0x20;
    pub const EMPTY_MAPPING: u32 = 0x40;
}

/// The level, or `UNREAD` before the environment was read.
static INFO: AtomicU64 = AtomicU64::new(UNREAD);
const UNREAD: u64 = u64::MAX;

/// The `LIBOMPTARGET_INFO` level (read once; `__tgt_set_info_flag` changes it).
#[inline]
pub(crate) fn info_level() -> u32 {
    let v = INFO.load(Ordering::Relaxed);
    if v != UNREAD {
        return v as u32;
    }
    let level = Env::read().info;
    INFO.store(u64::from(level), Ordering::Relaxed);
    level
}

pub(crate) fn set_info_level(level: u32) {
    INFO.store(u64::from(level), Ordering::Relaxed);
}

/// Writes one diagnostic to stderr with a single `write` (lines of concurrent threads do not
/// interleave).
pub(crate) fn emit(s: &str) {
    let mut b = s.as_bytes();
    while !b.is_empty() {
        // SAFETY: writing initialised bytes from a live slice to fd 2.
        let n = unsafe { libc::write(2, b.as_ptr().cast(), b.len()) };
        if n <= 0 {
            return;
        }
        b = b.get(n as usize..).unwrap_or_default();
    }
}

fn emit_fmt(prefix: fmt::Arguments<'_>, body: fmt::Arguments<'_>) {
    let mut s = String::with_capacity(128);
    let _ = s.write_fmt(prefix);
    let _ = s.write_fmt(body);
    if !s.ends_with('\n') {
        s.push('\n');
    }
    emit(&s);
}

/// LLVM's `MESSAGE`: `omptarget message: …`.
pub(crate) fn message(args: fmt::Arguments<'_>) {
    emit_fmt(format_args!("omptarget message: "), args);
}

/// LLVM's `REPORT` / `FAILURE_MESSAGE`: `omptarget error: …`.
pub(crate) fn report(args: fmt::Arguments<'_>) {
    emit_fmt(format_args!("omptarget error: "), args);
}

/// LLVM's `FATAL_MESSAGE`: `omptarget fatal error N: …`, then `abort()`.
pub(crate) fn fatal(num: i64, args: fmt::Arguments<'_>) -> ! {
    emit_fmt(format_args!("omptarget fatal error {num}: "), args);
    // SAFETY: abort never returns and has no preconditions.
    unsafe { libc::abort() }
}

/// LLVM's `INFO`: `omptarget device N info: …`.
pub(crate) fn info(dev: i32, args: fmt::Arguments<'_>) {
    emit_fmt(format_args!("omptarget device {dev} info: "), args);
}

/// The plugin's `INFO`: `"PluginInterface" device N info: …`.
pub(crate) fn plugin_info(dev: i32, args: fmt::Arguments<'_>) {
    emit_fmt(
        format_args!("\"PluginInterface\" device {dev} info: "),
        args,
    );
}

/// A pointer as LLVM's `DPxMOD` prints it (`0x%016lx`).
#[derive(Clone, Copy)]
pub(crate) struct P(pub usize);

impl fmt::Display for P {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{:016x}", self.0)
    }
}

/// A pointer in a `REPORT` message: LLVM 19's printf `DPxMOD`, LLVM 22's `raw_ostream`
/// (`0x` and the digits, no padding).
#[derive(Clone, Copy)]
pub(crate) struct ReportPtr(pub usize);

impl fmt::Display for ReportPtr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if crate::abi::abi().report_ptr_padded {
            P(self.0).fmt(f)
        } else {
            write!(f, "{:#x}", self.0)
        }
    }
}

/// A C string of the program (a `psource` or a `map_var_info_t`), empty for NULL.
pub(crate) fn c_str<'a>(p: *const c_char) -> std::borrow::Cow<'a, str> {
    if p.is_null() {
        return "".into();
    }
    // SAFETY: clang emits these as NUL-terminated constants that live as long as the program.
    unsafe { CStr::from_ptr(p) }.to_string_lossy()
}

/// LLVM 19's `SourceInfo`: the `;`-separated fields of a location string; the file name
/// loses its directories (19's `removePath`).
pub(crate) struct SourceInfo {
    fields: Vec<String>,
    file_field: usize,
}

impl SourceInfo {
    fn new(s: String, file_field: usize) -> SourceInfo {
        // getSubstring(N): the text between the N+1-th and N+2-th `;`.
        let fields = s.split(';').skip(1).map(str::to_owned).collect();
        SourceInfo { fields, file_field }
    }

    /// The file name without its directories.
    pub(crate) fn file(&self) -> &str {
        let f = self.field(self.file_field);
        f.rsplit('/').next().unwrap_or(f)
    }

    /// The function of a location, the variable of a mapping name.
    pub(crate) fn name(&self) -> &str {
        self.field(1 - self.file_field)
    }

    /// From an `ident_t` (`;file;function;line;col;;`).
    pub(crate) fn from_loc(loc: *const Ident) -> SourceInfo {
        let s = if loc.is_null() {
            ";unknown;unknown;0;0;;".to_owned()
        } else {
            // SAFETY: a non-null ident_t of the program.
            c_str(unsafe { (*loc).psource }).into_owned()
        };
        SourceInfo::new(s, 0)
    }

    /// From a `map_var_info_t` (`;name;file;line;col;;`); a plain name gets unknown fields.
    pub(crate) fn from_name(name: *const c_void) -> SourceInfo {
        if name.is_null() {
            return SourceInfo::new(";unknown;unknown;0;0;;".to_owned(), 1);
        }
        let s = c_str(name.cast()).into_owned();
        if s.contains(';') {
            SourceInfo::new(s, 1)
        } else {
            SourceInfo::new(format!(";{s};unknown;0;0;;"), 1)
        }
    }

    pub(crate) fn field(&self, n: usize) -> &str {
        self.fields.get(n).map_or("", String::as_str)
    }

    pub(crate) fn num(&self, n: usize) -> i32 {
        stoi(self.field(n))
    }
}

/// LLVM's `getNameFromMapping`: the first field, the whole string without `;`, `unknown` for
/// NULL.
pub(crate) fn name_of(name: usize) -> String {
    if name == 0 {
        return "unknown".to_owned();
    }
    let s = c_str(name as *const c_char);
    match s.split_once(';') {
        Some((_, rest)) => rest.split(';').next().unwrap_or("").to_owned(),
        None => s.into_owned(),
    }
}

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
        if info_level() & info::DUMP_TABLE != 0 {
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
    } else if info_level() & info::DUMP_TABLE != 0 {
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
    let abi = crate::abi::abi();
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

/// LLVM's `printKernelArguments`.
pub(crate) fn print_args(
    loc: *const Ident,
    dev: i32,
    region: &str,
    sizes: &[i64],
    types: &[i64],
    names: Option<&[*mut c_void]>,
) {
    let si = SourceInfo::from_loc(loc);
    info(
        dev,
        format_args!(
            "{region} at {}:{}:{} with {} arguments:",
            si.file(),
            si.num(2),
            si.num(3),
            types.len()
        ),
    );
    for (i, (&t, &size)) in types.iter().zip(sizes).enumerate() {
        let name = names.and_then(|n| n.get(i)).map_or(0, |&p| p as usize);
        let ty = crate::mapping::map_type_name(t, size);
        let implicit = if t & crate::mapping::flags::IMPLICIT != 0 {
            "(implicit)"
        } else {
            ""
        };
        info(
            dev,
            format_args!("{ty}({})[{size}] {implicit}", name_of(name)),
        );
    }
}
