//! The wrapper module as LLVM IR text.
//!
//! For LLVM's forms this is, byte for byte, what LLVM 19's or 22's `clang-linker-wrapper
//! --print-wrapped-module` prints for the same images (checked by the conformance tests); the
//! image-info form is offkit's rendering of AMD's module with opaque pointers. Either way
//! `clang-19 -c` compiles the text to an object equivalent to [`crate::Wrapper::write_object`]'s.
//! Image bytes are streamed into the `c"…"` constants.

use std::io::{self, Write};

use offkit_llvm::triple::{ObjectFormat, Triple};

use crate::elf::Piece;
use crate::fatbin::{self, CUDA_FAT_MAGIC, HIP_FAT_MAGIC};
use crate::host::Host;
use crate::openmp::image_global;
use crate::release::{Release, Walk};
use crate::{Form, Kind, Wrapper};

/// `%struct.__tgt_offload_entry = type { … }` of `release`.
fn entry_ty(out: &mut dyn Write, release: &Release) -> io::Result<()> {
    writeln!(
        out,
        "%struct.__tgt_offload_entry = type {}",
        release.entry_ty
    )
}

pub(crate) fn write(w: &Wrapper<'_>, out: &mut dyn Write) -> Result<(), crate::Error> {
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    match w.form {
        Form::OpenMp => openmp(w, &mut out)?,
        Form::ImageInfo => image_info(w, &mut out)?,
        Form::Fatbin => fatbin(w, &mut out)?,
    }
    out.flush()?;
    Ok(())
}

/// The module's first lines. LLVM prints the triple as it is (none when empty); one that
/// would not read back (a `"`, a `\\` or a byte outside printable ASCII) is escaped as
/// string constants are, so that `llvm-as` reads the same triple.
fn header(out: &mut dyn Write, module: &str, triple: &str) -> io::Result<()> {
    write!(
        out,
        "; ModuleID = '{module}'\nsource_filename = \"{module}\"\n"
    )?;
    if !triple.is_empty() {
        let mut t = Vec::with_capacity(triple.len());
        for b in triple.bytes() {
            escape(&mut t, b);
        }
        out.write_all(b"target triple = \"")?;
        out.write_all(&t)?;
        out.write_all(b"\"\n")?;
    }
    out.write_all(b"\n")
}

