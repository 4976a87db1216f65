//! AArch64 registration functions, as LLVM 19 emits them (generic CPU, PIC, small code model).
//!
//! One 32-bit word per instruction, assembly in the comment. `adrp`/`add` pairs and calls are
//! relocated (`R_AARCH64_ADR_PREL_PG_HI21`, `_ADD_ABS_LO12_NC`, `_CALL26`); in-section branches
//! carry their final offsets.

use super::{Anchor, Asm, Routines, Target};
use crate::eh_frame::Cfi::{CfaOffset, Offset};
use crate::host::{
    R_AARCH64_ADD_ABS_LO12_NC, R_AARCH64_ADR_GOT_PAGE, R_AARCH64_ADR_PREL_PG_HI21,
    R_AARCH64_CALL26, R_AARCH64_LD64_GOT_LO12_NC, R_AARCH64_LDST64_ABS_LO12_NC,
};
use crate::release::{Entries, Walk};

const X19: u8 = 19;
const X20: u8 = 20;
const X21: u8 = 21;
const X30: u8 = 30;

const DESC: Target = Target::Local(Anchor::Descriptor);
const WRAPPER: Target = Target::Local(Anchor::FatbinWrapper);
const HANDLE: Target = Target::Local(Anchor::Handle);

/// `adrp xN, target; add xN, xN, :lo12:target` into register `rd`.
pub(super) fn adr(a: &mut Asm, rd: u32, target: Target) {
    a.wr(0x9000_0000 | rd, R_AARCH64_ADR_PREL_PG_HI21, target, 0);
    a.wr(
        0x9100_0000 | rd << 5 | rd,
        R_AARCH64_ADD_ABS_LO12_NC,
        target,
        0,
    );
}

/// `bl <sym>`.
pub(super) fn bl(a: &mut Asm, sym: &'static str) {
    a.wr(0x9400_0000, R_AARCH64_CALL26, Target::Ext(sym), 0);
}

/// `str x30, [sp, #-16]!` and its frame description.
fn push_lr(a: &mut Asm) {
    a.w(0xf81f_0ffe);
    a.cfi(CfaOffset(16));
    a.cfi(Offset(X30, -16));
}

/// `ldr x30, [sp], #16; ret`.
fn pop_lr_ret(a: &mut Asm) {
    a.w(0xf841_07fe);
    a.w(0xd65f_03c0);
}

pub(super) fn emit(a: &mut Asm, routines: Routines) {
    match routines {
        Routines::OpenMp => openmp(a),
        Routines::ImageInfo { images } => image_info(a, images),
        Routines::Cuda(e) => fatbin(a, true, e),
        Routines::Hip(e) => fatbin(a, false, e),
    }
}

fn omp_unreg(a: &mut Asm) {
    a.begin(".omp_offloading.descriptor_unreg");
    push_lr(a);
    adr(a, 0, DESC); // x0 = &.omp_offloading.descriptor
    bl(a, "__tgt_unregister_lib");
    pop_lr_ret(a);
}

fn openmp(a: &mut Asm) {
    a.begin(".omp_offloading.descriptor_reg");
    push_lr(a);
    adr(a, 0, DESC); // x0 = &.omp_offloading.descriptor
    bl(a, "__tgt_register_lib");
    adr(a, 0, Target::Local(Anchor::Text(0x24))); // x0 = .omp_offloading.descriptor_unreg
    bl(a, "atexit");
    pop_lr_ret(a);
    omp_unreg(a);
}

fn image_info(a: &mut Asm, images: usize) {
    a.begin(".omp_offloading.descriptor_reg");
    push_lr(a);
    let weak = Target::Ext("__tgt_register_image_info");
    a.wr(0x9000_0008, R_AARCH64_ADR_GOT_PAGE, weak, 0); // adrp x8, :got:__tgt_register_image_info
    a.wr(0xf940_0108, R_AARCH64_LD64_GOT_LO12_NC, weak, 0); // ldr x8, [x8, :got_lo12:...]
                                                            // cbz x8, .Llib: skips `images` × (adrp, add, bl).
    let skip = 1 + 3 * images as u32;
    a.w(0xb400_0000 | (skip & 0x7ffff) << 5 | 8);
    for n in 0..images {
        adr(a, 0, Target::Local(Anchor::ImageInfo(n))); // x0 = &.offload_image_info_N
        bl(a, "__tgt_register_image_info");
    }
    adr(a, 0, DESC); // .Llib: x0 = &.omp_offloading.descriptor
    bl(a, "__tgt_register_lib");
    pop_lr_ret(a);
    omp_unreg(a);
}

