//! # offkit-wrap
//!
//! Registration ("wrapper") objects: a relocatable host object that embeds linked device images
//! and, at start-up, hands them to the offload runtime — a `__tgt_bin_desc` to libomptarget
//! (OpenMP), a fatbinary to the CUDA or HIP runtime — written directly as ELF with the `object`
//! crate's encoder. No LLVM is needed: the object is what the `clang-linker-wrapper` of LLVM 19
//! or LLVM 22 ([`WrapOptions::llvm`]) compiles from its wrapper module (section by section,
//! symbol by symbol, relocation by relocation), for x86-64 and AArch64 hosts. The releases
//! differ in the entry table (`omp_offloading_entries` and its kin with 32-byte entries, or
//! `llvm_offload_entries` with 56-byte ones), the CUDA/HIP entry walk and the HIP bundle's
//! host entry; `release.rs` lists every difference.
//!
//! ```text
//! [Image { bytes, triple, arch }] ─check─► order (LLVM 19's sort) ─► layout
//!     ─► .llvm.offloading (offload binaries) / .nv_fatbin / .hip_fatbin
//!        + __tgt_device_image[] + __tgt_bin_desc (.data.rel.ro)
//!        + constructor (.text.startup, .init_array.101) + .eh_frame ─► ELF .o
//!     ─► or the same module as LLVM IR text (what LLVM prints with --print-wrapped-module)
//! ```
//!
//! Forms:
//! - [`Kind::OpenMp`]: LLVM 19's module (`OffloadWrapper.cpp`'s `wrapOpenMPBinaries`): every image in an offload
//!   binary in an allocatable `.llvm.offloading` section (`.llvm.offloading.relocatable` with
//!   [`WrapOptions::relocatable`]), a priority-101 constructor calling `__tgt_register_lib` and
//!   registering the destructor with `atexit`.
//! - [`Kind::OpenMp`] with [`WrapOptions::image_info`]: AMD's image-info `clang-offload-wrapper`
//!   module (ROCm/AOMP, LLVM 15–16 era): raw images, a `__tgt_image_info` per image with the
//!   target-ID strings in `.offload_arch_list`, `__tgt_register_image_info` called for each image when the runtime
//!   has it (a weak reference tested for null), and unregistration from `.fini_array`.
//! - [`Kind::Cuda`], [`Kind::Hip`]: LLVM 19's fatbinary registration (one fatbinary; for HIP the
//!   offload bundle LLVM 19 makes from the images).
//!
//! Images are borrowed and written straight to the output after the headers, so an image of
//! several gigabytes from a memory map is never copied. Above [`LARGE_THRESHOLD`] bytes of
//! image data the images go to a `.lrodata.*` section (see [`Large`]).
//!
//! The API: [`Image`] (borrowed bytes, triple, target ID; [`Image::without_arch`] for an image
//! that has no `arch` string), [`WrapOptions`] (host triple, [`Kind`], relocatable, image-info
//! form, [`Order`], [`Large`], HIP compression), [`Wrapper::new`] (checks and lays out; every
//! input error is found here), then [`Wrapper::write_object`] or [`Wrapper::write_llvm_ir`] to
//! any `Write`; [`write_object`] does both steps.
//!
//! ```no_run
//! use offkit_wrap::{Image, Kind, WrapOptions};
//!
//! let image = std::fs::read("device.so").unwrap();
//! let images = [Image::new(&image, "x86_64-pc-linux-gnu", "")];
//! let opts = WrapOptions::new("x86_64-pc-linux-gnu", Kind::OpenMp);
//! let mut out = std::io::BufWriter::new(std::fs::File::create("wrapper.o").unwrap());
//! offkit_wrap::write_object(&images, &opts, &mut out).unwrap();
//! ```
#![deny(missing_docs)]

mod bitcode;
mod code;
mod eh_frame;
mod elf;
mod error;
mod fatbin;
mod host;
mod image;
mod ir;
mod openmp;
mod order;
mod release;