/// `, code_model "large"` where the large layout needs it (x86-64 only).
fn code_model(w: &Wrapper<'_>) -> &'static str {
    if w.large && w.host == Host::X86_64 {
        ", code_model \"large\""
    } else {
        ""
    }
}

/// The ELF declarations of `__start_`/`__stop_<table>`.
fn external_bounds(out: &mut dyn Write, table: &str) -> io::Result<()> {
    for which in ["start", "stop"] {
        writeln!(
            out,
            "@__{which}_{table} = external hidden constant [0 x %struct.__tgt_offload_entry]"
        )?;
    }
    Ok(())
}

/// The start/stop symbols of the entry table the module of `w` walks, and on ELF LLVM's
/// internal dummy entry and `@llvm.compiler.used`. ELF linkers define `__start_`/`__stop_`
/// around a section named like a C identifier; COFF has no such symbols, so LLVM defines them
/// itself as empty `weak_odr` arrays in the grouped sections `<sec>$OA` and `<sec>$OZ`, which
/// the linker sorts around the entries (`<sec>$OE`).
fn entry_bounds(w: &Wrapper<'_>, out: &mut dyn Write) -> io::Result<()> {
    let table = w.release.entries(w.kind);
    let format = Triple::parse(&w.host_triple).object_format();
    if format != ObjectFormat::Elf {
        // COFF defines the bounds itself; the other formats (Mach-O, Wasm, …) declare them in
        // the same grouped sections, as LLVM does for every format but ELF.
        let (linkage, init) = match format {
            ObjectFormat::Coff => ("weak_odr", " zeroinitializer"),
            _ => ("external", ""),
        };
        for (which, group) in [("start", "OA"), ("stop", "OZ")] {
            writeln!(
                out,
                "@__{which}_{table} = {linkage} hidden constant [0 x %struct.__tgt_offload_entry]{init}, section \"{table}${group}\""
            )?;
        }
        return Ok(());
    }
    external_bounds(out, table)?;
    writeln!(
        out,
        "@__dummy.{table} = internal constant [0 x %struct.__tgt_offload_entry] zeroinitializer, section \"{table}\"{}",
        w.release.dummy_align
    )?;
    writeln!(
        out,
        "@llvm.compiler.used = appending global [1 x ptr] [ptr @__dummy.{table}], section \"llvm.metadata\""
    )
}

fn ctors(out: &mut dyn Write, which: &str, priority: u32, func: &str) -> io::Result<()> {
    writeln!(
        out,
        "@llvm.global_{which} = appending global [1 x {{ i32, ptr, ptr }}] [{{ i32, ptr, ptr }} {{ i32 {priority}, ptr @{func}, ptr null }}]"
    )
}

/// Appends byte `b` as LLVM's `printEscapedString` writes it: `\\` doubled, printable ASCII
/// other than `"` as is, everything else `\XX`.
fn escape(buf: &mut Vec<u8>, b: u8) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    if b == b'\\' {
        buf.extend_from_slice(b"\\\\");
    } else if (0x20..0x7f).contains(&b) && b != b'"' {
        buf.push(b);
    } else {
        buf.extend_from_slice(&[b'\\', HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
    }
}

/// Writes `pieces` as an IR byte-array initializer: `c"…"` with LLVM's escapes
/// (`printEscapedString`: `\` doubled, printable ASCII other than `"` as is, everything else
/// `\XX`), or `zeroinitializer` when every
/// byte is zero (LLVM turns such a constant into a `ConstantAggregateZero`).
fn bytes(out: &mut dyn Write, pieces: &[Piece<'_>]) -> io::Result<()> {
    let all_zero = pieces.iter().all(|p| match p {
        Piece::Bytes(b) => b.iter().all(|&x| x == 0),
        Piece::Borrowed(b) => b.iter().all(|&x| x == 0),
        Piece::Zeros(_) => true,
    });
    if all_zero {
        return out.write_all(b"zeroinitializer");
    }
    let mut buf = Vec::with_capacity(1 << 16);
    buf.extend_from_slice(b"c\"");
    let emit = |out: &mut dyn Write, chunk: &[u8], buf: &mut Vec<u8>| -> io::Result<()> {
        for &b in chunk {
            escape(buf, b);
            if buf.len() >= (1 << 16) - 4 {
                out.write_all(buf)?;
                buf.clear();
            }
        }
        Ok(())
    };
    const ZEROS: [u8; 4096] = [0; 4096];
    for p in pieces {
        match p {
            Piece::Bytes(b) => emit(out, b, &mut buf)?,
            Piece::Borrowed(b) => emit(out, b, &mut buf)?,
            Piece::Zeros(n) => {
                let mut n = *n;
                while n > 0 {
                    let k = n.min(ZEROS.len() as u64) as usize;
                    emit(out, &ZEROS[..k], &mut buf)?;
                    n -= k as u64;
                }
            }
        }
    }
    buf.push(b'"');
    out.write_all(&buf)
}

/// The pieces of the `n`th image global (offload binary or raw image).
fn image_pieces<'a>(w: &Wrapper<'a>, n: usize) -> Vec<Piece<'a>> {
    let p = &w.placed[n];
    let mut v = Vec::new();
    if !p.head.is_empty() {
        v.push(Piece::Bytes(p.head.clone()));
    }
    v.push(Piece::Borrowed(p.image.data));
    if p.tail > 0 {
        v.push(Piece::Zeros(p.tail));
    }
    v
}

/// `%__tgt_device_image { … }` for image `n`, its bytes at `[begin, end)` of global `g`, the
/// entry table `table`.
fn device_image(g: &str, size: u64, begin: u64, end: u64, table: &str) -> String {
    let at = |o: u64| {
        if o == 0 {
            format!("ptr @{g}")
        } else {
            format!("ptr getelementptr ([{size} x i8], ptr @{g}, i64 0, i64 {o})")
        }
    };
    format!(
        "%__tgt_device_image {{ {}, {}, ptr @__start_{table}, ptr @__stop_{table} }}",
        at(begin),
        at(end)
    )
}

/// The device images and the descriptor, over entry table `table`.
fn device_images_and_descriptor(
    w: &Wrapper<'_>,
    out: &mut dyn Write,
    table: &str,
) -> io::Result<()> {
    let k = w.placed.len();
    let items: Vec<String> = w
        .placed
        .iter()
        .enumerate()
        .map(|(n, p)| device_image(&image_global(n), p.size(), p.range.0, p.range.1, table))
        .collect();
    writeln!(
        out,
        "@.omp_offloading.device_images = internal unnamed_addr constant [{k} x %__tgt_device_image] [{}]",
        items.join(", ")
    )?;
    writeln!(
        out,
        "@.omp_offloading.descriptor = internal constant %__tgt_bin_desc {{ i32 {k}, ptr @.omp_offloading.device_images, ptr @__start_{table}, ptr @__stop_{table} }}"
    )
}

const OMP_TYPES: &str = "%__tgt_device_image = type { ptr, ptr, ptr, ptr }\n%__tgt_bin_desc = type { i32, ptr, ptr, ptr }\n";

const OMP_UNREG: &str =
    "define internal void @.omp_offloading.descriptor_unreg() section \".text.startup\" {
entry:
  call void @__tgt_unregister_lib(ptr @.omp_offloading.descriptor)
  ret void
}