/// The CUDA (`cuda = true`) or HIP constructor, destructor and entry-table walk.
fn fatbin(a: &mut Asm, cuda: bool, e: Entries) {
    let (reg, unreg, globals) = if cuda {
        (
            ".cuda.fatbin_reg",
            ".cuda.fatbin_unreg",
            ".cuda.globals_reg",
        )
    } else {
        (".hip.fatbin_reg", ".hip.fatbin_unreg", ".hip.globals_reg")
    };
    let api = |c: &'static str, h: &'static str| if cuda { c } else { h };

    a.begin(reg);
    if cuda {
        a.w(0xa9bf_4ffe); // stp x30, x19, [sp, #-16]!
        a.cfi(CfaOffset(16));
        a.cfi(Offset(X19, -8));
        a.cfi(Offset(X30, -16));
    } else {
        push_lr(a);
    }
    adr(a, 0, WRAPPER); // x0 = &.fatbin_wrapper
    bl(a, api("__cudaRegisterFatBinary", "__hipRegisterFatBinary"));
    a.wr(0x9000_0008, R_AARCH64_ADR_PREL_PG_HI21, HANDLE, 0); // adrp x8, handle
    if cuda {
        a.w(0xaa00_03f3); // mov x19, x0
    }
    a.wr(0xf900_0100, R_AARCH64_LDST64_ABS_LO12_NC, HANDLE, 0); // str x0, [x8, :lo12:handle]
    if cuda {
        a.w(0x9400_000e); // bl .cuda.globals_reg
        a.w(0xaa13_03e0); // mov x0, x19
        bl(a, "__cudaRegisterFatBinaryEnd");
        adr(a, 0, Target::Local(Anchor::Text(0x3c))); // x0 = .cuda.fatbin_unreg
        bl(a, "atexit");
        a.w(0xa8c1_4ffe); // ldp x30, x19, [sp], #16
        a.w(0xd65f_03c0); // ret
    } else {
        a.w(0x9400_000c); // bl .hip.globals_reg
        adr(a, 0, Target::Local(Anchor::Text(0x30))); // x0 = .hip.fatbin_unreg
        bl(a, "atexit");
        pop_lr_ret(a);
    }

    a.begin(unreg);
    push_lr(a);
    a.wr(0x9000_0008, R_AARCH64_ADR_PREL_PG_HI21, HANDLE, 0); // adrp x8, handle
    a.wr(0xf940_0100, R_AARCH64_LDST64_ABS_LO12_NC, HANDLE, 0); // ldr x0, [x8, :lo12:handle]
    bl(
        a,
        api("__cudaUnregisterFatBinary", "__hipUnregisterFatBinary"),
    );
    pop_lr_ret(a);

    a.begin(globals);
    match e.walk {
        Walk::Llvm19 => globals19(a, cuda, e),
        Walk::Llvm22 => super::aarch64_22::globals(a, cuda, e),
    }
}

/// The prologue of `.{cuda,hip}.globals_reg`: saves x19-x21 and x30, loads the table bounds
/// (`x20` = stop, `x8` = start) and compares them.
pub(super) fn globals_prologue(a: &mut Asm, e: Entries) {
    a.w(0xd100_c3ff); // sub sp, sp, #48
    a.w(0xa901_57fe); // stp x30, x21, [sp, #16]
    a.w(0xa902_4ff4); // stp x20, x19, [sp, #32]
    a.cfi(CfaOffset(48));
    a.cfi(Offset(X19, -8));
    a.cfi(Offset(X20, -16));
    a.cfi(Offset(X21, -24));
    a.cfi(Offset(X30, -32));
    adr(a, 20, Target::Ext(e.stop)); // x20 = __stop_<entries>
    adr(a, 8, Target::Ext(e.start)); // x8 = __start_<entries>
    a.w(0xeb14_011f); // cmp x8, x20
}