use std::io::Write;

use offkit_format::binary::{self, ImageSpec};
pub use offkit_format::bundle::compressed;
use offkit_format::kind::OffloadKind;
use offkit_llvm::LlvmVersion;
use release::Release;

pub use error::{Error, ImageName};
pub use host::Host;
pub use image::{Image, FATBIN_MAGIC};
pub use order::{llvm19_order, llvm19_sort};

/// The most images one object may hold.
pub const MAX_IMAGES: usize = 1 << 16;

/// Above this many bytes of image data, [`Large::Auto`] uses the large layout.
///
/// GNU ld 2.40 places an allocatable section it does not know (such as `.llvm.offloading`)
/// among the read-only data between the code and the writable data; once that passes 2 GiB the
/// program's own 32-bit PC-relative references across it overflow. 1 GiB leaves room for the
/// rest of the program.
pub const LARGE_THRESHOLD: u64 = 1 << 30;

/// The programming model whose runtime registers the images.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// OpenMP offloading (libomptarget).
    OpenMp,
    /// CUDA (the CUDA runtime).
    Cuda,
    /// HIP (the HIP runtime).
    Hip,
}

impl Kind {
    /// The name used in messages (`cannot carry OpenMP code`): `OpenMP`, `CUDA`, `HIP`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::OpenMp => "OpenMP",
            Kind::Cuda => "CUDA",
            Kind::Hip => "HIP",
        }
    }

    /// The kind for an offload binary's offload kind (`None` for none and SYCL).
    pub fn from_offload_kind(k: OffloadKind) -> Option<Kind> {
        match k {
            OffloadKind::OpenMp => Some(Kind::OpenMp),
            OffloadKind::Cuda => Some(Kind::Cuda),
            OffloadKind::Hip => Some(Kind::Hip),
            _ => None,
        }
    }

    fn offload_kind(self) -> OffloadKind {
        match self {
            Kind::OpenMp => OffloadKind::OpenMp,
            Kind::Cuda => OffloadKind::Cuda,
            Kind::Hip => OffloadKind::Hip,
        }
    }
}

/// The order of the images in the object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order {
    /// LLVM 19's linker wrapper's order ([`llvm19_order`]): the same images give the same
    /// object as LLVM's pipeline.
    #[default]
    Llvm19,
    /// The order given (as AMD's image-info `clang-offload-wrapper` keeps its command line order).
    AsGiven,
}

/// Whether to use the layout for very large images.
///
/// The large layout names the image section `.lrodata.<name>` and flags it
/// `SHF_X86_64_LARGE`, which GNU ld and lld both place after the program's other data, out of
/// the way of its 32-bit PC-relative references. Everything else is unchanged: image data is
/// only ever reached through 64-bit absolute data relocations. This differs from LLVM 19, whose
/// own layout does not link with GNU ld at these sizes. On AArch64 hosts there is no large
/// section convention (AArch64 reaches ±4 GiB from code anyway); there the option does
/// nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Large {
    /// Large layout when the image data exceeds [`LARGE_THRESHOLD`].
    #[default]
    Auto,
    /// Always LLVM 19's layout.
    Never,
    /// Always the large layout.
    Always,
}