declare void @__tgt_unregister_lib(ptr)
";

fn openmp(w: &Wrapper<'_>, out: &mut dyn Write) -> io::Result<()> {
    header(out, "offload.wrapper.module", &w.host_triple)?;
    entry_ty(out, w.release)?;
    out.write_all(OMP_TYPES.as_bytes())?;
    out.write_all(b"\n")?;
    entry_bounds(w, out)?;
    let section = w.image_section();
    for (n, p) in w.placed.iter().enumerate() {
        write!(
            out,
            "@{} = internal unnamed_addr constant [{} x i8] ",
            image_global(n),
            p.size()
        )?;
        bytes(out, &image_pieces(w, n))?;
        writeln!(out, ", section \"{section}\"{}, align 8", code_model(w))?;
    }
    device_images_and_descriptor(w, out, w.release.entries(Kind::OpenMp))?;
    ctors(out, "ctors", 101, ".omp_offloading.descriptor_reg")?;
    out.write_all(
        b"
define internal void @.omp_offloading.descriptor_reg() section \".text.startup\" {
entry:
  call void @__tgt_register_lib(ptr @.omp_offloading.descriptor)
  %0 = call i32 @atexit(ptr @.omp_offloading.descriptor_unreg)
  ret void
}

declare void @__tgt_register_lib(ptr)

declare i32 @atexit(ptr)

",
    )?;
    out.write_all(OMP_UNREG.as_bytes())
}

/// The image-info module, with opaque pointers. The images are plain `internal constant`s (not
/// `unnamed_addr`, so LLVM never moves one into a mergeable-constant section).
fn image_info(w: &Wrapper<'_>, out: &mut dyn Write) -> io::Result<()> {
    let k = w.placed.len();
    // One fixed module, whatever the LLVM release (LLVM 19's entry table).
    let seed = Release::of(offkit_llvm::LlvmVersion::V19);
    let table = seed.entries(Kind::OpenMp);
    header(out, "offload.wrapper.object", &w.host_triple)?;
    entry_ty(out, seed)?;
    out.write_all(OMP_TYPES.as_bytes())?;
    out.write_all(b"%__tgt_image_info = type { i32, i32, i32, ptr, ptr }\n\n")?;
    external_bounds(out, table)?;
    writeln!(
        out,
        "@__dummy.omp_offloading.entry = hidden constant [0 x %struct.__tgt_offload_entry] zeroinitializer, section \"omp_offloading_entries\""
    )?;
    let cm = code_model(w);
    for (n, p) in w.placed.iter().enumerate() {
        write!(
            out,
            "@{} = internal constant [{} x i8] ",
            image_global(n),
            p.size()
        )?;
        bytes(out, &image_pieces(w, n))?;
        writeln!(out, "{cm}")?;
    }
    for (n, p) in w.placed.iter().enumerate() {
        let mut s = p.image.arch.as_bytes().to_vec();
        s.push(0);
        write!(
            out,
            "@__offload_arch_{n} = internal unnamed_addr constant [{} x i8] ",
            s.len()
        )?;
        bytes(out, &[Piece::Bytes(s)])?;
        writeln!(out, ", section \".offload_arch_list\"")?;
    }
    for n in 0..k {
        writeln!(
            out,
            "@.offload_image_info_{n} = internal unnamed_addr constant %__tgt_image_info {{ i32 1, i32 {n}, i32 {k}, ptr @__offload_arch_{n}, ptr null }}"
        )?;
    }
    device_images_and_descriptor(w, out, table)?;
    ctors(out, "ctors", 1, ".omp_offloading.descriptor_reg")?;
    ctors(out, "dtors", 1, ".omp_offloading.descriptor_unreg")?;
    out.write_all(
        b"
define internal void @.omp_offloading.descriptor_reg() section \".text.startup\" {
entry:
  %0 = icmp ne ptr @__tgt_register_image_info, null
  br i1 %0, label %info, label %lib

info:
",
    )?;
    for n in 0..k {
        writeln!(
            out,
            "  call void @__tgt_register_image_info(ptr @.offload_image_info_{n})"
        )?;
    }
    out.write_all(
        b"  br label %lib

lib:
  call void @__tgt_register_lib(ptr @.omp_offloading.descriptor)
  ret void
}

declare extern_weak void @__tgt_register_image_info(ptr)

declare void @__tgt_register_lib(ptr)

",
    )?;
    out.write_all(OMP_UNREG.as_bytes())
}