/// The epilogue of `.{cuda,hip}.globals_reg`.
pub(super) fn globals_epilogue(a: &mut Asm) {
    a.w(0xa942_4ff4); // .Lexit: ldp x20, x19, [sp, #32]
    a.w(0xa941_57fe); // ldp x30, x21, [sp, #16]
    a.w(0x9100_c3ff); // add sp, sp, #48
    a.w(0xd65f_03c0); // ret
}

/// LLVM 19's entry walk.
fn globals19(a: &mut Asm, cuda: bool, e: Entries) {
    let api = |c: &'static str, h: &'static str| if cuda { c } else { h };
    globals_prologue(a, e);
    a.w(if cuda { 0x5400_0380 } else { 0x5400_0580 }); // b.eq .Lexit
    a.w(0xaa00_03f3); // mov x19, x0           (the handle)
    adr(a, 21, Target::Ext(e.start)); // x21 = entry
    a.w(0x1400_000b); // b .Lentry
    a.w(0xaa1f_03e6); // .Lfunction: mov x6, xzr
    a.w(0xaa1f_03e7); // mov x7, xzr
    a.w(0xaa13_03e0); // mov x0, x19
    a.w(0xaa02_03e3); // mov x3, x2
    a.w(0x1280_0004); // mov w4, #-1
    a.w(0xa900_7fff); // stp xzr, xzr, [sp]
    bl(a, api("__cudaRegisterFunction", "__hipRegisterFunction"));
    a.w(0x9100_82b5); // .Lnext: add x21, x21, #32
    a.w(0xeb14_02bf); // cmp x21, x20
    a.w(if cuda { 0x5400_01c0 } else { 0x5400_03c0 }); // b.eq .Lexit
    a.w(0xa940_96a2); // .Lentry: ldp x2, x5, [x21, #8]   (name, size)
    a.w(0xf940_02a1); // ldr x1, [x21]                     (addr)
    a.w(0xb4ff_fe85); // cbz x5, .Lfunction
    if cuda {
        a.w(0xb940_1aa8); // ldr w8, [x21, #24]            (flags)
        a.w(0x1200_0909); // and w9, w8, #0x7
        a.w(0x35ff_ff09); // cbnz w9, .Lnext               (managed, surface, texture: nothing)
        a.w(0x5303_0d04); // ubfx w4, w8, #3, #1           (extern)
        a.w(0x5304_1106); // ubfx w6, w8, #4, #1           (constant)
        a.w(0xaa13_03e0); // mov x0, x19
        a.w(0xaa02_03e3); // mov x3, x2
        a.w(0x2a1f_03e7); // mov w7, wzr
        bl(a, "__cudaRegisterVar");
        a.w(0x17ff_fff1); // b .Lnext
    } else {
        a.w(0x2943_12a9); // ldp w9, w4, [x21, #24]        (flags, texture type)
        a.w(0x1200_092a); // and w10, w9, #0x7             (kind)
        a.w(0x5303_0d28); // ubfx w8, w9, #3, #1           (extern)
        a.w(0x7100_0d5f); // cmp w10, #3
        a.w(0x5400_0200); // b.eq .Ltexture
        a.w(0x7100_095f); // cmp w10, #2
        a.w(0x5400_0120); // b.eq .Lsurface
        a.w(0x35ff_fe6a); // cbnz w10, .Lnext
        a.w(0x5304_1126); // ubfx w6, w9, #4, #1           (constant)
        a.w(0xaa13_03e0); // mov x0, x19
        a.w(0xaa02_03e3); // mov x3, x2
        a.w(0x2a08_03e4); // mov w4, w8
        a.w(0x2a1f_03e7); // mov w7, wzr
        bl(a, "__hipRegisterVar");
        a.w(0x17ff_ffec); // b .Lnext
        a.w(0xaa13_03e0); // .Lsurface: mov x0, x19
        a.w(0xaa02_03e3); // mov x3, x2
        a.w(0x2a08_03e5); // mov w5, w8
        bl(a, "__hipRegisterSurface");
        a.w(0x17ff_ffe7); // b .Lnext
        a.w(0x5305_1525); // .Ltexture: ubfx w5, w9, #5, #1   (normalized)
        a.w(0xaa13_03e0); // mov x0, x19
        a.w(0xaa02_03e3); // mov x3, x2
        a.w(0x2a08_03e6); // mov w6, w8
        bl(a, "__hipRegisterTexture");
        a.w(0x17ff_ffe1); // b .Lnext
    }
    globals_epilogue(a);
}
