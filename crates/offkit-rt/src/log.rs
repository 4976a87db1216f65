//! What the runtime prints, in LLVM's words: `omptarget message/error/fatal error N: …` on
//! stderr (each line one `write`, so concurrent threads do not interleave), the
//! `LIBOMPTARGET_INFO` level and the `omptarget device N info: …` lines of its bits, and the
//! helpers that format pointers, source locations and mapping names as LLVM does.
use std::ffi::{c_char, c_void, CStr};
use std::fmt::{self, Write as _};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::abi::{self, map_type, Ident};
use crate::env::{stoi, Env};

/// `LIBOMPTARGET_INFO` bits (LLVM's `OMP_INFOTYPE_*`).
pub(crate) mod info {
    pub(crate) const KERNEL_ARGS: u32 = 0x1;
    pub(crate) const MAPPING_EXISTS: u32 = 0x2;
    pub(crate) const DUMP_TABLE: u32 = 0x4;
    pub(crate) const MAPPING_CHANGED: u32 = 0x8;
    pub(crate) const PLUGIN_KERNEL: u32 = 0x10;
    pub(crate) const DATA_TRANSFER: u32 = 0x20;
    pub(crate) const EMPTY_MAPPING: u32 = 0x40;
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
        if abi::abi().report_ptr_padded {
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
        let ty = map_type::name(t, size);
        let implicit = if t & map_type::IMPLICIT != 0 {
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