fn fatbin(w: &Wrapper<'_>, out: &mut dyn Write) -> Result<(), crate::Error> {
    let hip = w.kind == Kind::Hip;
    let (x, magic, wrapper_section) = if hip {
        ("hip", HIP_FAT_MAGIC, ".hipFatBinSegment")
    } else if w.macos() {
        ("cuda", CUDA_FAT_MAGIC, "__NV_CUDA,__fatbin")
    } else {
        ("cuda", CUDA_FAT_MAGIC, ".nvFatBinSegment")
    };
    let pieces = fatbin::fatbin_pieces(w)?;
    let size: u64 = pieces.iter().map(Piece::len).sum();
    header(out, "offload.wrapper.module", &w.host_triple)?;
    entry_ty(out, w.release)?;
    out.write_all(b"%fatbin_wrapper = type { i32, i32, ptr, ptr }\n\n")?;
    entry_bounds(w, out)?;
    write!(out, "@.fatbin_image = internal constant [{size} x i8] ")?;
    bytes(out, &pieces)?;
    writeln!(out, ", section \"{}\"{}", w.image_section(), code_model(w))?;
    writeln!(
        out,
        "@.fatbin_wrapper = internal constant %fatbin_wrapper {{ i32 {magic}, i32 1, ptr @.fatbin_image, ptr null }}, section \"{wrapper_section}\", align 8"
    )?;
    writeln!(out, "@.{x}.binary_handle = internal global ptr null")?;
    ctors(out, "ctors", 101, &format!(".{x}.fatbin_reg"))?;
    let api = if hip { "hip" } else { "cuda" };
    let end_call = if hip {
        String::new()
    } else {
        "  call void @__cudaRegisterFatBinaryEnd(ptr %0)\n".to_string()
    };
    write!(
        out,
        r#"
define internal void @.{x}.fatbin_reg() section ".text.startup" {{
entry:
  %0 = call ptr @__{api}RegisterFatBinary(ptr @.fatbin_wrapper)
  store ptr %0, ptr @.{x}.binary_handle, align 8
  call void @.{x}.globals_reg(ptr %0)
{end_call}  %1 = call i32 @atexit(ptr @.{x}.fatbin_unreg)
  ret void
}}

define internal void @.{x}.fatbin_unreg() section ".text.startup" {{
entry:
  %0 = load ptr, ptr @.{x}.binary_handle, align 8
  call void @__{api}UnregisterFatBinary(ptr %0)
  ret void
}}

declare ptr @__{api}RegisterFatBinary(ptr)

declare void @__cudaRegisterFatBinaryEnd(ptr)

declare void @__{api}UnregisterFatBinary(ptr)

declare i32 @atexit(ptr)

"#
    )?;
    let table = w.release.entries(w.kind);
    match w.release.walk {
        Walk::Llvm19 => globals19(out, hip, table),
        Walk::Llvm22 => {
            // The entry's own `Kind`, as the release numbers it (CUDA 2, HIP 4).
            let kind = w
                .kind
                .offload_kind()
                .to_raw(w.release.llvm)
                .unwrap_or_default();
            globals22(out, hip, table, kind)
        }
    }?;
    Ok(())
}