/// What to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrapOptions {
    /// The LLVM release whose registration objects are written (19 by default): the entry
    /// table the code walks and its layout, the offload binaries' kind numbering, the HIP
    /// bundle's host entry. Host objects compiled by clang-19 need 19's, clang-22's need 22's.
    pub llvm: LlvmVersion,
    /// The host target triple (`x86_64-…` or `aarch64-…`, ELF).
    pub host_triple: String,
    /// The offload kind.
    pub kind: Kind,
    /// LLVM's `-r` mode: OpenMP images go to `.llvm.offloading.relocatable`; the CUDA and HIP
    /// objects are unchanged (LLVM 19 writes the same module).
    pub relocatable: bool,
    /// OpenMP: write AMD's image-info `clang-offload-wrapper` form.
    pub image_info: bool,
    /// The image order.
    pub order: Order,
    /// The large-image layout.
    pub large: Large,
    /// Check that each image is what its triple and the kind say, and that its target ID
    /// parses (on by default). Off, any bytes are embedded as given (as AMD's image-info
    /// `clang-offload-wrapper` does); the offload binary then records the image kind found
    /// (ELF object, bitcode, or none).
    pub check_images: bool,
    /// HIP: compress the offload bundle (LLVM's `clang-linker-wrapper --compress
    /// [--compression-level=N]`, which passes `-compress` to the bundler). The bundle is then
    /// built in memory. `compressed::Options::default()` is what LLVM 19 writes.
    pub hip_compress: Option<compressed::Options>,
    /// Accept empty images (checks on). LLVM 19's `--dry-run` only prints the device links, so
    /// the images it wraps are empty; it wraps them all the same (an OpenMP image is then
    /// recorded as an ELF object, as a linked one would be).
    pub allow_empty: bool,
    /// Embed each image as given, as LLVM 22's `llvm-offload-wrapper` does: an OpenMP image is
    /// not put in an offload binary (when it is one, the image of its first entry is what the
    /// runtime is given), a HIP image is not bundled, images are neither checked nor reordered,
    /// and any host triple is accepted (a host offkit has no code for is written as IR only).
    pub as_given: bool,
}

impl WrapOptions {
    /// LLVM 19's form for `kind` on `host_triple`.
    pub fn new(host_triple: impl Into<String>, kind: Kind) -> Self {
        WrapOptions {
            llvm: LlvmVersion::V19,
            host_triple: host_triple.into(),
            kind,
            relocatable: false,
            image_info: false,
            order: Order::Llvm19,
            large: Large::Auto,
            check_images: true,
            hip_compress: None,
            allow_empty: false,
            as_given: false,
        }
    }
}

/// Which module is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// LLVM 19's OpenMP module.
    OpenMp,
    /// The image-info module.
    ImageInfo,
    /// LLVM 19's CUDA or HIP module.
    Fatbin,
}

/// One image where it lands.
#[derive(Debug, Clone)]
struct Placed<'a> {
    image: Image<'a>,
    /// The position in the caller's list.
    index: usize,
    /// Bytes before the image (the offload binary's header and strings; empty for raw images).
    head: Vec<u8>,
    /// Zero bytes after the image (the binary's padding).
    tail: u64,
    /// Offset of the head in the image section.
    offset: u64,
    /// Where the bytes the runtime is given lie in the global (head, image, tail): the image
    /// after the head, or for an image embedded as given the whole of it or, in an offload
    /// binary, its first entry's image.
    range: (u64, u64),
}

impl Placed<'_> {
    /// The global's size: head, image and tail.
    fn size(&self) -> u64 {
        self.head.len() as u64 + self.image.data.len() as u64 + self.tail
    }

    /// Offsets in the section of the bytes the runtime is given: `[start, end)`.
    fn registered(&self) -> (u64, u64) {
        (self.offset + self.range.0, self.offset + self.range.1)
    }
}

/// A checked, laid-out registration object, ready to be written as ELF or as LLVM IR.
#[derive(Debug, Clone)]
pub struct Wrapper<'a> {
    /// The LLVM release whose module is written.
    release: &'static Release,
    host: Host,
    host_triple: String,
    kind: Kind,
    form: Form,
    relocatable: bool,
    large: bool,
    hip_compress: Option<compressed::Options>,
    allow_empty: bool,
    /// Images embedded as given ([`WrapOptions::as_given`]).
    as_given: bool,
    /// A host written as IR only ([`Host::ir_only`]); for COFF the module differs (`ir.rs`).
    ir_only: bool,
    placed: Vec<Placed<'a>>,
}

