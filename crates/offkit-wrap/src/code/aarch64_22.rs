//! LLVM 22's AArch64 entry walks (`.{cuda,hip}.globals_reg` over 56-byte `llvm_offload_entries`),
//! as its backend emits them (generic CPU, PIC, small code model); the prologue, epilogue,
//! constructor and destructor are LLVM 19's (`aarch64.rs`). The entry fields are listed in
//! `x86_64_22.rs`. HIP's switch is a compare tree here, not a jump table.

use super::aarch64::{adr, bl, globals_epilogue, globals_prologue};
use super::{Asm, Target};
use crate::release::Entries;

/// LLVM 22's entry walk for CUDA (`cuda`) or HIP; `.{cuda,hip}.globals_reg` has begun.
pub(super) fn globals(a: &mut Asm, cuda: bool, e: Entries) {
    let api = |c: &'static str, h: &'static str| if cuda { c } else { h };
    globals_prologue(a, e);
    a.w(if cuda { 0x5400_0560 } else { 0x5400_0840 }); // b.eq .Lexit
    a.w(0xaa00_03f3); // mov x19, x0           (the handle)
    adr(a, 21, Target::Ext(e.start)); // x21 = entry
    a.w(0x1400_000d); // b .Lentry
    a.w(0xaa1f_03e5); // .Lfunction: mov x5, xzr
    a.w(0xaa1f_03e6); // mov x6, xzr
    a.w(0xaa1f_03e7); // mov x7, xzr
    a.w(0xaa13_03e0); // mov x0, x19
    a.w(0xaa02_03e1); // mov x1, x2
    a.w(0xaa03_03e2); // mov x2, x3
    a.w(0x1280_0004); // mov w4, #-1
    a.w(0xa900_7fff); // stp xzr, xzr, [sp]
    bl(a, api("__cudaRegisterFunction", "__hipRegisterFunction"));
    a.w(0x9100_e2b5); // .Lnext: add x21, x21, #56
    a.w(0xeb14_02bf); // cmp x21, x20
    a.w(if cuda { 0x5400_0360 } else { 0x5400_0640 }); // b.eq .Lexit
    a.w(0x7940_16a8); // .Lentry: ldrh w8, [x21, #10]      (kind)
    a.w(if cuda { 0x7100_091f } else { 0x7100_111f }); // cmp w8, #2 (CUDA) / #4 (HIP)
    a.w(0x54ff_ff61); // b.ne .Lnext
    a.w(0xa941_a2a3); // ldp x3, x8, [x21, #24]          (name, size)
    a.w(0xf940_0aa2); // ldr x2, [x21, #16]              (addr)
    a.w(0xb4ff_fde8); // cbz x8, .Lfunction
    if cuda {
        cuda_variables(a);
    } else {
        hip_variables(a);
    }
    globals_epilogue(a);
}

/// CUDA: variables and managed variables (surfaces and textures are not registered).
fn cuda_variables(a: &mut Asm) {
    a.w(0xb940_0ea9); // ldr w9, [x21, #12]              (flags)
    a.w(0x1200_092a); // and w10, w9, #0x7               (type)
    a.w(0x7100_055f); // cmp w10, #1
    a.w(0x5400_0160); // b.eq .Lmanaged
    a.w(0x35ff_fe6a); // cbnz w10, .Lnext
    a.w(0x5303_0d24); // ubfx w4, w9, #3, #1             (extern)
    a.w(0x5304_1126); // ubfx w6, w9, #4, #1             (constant)
    a.w(0xaa13_03e0); // mov x0, x19
    a.w(0xaa02_03e1); // mov x1, x2
    a.w(0xaa03_03e2); // mov x2, x3
    a.w(0xaa08_03e5); // mov x5, x8
    a.w(0x2a1f_03e7); // mov w7, wzr
    bl(a, "__cudaRegisterVar");
    a.w(0x17ff_ffea); // b .Lnext
    a.w(0xf940_1aa1); // .Lmanaged: ldr x1, [x21, #48]  (aux_addr)
    a.w(0xb940_2aa5); // ldr w5, [x21, #40]              (data)
    a.w(0xaa13_03e0); // mov x0, x19
    a.w(0xaa08_03e4); // mov x4, x8
    bl(a, "__cudaRegisterManagedVar");
    a.w(0x17ff_ffe4); // b .Lnext
}

/// HIP: variables, managed variables, surfaces and textures, by a compare tree on the type.
fn hip_variables(a: &mut Asm) {
    a.w(0xb940_0eab); // ldr w11, [x21, #12]             (flags)
    a.w(0xb940_2aaa); // ldr w10, [x21, #40]             (data)
    a.w(0x1200_096c); // and w12, w11, #0x7              (type)
    a.w(0x5303_0d69); // ubfx w9, w11, #3, #1            (extern)
    a.w(0x7100_059f); // cmp w12, #1
    a.w(0x5400_014c); // b.gt .Lsurface_or_texture
    a.w(0x3400_02ac); // cbz w12, .Lvariable
    a.w(0x7100_059f); // cmp w12, #1
    a.w(0x54ff_fde1); // b.ne .Lnext
    a.w(0xf940_1aa1); // ldr x1, [x21, #48]              (aux_addr)
    a.w(0xaa13_03e0); // mov x0, x19
    a.w(0xaa08_03e4); // mov x4, x8
    a.w(0x2a0a_03e5); // mov w5, w10
    bl(a, "__hipRegisterManagedVar");
    a.w(0x17ff_ffe9); // b .Lnext
    a.w(0x7100_099f); // .Lsurface_or_texture: cmp w12, #2
    a.w(0x5400_0280); // b.eq .Lsurface
    a.w(0x7100_0d9f); // cmp w12, #3
    a.w(0x54ff_fca1); // b.ne .Lnext
    a.w(0x5305_1565); // ubfx w5, w11, #5, #1            (normalized)
    a.w(0xaa13_03e0); // mov x0, x19
    a.w(0xaa02_03e1); // mov x1, x2
    a.w(0xaa03_03e2); // mov x2, x3
    a.w(0x2a0a_03e4); // mov w4, w10
    a.w(0x2a09_03e6); // mov w6, w9
    bl(a, "__hipRegisterTexture");
    a.w(0x17ff_ffdd); // b .Lnext
    a.w(0x5304_1166); // .Lvariable: ubfx w6, w11, #4, #1  (constant)
    a.w(0xaa13_03e0); // mov x0, x19
    a.w(0xaa02_03e1); // mov x1, x2
    a.w(0xaa03_03e2); // mov x2, x3
    a.w(0x2a09_03e4); // mov w4, w9
    a.w(0xaa08_03e5); // mov x5, x8
    a.w(0x2a1f_03e7); // mov w7, wzr
    bl(a, "__hipRegisterVar");
    a.w(0x17ff_ffd4); // b .Lnext
    a.w(0xaa13_03e0); // .Lsurface: mov x0, x19
    a.w(0xaa02_03e1); // mov x1, x2
    a.w(0xaa03_03e2); // mov x2, x3
    a.w(0x2a0a_03e4); // mov w4, w10
    a.w(0x2a09_03e5); // mov w5, w9
    bl(a, "__hipRegisterSurface");
    a.w(0x17ff_ffcd); // b .Lnext
}