/// LLVM 19's `.{cuda,hip}.globals_reg` and the declarations before it.
fn globals19(out: &mut dyn Write, hip: bool, table: &str) -> io::Result<()> {
    let (x, api) = names(hip);
    let (surface, texture) = if hip {
        (
            "  call void @__hipRegisterSurface(ptr %0, ptr %addr, ptr %name, ptr %name, i32 %textype, i32 %extern)\n",
            "  call void @__hipRegisterTexture(ptr %0, ptr %addr, ptr %name, ptr %name, i32 %textype, i32 %normalized, i32 %extern)\n",
        )
    } else {
        ("", "")
    };
    write!(
        out,
        r#"declare i32 @__{api}RegisterFunction(ptr, ptr, ptr, ptr, i32, ptr, ptr, ptr, ptr, ptr)

declare void @__{api}RegisterVar(ptr, ptr, ptr, ptr, i32, i64, i32, i32)

declare void @__{api}RegisterSurface(ptr, ptr, ptr, ptr, i32, i32)

declare void @__{api}RegisterTexture(ptr, ptr, ptr, ptr, i32, i32, i32)

define internal void @.{x}.globals_reg(ptr %0) section ".text.startup" {{
entry:
  %1 = icmp ne ptr @__start_{table}, @__stop_{table}
  br i1 %1, label %while.entry, label %while.end

while.entry:                                      ; preds = %if.end, %entry
  %entry1 = phi ptr [ @__start_{table}, %entry ], [ %12, %if.end ]
  %2 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i64 0, i32 0
  %addr = load ptr, ptr %2, align 8
  %3 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i64 0, i32 1
  %name = load ptr, ptr %3, align 8
  %4 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i64 0, i32 2
  %size = load i64, ptr %4, align 4
  %5 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i64 0, i32 3
  %flags = load i32, ptr %5, align 4
  %6 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i64 0, i32 4
  %textype = load i32, ptr %6, align 4
  %type = and i32 %flags, 7
  %7 = and i32 %flags, 8
  %extern = lshr i32 %7, 3
  %8 = and i32 %flags, 16
  %constant = lshr i32 %8, 4
  %9 = and i32 %flags, 32
  %normalized = lshr i32 %9, 5
  %10 = icmp eq i64 %size, 0
  br i1 %10, label %if.then, label %if.else

if.then:                                          ; preds = %while.entry
  %11 = call i32 @__{api}RegisterFunction(ptr %0, ptr %addr, ptr %name, ptr %name, i32 -1, ptr null, ptr null, ptr null, ptr null, ptr null)
  br label %if.end

if.else:                                          ; preds = %while.entry
  switch i32 %type, label %if.end [
    i32 0, label %sw.global
    i32 1, label %sw.managed
    i32 2, label %sw.surface
    i32 3, label %sw.texture
  ]

sw.global:                                        ; preds = %if.else
  call void @__{api}RegisterVar(ptr %0, ptr %addr, ptr %name, ptr %name, i32 %extern, i64 %size, i32 %constant, i32 0)
  br label %if.end

sw.managed:                                       ; preds = %if.else
  br label %if.end

sw.surface:                                       ; preds = %if.else
{surface}  br label %if.end

sw.texture:                                       ; preds = %if.else
{texture}  br label %if.end

if.end:                                           ; preds = %sw.texture, %sw.surface, %sw.managed, %sw.global, %if.else, %if.then
  %12 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i64 1
  %13 = icmp eq ptr %12, @__stop_{table}
  br i1 %13, label %while.end, label %while.entry

while.end:                                        ; preds = %if.end, %entry
  ret void
}}
"#
    )?;
    Ok(())
}

/// `(".{x}.…" prefix, "__{api}Register…" prefix)` of CUDA or HIP.
fn names(hip: bool) -> (&'static str, &'static str) {
    if hip {
        ("hip", "hip")
    } else {
        ("cuda", "cuda")
    }
}