impl<'a> Wrapper<'a> {
    /// Checks the images and options and lays the object out. Nothing is written; every error
    /// about the input is found here.
    pub fn new(images: &[Image<'a>], opts: &WrapOptions) -> Result<Wrapper<'a>, Error> {
        if opts.as_given {
            return Self::new_as_given(images, opts);
        }
        let ir_only = Host::ir_only(&opts.host_triple);
        // (For a host written as IR only, `host` only stands in for the layout, which the IR
        // does not depend on.)
        let host = match Host::from_triple(&opts.host_triple) {
            Err(_) if ir_only => Host::X86_64,
            h => h?,
        };
        // The image-info form is written as an object only. (LLVM 19 writes the relocatable
        // module for COFF too, and refuses `-r` only after the host link.)
        if ir_only && opts.image_info {
            return Err(Error::UnsupportedHost {
                triple: opts.host_triple.clone(),
            });
        }
        let form = match (opts.kind, opts.image_info) {
            (Kind::OpenMp, false) => Form::OpenMp,
            (Kind::OpenMp, true) => Form::ImageInfo,
            (_, true) => {
                return Err(Error::BadOptions(
                    "the image-info form registers OpenMP images only".to_string(),
                ))
            }
            (Kind::Cuda | Kind::Hip, false) => Form::Fatbin,
        };
        if opts.hip_compress.is_some() && opts.kind != Kind::Hip {
            return Err(Error::BadOptions(
                "only HIP offload bundles are compressed".to_string(),
            ));
        }
        // LLVM 19's CUDA and HIP modules are the same in relocatable mode (only the host link
        // and the objcopy step after it differ); the image-info form has no such mode.
        if opts.relocatable && form == Form::ImageInfo {
            return Err(Error::BadOptions(
                "relocatable mode applies to LLVM 19's forms only".to_string(),
            ));
        }
        if images.is_empty() {
            return Err(Error::NoImages);
        }
        if images.len() > MAX_IMAGES {
            return Err(Error::TooManyImages {
                count: images.len(),
                limit: MAX_IMAGES,
            });
        }
        if opts.kind == Kind::Cuda && images.len() != 1 {
            return Err(Error::BadOptions(format!(
                "CUDA registers one fatbinary, {} images were given (combine the cubins with \
                 NVIDIA's `fatbinary` first)",
                images.len()
            )));
        }
        let mut kinds = Vec::with_capacity(images.len());
        for (i, img) in images.iter().enumerate() {
            let found = if opts.allow_empty && img.data.is_empty() {
                image::empty_kind(opts.kind)
            } else if opts.check_images {
                image::check(i, img, opts.kind)?
            } else {
                image::detect(img.data)
            };
            kinds.push(img.kind.unwrap_or(found));
        }
        let (order, touched) = match opts.order {
            Order::Llvm19 => {
                let keys: Vec<(&str, &str)> = images.iter().map(|i| (i.triple, i.arch)).collect();
                llvm19_sort(&keys)
            }
            Order::AsGiven => ((0..images.len()).collect(), vec![false; images.len()]),
        };
        if opts.kind == Kind::Hip
            && images.len() > 1
            && images.iter().any(|i| image::is_offload_bundle(i.data))
        {
            return Err(Error::BadOptions(
                "a ready-made HIP offload bundle must be the only image".to_string(),
            ));
        }
        let mut placed = Vec::with_capacity(images.len());
        let mut offset = 0u64;
        for &i in &order {
            let image = images[i];
            let (head, tail, align) = match form {
                Form::OpenMp => {
                    let mut strings: Vec<(&[u8], &[u8])> =
                        vec![(b"triple", image.triple.as_bytes())];
                    if image.has_arch || touched[i] {
                        strings.push((b"arch", image.arch.as_bytes()));
                    }
                    let spec = ImageSpec {
                        image_kind: kinds[i],
                        offload_kind: opts.kind.offload_kind(),
                        flags: 0,
                        strings,
                    };
                    let layout = binary::layout_v1(&spec, image.data.len() as u64, opts.llvm)
                        .map_err(|source| Error::Format {
                            what: "offload binary",
                            source,
                        })?;
                    let tail = layout.tail_padding();
                    (layout.head, tail, binary::ALIGN)
                }
                Form::ImageInfo | Form::Fatbin => (
                    Vec::new(),
                    0,
                    host.byte_array_align(image.data.len() as u64),
                ),
            };
            offset = offset.next_multiple_of(align);
            let range = (head.len() as u64, (head.len() + image.data.len()) as u64);
            let p = Placed {
                image,
                index: i,
                head,
                tail,
                offset,
                range,
            };
            offset += p.size();
            placed.push(p);
        }
        // Only x86-64 has a large-section convention (`.lrodata`, `SHF_X86_64_LARGE`).
        let large = host == Host::X86_64
            && !ir_only
            && match opts.large {
                Large::Auto => offset > LARGE_THRESHOLD,
                Large::Never => false,
                Large::Always => true,
            };
        Ok(Wrapper {
            release: Release::of(opts.llvm),
            host,
            host_triple: opts.host_triple.clone(),
            kind: opts.kind,
            form,
            relocatable: opts.relocatable,
            large,
            hip_compress: opts.hip_compress,
            allow_empty: opts.allow_empty,
            as_given: false,
            ir_only,
            placed,
        })
    }

    /// [`Wrapper::new`] for images embedded as given ([`WrapOptions::as_given`]).
    fn new_as_given(images: &[Image<'a>], opts: &WrapOptions) -> Result<Wrapper<'a>, Error> {
        if opts.image_info || opts.hip_compress.is_some() {
            return Err(Error::BadOptions(
                "images embedded as given are neither in the image-info form nor compressed"
                    .to_string(),
            ));
        }
        if images.is_empty() {
            return Err(Error::NoImages);
        }
        if images.len() > MAX_IMAGES {
            return Err(Error::TooManyImages {
                count: images.len(),
                limit: MAX_IMAGES,
            });
        }
        let (form, align) = match opts.kind {
            Kind::OpenMp => (Form::OpenMp, binary::ALIGN),
            _ if images.len() > 1 => {
                return Err(Error::BadOptions(format!(
                    "{} registers one fatbinary or offload bundle, {} images were given",
                    opts.kind.name(),
                    images.len()
                )))
            }
            _ => (Form::Fatbin, 1),
        };
        let host = Host::from_triple(&opts.host_triple);
        let ir_only = Host::ir_only(&opts.host_triple) || host.is_err();
        let mut placed = Vec::with_capacity(images.len());
        let mut offset = 0u64;
        for (index, &image) in images.iter().enumerate() {
            let range = match form {
                Form::OpenMp => image::registered_range(index, &image)?,
                _ => (0, image.data.len() as u64),
            };
            offset = offset.next_multiple_of(align);
            placed.push(Placed {
                image,
                index,
                head: Vec::new(),
                tail: 0,
                offset,
                range,
            });
            offset += image.data.len() as u64;
        }
        Ok(Wrapper {
            release: Release::of(opts.llvm),
            host: host.unwrap_or(Host::X86_64),
            host_triple: opts.host_triple.clone(),
            kind: opts.kind,
            form,
            relocatable: opts.relocatable,
            large: false,
            hip_compress: None,
            allow_empty: false,
            as_given: true,
            ir_only,
            placed,
        })
    }

    /// The host architecture.
    pub fn host(&self) -> Host {
        self.host
    }

    /// Where the caller's images went: `order()[i]` is the index (in the list given to
    /// [`Wrapper::new`]) of the image that comes `i`th in the object.
    pub fn order(&self) -> Vec<usize> {
        self.placed.iter().map(|p| p.index).collect()
    }

    /// Whether the large-image layout is used.
    pub fn is_large(&self) -> bool {
        self.large
    }

    fn object(&self) -> Result<elf::Object<'_>, Error> {
        if self.ir_only {
            return Err(Error::IrOnly {
                triple: self.host_triple.clone(),
            });
        }
        match self.form {
            Form::OpenMp => Ok(openmp::llvm(self)),
            Form::ImageInfo => Ok(openmp::image_info(self)),
            Form::Fatbin => fatbin::object(self),
        }
    }

    /// The size of the object [`Wrapper::write_object`] writes.
    pub fn object_size(&self) -> Result<u64, Error> {
        Ok(self.object()?.file_size())
    }

    /// Whether the host is written as IR only ([`Host::ir_only`]): then only
    /// [`Wrapper::write_llvm_ir`] writes the module, which LLVM 19's `llc -O2
    /// -relocation-model=pic -filetype=obj` compiles to the object LLVM 19's linker wrapper
    /// writes, byte for byte.
    pub fn is_ir_only(&self) -> bool {
        self.ir_only
    }

    /// Writes the relocatable ELF object.
    pub fn write_object(&self, out: &mut dyn Write) -> Result<(), Error> {
        self.object()?.write(out)?;
        Ok(())
    }

    /// Writes the equivalent LLVM IR module as text: for LLVM 19's forms exactly what
    /// `clang-linker-wrapper --print-wrapped-module` prints; `clang-19 -c` compiles it to an
    /// object with the same sections, symbols and relocations.
    pub fn write_llvm_ir(&self, out: &mut dyn Write) -> Result<(), Error> {
        ir::write(self, out)?;
        Ok(())
    }

    /// Whether the host is macOS (`Triple::isMacOSX`), whose CUDA sections are Mach-O ones
    /// (a module offkit writes as IR only).
    fn macos(&self) -> bool {
        use offkit_llvm::triple::Os;
        matches!(
            offkit_llvm::triple::Triple::parse(&self.host_triple).os(),
            Os::Darwin | Os::MacOsx
        )
    }

    /// Puts `bc` — the bitcode LLVM's `llvm-as --preserve-bc-uselistorder=false` makes of
    /// [`Wrapper::write_llvm_ir`]'s text, by the same LLVM release — in the order of LLVM's own
    /// `WriteBitcodeToFile` of the module its wrapper builds (what LLVM 22's
    /// `llvm-offload-wrapper` writes): the names of the CUDA/HIP entry walk's blocks and values
    /// are created in another order by LLVM's IR parser, and a function's symbol table is
    /// written in the order of a hash table that remembers it. Nothing else differs.
    pub fn bitcode_as_llvm_writes(&self, bc: &mut [u8]) -> Result<(), Error> {
        match self.form {
            Form::Fatbin => bitcode::as_llvm_writes(bc, self.release.walk),
            Form::OpenMp | Form::ImageInfo => Ok(()),
        }
    }

    /// The name of the section holding the images.
    fn image_section(&self) -> String {
        let base = match (self.form, self.kind, self.relocatable) {
            (Form::OpenMp, _, false) => ".llvm.offloading",
            (Form::OpenMp, _, true) => ".llvm.offloading.relocatable",
            (Form::ImageInfo, _, _) => ".rodata",
            (Form::Fatbin, Kind::Hip, _) => ".hip_fatbin",
            (Form::Fatbin, _, _) if self.macos() => "__NV_CUDA,__nv_fatbin",
            (Form::Fatbin, _, _) => ".nv_fatbin",
        };
        if self.large {
            match self.form {
                Form::ImageInfo => ".lrodata".to_string(),
                _ => format!(".lrodata{base}"),
            }
        } else {
            base.to_string()
        }
    }
}

/// Checks `images`, lays them out and writes the registration object to `out`.
///
/// Nothing is written when the images or options are wrong.
pub fn write_object(
    images: &[Image<'_>],
    opts: &WrapOptions,
    out: &mut dyn Write,
) -> Result<(), Error> {
    Wrapper::new(images, opts)?.write_object(out)
}

/// Checks `images`, lays them out and writes the equivalent LLVM IR text to `out`.
pub fn write_llvm_ir(
    images: &[Image<'_>],
    opts: &WrapOptions,
    out: &mut dyn Write,
) -> Result<(), Error> {
    Wrapper::new(images, opts)?.write_llvm_ir(out)
}