/// LLVM 22's `.{cuda,hip}.globals_reg` and the declarations before it: the entries of the
/// kind's own `Kind` (CUDA 2, HIP 4), managed variables registered; surfaces and textures for
/// HIP only (the linker wrapper passes `EmitSurfacesAndTextures=false` for CUDA).
fn globals22(out: &mut dyn Write, hip: bool, table: &str, kind: u16) -> io::Result<()> {
    let (x, api) = names(hip);
    let (surface, texture) = if hip {
        (
            "  call void @__hipRegisterSurface(ptr %0, ptr %addr, ptr %name, ptr %name, i32 %9, i32 %extern)\n",
            "  call void @__hipRegisterTexture(ptr %0, ptr %addr, ptr %name, ptr %name, i32 %9, i32 %normalized, i32 %extern)\n",
        )
    } else {
        ("", "")
    };
    write!(
        out,
        r#"declare i32 @__{api}RegisterFunction(ptr, ptr, ptr, ptr, i32, ptr, ptr, ptr, ptr, ptr)

declare void @__{api}RegisterVar(ptr, ptr, ptr, ptr, i32, i64, i32, i32)

declare void @__{api}RegisterManagedVar(ptr, ptr, ptr, ptr, i64, i32)

declare void @__{api}RegisterSurface(ptr, ptr, ptr, ptr, i32, i32)

declare void @__{api}RegisterTexture(ptr, ptr, ptr, ptr, i32, i32, i32)

define internal void @.{x}.globals_reg(ptr %0) section ".text.startup" {{
entry:
  %1 = icmp ne ptr @__start_{table}, @__stop_{table}
  br i1 %1, label %while.entry, label %while.end

while.entry:                                      ; preds = %if.end, %entry
  %entry1 = phi ptr [ @__start_{table}, %entry ], [ %16, %if.end ]
  %2 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i32 0, i32 4
  %addr = load ptr, ptr %2, align 8
  %3 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i32 0, i32 8
  %aux_addr = load ptr, ptr %3, align 8
  %4 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i32 0, i32 2
  %kind = load i16, ptr %4, align 2
  %5 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i32 0, i32 5
  %name = load ptr, ptr %5, align 8
  %6 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i32 0, i32 6
  %size = load i64, ptr %6, align 4
  %7 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i32 0, i32 3
  %flags = load i32, ptr %7, align 4
  %8 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i32 0, i32 7
  %data = load i64, ptr %8, align 4
  %9 = trunc i64 %data to i32
  %type = and i32 %flags, 7
  %10 = and i32 %flags, 8
  %extern = lshr i32 %10, 3
  %11 = and i32 %flags, 16
  %constant = lshr i32 %11, 4
  %12 = and i32 %flags, 32
  %normalized = lshr i32 %12, 5
  %13 = icmp eq i16 %kind, {kind}
  br i1 %13, label %if.kind, label %if.end

if.kind:                                          ; preds = %while.entry
  %14 = icmp eq i64 %size, 0
  br i1 %14, label %if.then, label %if.else

if.then:                                          ; preds = %if.kind
  %15 = call i32 @__{api}RegisterFunction(ptr %0, ptr %addr, ptr %name, ptr %name, i32 -1, ptr null, ptr null, ptr null, ptr null, ptr null)
  br label %if.end

if.else:                                          ; preds = %if.kind
  switch i32 %type, label %if.end [
    i32 0, label %sw.global
    i32 1, label %sw.managed
    i32 2, label %sw.surface
    i32 3, label %sw.texture
  ]

sw.global:                                        ; preds = %if.else
  call void @__{api}RegisterVar(ptr %0, ptr %addr, ptr %name, ptr %name, i32 %extern, i64 %size, i32 %constant, i32 0)
  br label %if.end

sw.managed:                                       ; preds = %if.else
  call void @__{api}RegisterManagedVar(ptr %0, ptr %aux_addr, ptr %addr, ptr %name, i64 %size, i32 %9)
  br label %if.end

sw.surface:                                       ; preds = %if.else
{surface}  br label %if.end

sw.texture:                                       ; preds = %if.else
{texture}  br label %if.end

if.end:                                           ; preds = %sw.texture, %sw.surface, %sw.managed, %sw.global, %if.else, %if.then, %while.entry
  %16 = getelementptr inbounds %struct.__tgt_offload_entry, ptr %entry1, i64 1
  %17 = icmp eq ptr %16, @__stop_{table}
  br i1 %17, label %while.end, label %while.entry

while.end:                                        ; preds = %if.end, %entry
  ret void
}}
"#
    )
}
