//! x86-64 registration functions, as LLVM 19 emits them (generic CPU, PIC).
//!
//! Each line is one instruction (AT&T syntax in the comment). Relocated fields are zero and
//! listed with their type, target and addend; in-section branches and calls carry their final
//! displacement, since the layout of each routine set is fixed.

use super::{Anchor, Asm, Routines, Target};
use crate::eh_frame::Cfi::{CfaOffset, Offset};
use crate::host::{R_X86_64_GOTPCREL, R_X86_64_PC32, R_X86_64_PLT32};
use crate::release::{Entries, Walk};

pub(super) const RBX: u8 = 3;
pub(super) const R14: u8 = 14;
pub(super) const R15: u8 = 15;

const DESC: Target = Target::Local(Anchor::Descriptor);
const WRAPPER: Target = Target::Local(Anchor::FatbinWrapper);
const HANDLE: Target = Target::Local(Anchor::Handle);

/// `leaq <target>(%rip), %rdi`.
fn lea_rdi(a: &mut Asm, target: Target) {
    a.r(
        &[0x48, 0x8d, 0x3d, 0, 0, 0, 0],
        3,
        R_X86_64_PC32,
        target,
        -4,
    );
}

/// `callq <sym>@PLT`.
pub(super) fn call(a: &mut Asm, sym: &'static str) {
    a.r(&[0xe8, 0, 0, 0, 0], 1, R_X86_64_PLT32, Target::Ext(sym), -4);
}

pub(super) fn emit(a: &mut Asm, routines: Routines) {
    match routines {
        Routines::OpenMp => openmp(a),
        Routines::ImageInfo { images } => image_info(a, images),
        Routines::Cuda(e) => cuda(a, e),
        Routines::Hip(e) => hip(a, e),
    }
}

/// `.omp_offloading.descriptor_unreg`, shared by both OpenMP forms.
fn omp_unreg(a: &mut Asm) {
    a.begin(".omp_offloading.descriptor_unreg");
    a.b(&[0x50]); // pushq %rax
    a.cfi(CfaOffset(16));
    lea_rdi(a, DESC); // leaq .omp_offloading.descriptor(%rip), %rdi
    call(a, "__tgt_unregister_lib");
    a.b(&[0x58]); // popq %rax
    a.cfi(CfaOffset(8));
    a.b(&[0xc3]); // retq
}

fn openmp(a: &mut Asm) {
    a.begin(".omp_offloading.descriptor_reg");
    a.b(&[0x50]); // pushq %rax
    a.cfi(CfaOffset(16));
    lea_rdi(a, DESC); // leaq .omp_offloading.descriptor(%rip), %rdi
    call(a, "__tgt_register_lib");
    a.b(&[0x48, 0x8d, 0x3d, 0x0c, 0, 0, 0]); // leaq .omp_offloading.descriptor_unreg(%rip), %rdi
    call(a, "atexit");
    a.b(&[0x58]); // popq %rax
    a.cfi(CfaOffset(8));
    a.b(&[0xc3]); // retq
    a.end();
    omp_unreg(a);
}

/// The image-info constructor: `if (&__tgt_register_image_info) { register each info }`, then
/// `__tgt_register_lib`; the destructor is the OpenMP one (run from `.fini_array`).
fn image_info(a: &mut Asm, images: usize) {
    a.begin(".omp_offloading.descriptor_reg");
    a.b(&[0x50]); // pushq %rax
    a.cfi(CfaOffset(16));
    // cmpq $0, __tgt_register_image_info@GOTPCREL(%rip): the weak symbol's GOT slot.
    a.r(
        &[0x48, 0x83, 0x3d, 0, 0, 0, 0, 0x00],
        3,
        R_X86_64_GOTPCREL,
        Target::Ext("__tgt_register_image_info"),
        -5,
    );
    // je .Llib over `images` × (lea 7 + call 5); LLVM relaxes to the rel32 form past 127.
    let skip = 12 * images as u64;
    match i8::try_from(skip) {
        Ok(d) => a.b(&[0x74, d as u8]),
        Err(_) => {
            let d = (skip as u32).to_le_bytes();
            a.b(&[0x0f, 0x84, d[0], d[1], d[2], d[3]]);
        }
    }
    for n in 0..images {
        lea_rdi(a, Target::Local(Anchor::ImageInfo(n))); // leaq .offload_image_info_N(%rip), %rdi
        call(a, "__tgt_register_image_info");
    }
    lea_rdi(a, DESC); // .Llib: leaq .omp_offloading.descriptor(%rip), %rdi
    call(a, "__tgt_register_lib");
    a.b(&[0x58]); // popq %rax
    a.cfi(CfaOffset(8));
    a.b(&[0xc3]); // retq
    a.end();
    omp_unreg(a);
}

/// The CUDA/HIP destructor: `__{cuda,hip}UnregisterFatBinary(handle)`.
fn fatbin_unreg(a: &mut Asm, name: &'static str, unregister: &'static str) {
    a.begin(name);
    a.b(&[0x50]); // pushq %rax
    a.cfi(CfaOffset(16));
    a.r(
        &[0x48, 0x8b, 0x3d, 0, 0, 0, 0],
        3,
        R_X86_64_PC32,
        HANDLE,
        -4,
    ); // movq handle(%rip), %rdi
    call(a, unregister);
    a.b(&[0x58]); // popq %rax
    a.cfi(CfaOffset(8));
    a.b(&[0xc3]); // retq
    a.end();
}

/// The prologue of `.{cuda,hip}.globals_reg` up to the loop: saves registers, loads the entry
/// table bounds and returns early when it is empty. `exit_branch` is the `je` to the epilogue.
fn globals_prologue(a: &mut Asm, name: &'static str, e: Entries, exit_branch: &[u8]) {
    a.begin(name);
    a.b(&[0x41, 0x57]); // pushq %r15
    a.cfi(CfaOffset(16));
    a.b(&[0x41, 0x56]); // pushq %r14
    a.cfi(CfaOffset(24));
    a.b(&[0x53]); // pushq %rbx
    a.cfi(CfaOffset(32));
    a.cfi(Offset(RBX, -32));
    a.cfi(Offset(R14, -24));
    a.cfi(Offset(R15, -16));
    table_bounds(a, e);
    a.b(exit_branch); // je .Lexit
}

/// `%r14 = __stop_<entries>; %r15 = __start_<entries>; cmpq %r14, %r15`.
pub(super) fn table_bounds(a: &mut Asm, e: Entries) {
    a.r(
        &[0x4c, 0x8d, 0x35, 0, 0, 0, 0],
        3,
        R_X86_64_PC32,
        Target::Ext(e.stop),
        -4,
    ); // leaq __stop(%rip), %r14
    a.r(
        &[0x4c, 0x8d, 0x3d, 0, 0, 0, 0],
        3,
        R_X86_64_PC32,
        Target::Ext(e.start),
        -4,
    ); // leaq __start(%rip), %r15
    a.b(&[0x4d, 0x39, 0xf7]); // cmpq %r14, %r15
}

/// The kernel branch: `__{cuda,hip}RegisterFunction(h, addr, name, name, -1, 0, 0, 0, 0, 0)`
/// with the CFA `cfa` bytes above the stack pointer before it.
fn register_function(a: &mut Asm, register: &'static str, cfa: u32) {
    a.b(&[0x48, 0x89, 0xdf]); // movq %rbx, %rdi
    a.b(&[0x48, 0x89, 0xca]); // movq %rcx, %rdx
    a.b(&[0x41, 0xb8, 0xff, 0xff, 0xff, 0xff]); // movl $-1, %r8d
    a.b(&[0x45, 0x31, 0xc9]); // xorl %r9d, %r9d
    for n in 1..=4 {
        a.b(&[0x6a, 0x00]); // pushq $0
        a.cfi(CfaOffset(cfa + 8 * n));
    }
    call(a, register);
    a.b(&[0x48, 0x83, 0xc4, 0x20]); // addq $32, %rsp
    a.cfi(CfaOffset(cfa));
}

/// The epilogue of `.{cuda,hip}.globals_reg`.
pub(super) fn globals_epilogue(a: &mut Asm) {
    a.b(&[0x5b]); // popq %rbx
    a.cfi(CfaOffset(24));
    a.b(&[0x41, 0x5e]); // popq %r14
    a.cfi(CfaOffset(16));
    a.b(&[0x41, 0x5f]); // popq %r15
    a.cfi(CfaOffset(8));
    a.b(&[0xc3]); // retq
}

fn cuda(a: &mut Asm, e: Entries) {
    a.begin(".cuda.fatbin_reg");
    a.b(&[0x53]); // pushq %rbx
    a.cfi(CfaOffset(16));
    a.cfi(Offset(RBX, -16));
    lea_rdi(a, WRAPPER); // leaq .fatbin_wrapper(%rip), %rdi
    call(a, "__cudaRegisterFatBinary");
    a.b(&[0x48, 0x89, 0xc3]); // movq %rax, %rbx
    a.r(
        &[0x48, 0x89, 0x05, 0, 0, 0, 0],
        3,
        R_X86_64_PC32,
        HANDLE,
        -4,
    ); // movq %rax, handle(%rip)
    a.b(&[0x48, 0x89, 0xc7]); // movq %rax, %rdi
    a.b(&[0xe8, 0x31, 0, 0, 0]); // callq .cuda.globals_reg
    a.b(&[0x48, 0x89, 0xdf]); // movq %rbx, %rdi
    call(a, "__cudaRegisterFatBinaryEnd");
    a.b(&[0x48, 0x8d, 0x3d, 0x12, 0, 0, 0]); // leaq .cuda.fatbin_unreg(%rip), %rdi
    call(a, "atexit");
    a.b(&[0x5b]); // popq %rbx
    a.cfi(CfaOffset(8));
    a.b(&[0xc3]); // retq
    a.end();
    fatbin_unreg(a, ".cuda.fatbin_unreg", "__cudaUnregisterFatBinary");
    match e.walk {
        Walk::Llvm19 => cuda_globals19(a, e),
        Walk::Llvm22 => super::x86_64_22::cuda_globals(a, e),
    }
}

/// LLVM 19's `.cuda.globals_reg`.
fn cuda_globals19(a: &mut Asm, e: Entries) {
    globals_prologue(a, ".cuda.globals_reg", e, &[0x74, 0x71]); // je .Lexit (0xd9)
    a.b(&[0x48, 0x89, 0xfb]); // movq %rdi, %rbx
    a.b(&[0xeb, 0x2c]); // jmp .Lentry (0x99)
    a.align(16);
    register_function(a, "__cudaRegisterFunction", 32); // 0x70: .Lfunction
    a.b(&[0x49, 0x83, 0xc7, 0x20]); // 0x90 .Lnext: addq $32, %r15
    a.b(&[0x4d, 0x39, 0xf7]); // cmpq %r14, %r15
    a.b(&[0x74, 0x40]); // je .Lexit (0xd9)
    a.b(&[0x49, 0x8b, 0x37]); // 0x99 .Lentry: movq (%r15), %rsi
    a.b(&[0x49, 0x8b, 0x4f, 0x08]); // movq 8(%r15), %rcx
    a.b(&[0x4d, 0x8b, 0x4f, 0x10]); // movq 16(%r15), %r9
    a.b(&[0x4d, 0x85, 0xc9]); // testq %r9, %r9
    a.b(&[0x74, 0xc7]); // je .Lfunction (0x70)
    a.b(&[0x41, 0x8b, 0x47, 0x18]); // movl 24(%r15), %eax
    a.b(&[0x89, 0xc2]); // movl %eax, %edx
    a.b(&[0x83, 0xe2, 0x07]); // andl $7, %edx
    a.b(&[0x75, 0xdc]); // jne .Lnext (managed, surface, texture: nothing in LLVM 19)
    a.b(&[0x41, 0x89, 0xc0]); // movl %eax, %r8d
    a.b(&[0x41, 0x83, 0xe0, 0x08]); // andl $8, %r8d
    a.b(&[0x41, 0xc1, 0xe8, 0x03]); // shrl $3, %r8d   (extern)
    a.b(&[0x83, 0xe0, 0x10]); // andl $16, %eax
    a.b(&[0xc1, 0xe8, 0x04]); // shrl $4, %eax     (constant)
    a.b(&[0x48, 0x89, 0xdf]); // movq %rbx, %rdi
    a.b(&[0x48, 0x89, 0xca]); // movq %rcx, %rdx
    a.b(&[0x6a, 0x00]); // pushq $0
    a.cfi(CfaOffset(40));
    a.b(&[0x50]); // pushq %rax
    a.cfi(CfaOffset(48));
    call(a, "__cudaRegisterVar");
    a.b(&[0x48, 0x83, 0xc4, 0x10]); // addq $16, %rsp
    a.cfi(CfaOffset(32));
    a.b(&[0xeb, 0xb7]); // jmp .Lnext (0x90)
    globals_epilogue(a); // 0xd9 .Lexit
}

fn hip(a: &mut Asm, e: Entries) {
    a.begin(".hip.fatbin_reg");
    a.b(&[0x50]); // pushq %rax
    a.cfi(CfaOffset(16));
    lea_rdi(a, WRAPPER); // leaq .fatbin_wrapper(%rip), %rdi
    call(a, "__hipRegisterFatBinary");
    a.r(
        &[0x48, 0x89, 0x05, 0, 0, 0, 0],
        3,
        R_X86_64_PC32,
        HANDLE,
        -4,
    ); // movq %rax, handle(%rip)
    a.b(&[0x48, 0x89, 0xc7]); // movq %rax, %rdi
    a.b(&[0xe8, 0x24, 0, 0, 0]); // callq .hip.globals_reg
    a.b(&[0x48, 0x8d, 0x3d, 0x0d, 0, 0, 0]); // leaq .hip.fatbin_unreg(%rip), %rdi
    call(a, "atexit");
    a.b(&[0x58]); // popq %rax
    a.cfi(CfaOffset(8));
    a.b(&[0xc3]); // retq
    a.end();
    fatbin_unreg(a, ".hip.fatbin_unreg", "__hipUnregisterFatBinary");
    match e.walk {
        Walk::Llvm19 => hip_globals19(a, e),
        Walk::Llvm22 => super::x86_64_22::hip_globals(a, e),
    }
}

/// LLVM 19's `.hip.globals_reg`.
fn hip_globals19(a: &mut Asm, e: Entries) {
    globals_prologue(a, ".hip.globals_reg", e, &[0x0f, 0x84, 0xc6, 0, 0, 0]); // je .Lexit (0x122)
    a.b(&[0x48, 0x89, 0xfb]); // movq %rdi, %rbx
    a.b(&[0xeb, 0x3c]); // jmp .Lentry (0x9d)
    a.align(16);
    register_function(a, "__hipRegisterFunction", 32); // 0x70: .Lfunction
    a.b(&[0x49, 0x83, 0xc7, 0x20]); // 0x90 .Lnext: addq $32, %r15
    a.b(&[0x4d, 0x39, 0xf7]); // cmpq %r14, %r15
    a.b(&[0x0f, 0x84, 0x85, 0, 0, 0]); // je .Lexit (0x122)
    a.b(&[0x49, 0x8b, 0x37]); // 0x9d .Lentry: movq (%r15), %rsi
    a.b(&[0x49, 0x8b, 0x4f, 0x08]); // movq 8(%r15), %rcx
    a.b(&[0x4d, 0x8b, 0x4f, 0x10]); // movq 16(%r15), %r9
    a.b(&[0x4d, 0x85, 0xc9]); // testq %r9, %r9
    a.b(&[0x74, 0xc3]); // je .Lfunction (0x70)
    a.b(&[0x45, 0x8b, 0x57, 0x18]); // movl 24(%r15), %r10d   (flags)
    a.b(&[0x45, 0x8b, 0x47, 0x1c]); // movl 28(%r15), %r8d    (texture type)
    a.b(&[0x44, 0x89, 0xd2]); // movl %r10d, %edx
    a.b(&[0x83, 0xe2, 0x07]); // andl $7, %edx           (kind)
    a.b(&[0x44, 0x89, 0xd0]); // movl %r10d, %eax
    a.b(&[0x83, 0xe0, 0x08]); // andl $8, %eax
    a.b(&[0xc1, 0xe8, 0x03]); // shrl $3, %eax           (extern)
    a.b(&[0x83, 0xfa, 0x03]); // cmpl $3, %edx
    a.b(&[0x74, 0x35]); // je .Ltexture (0xfe)
    a.b(&[0x83, 0xfa, 0x02]); // cmpl $2, %edx
    a.b(&[0x74, 0x20]); // je .Lsurface (0xee)
    a.b(&[0x85, 0xd2]); // testl %edx, %edx
    a.b(&[0x75, 0xbe]); // jne .Lnext (0x90)
    a.b(&[0x41, 0x83, 0xe2, 0x10]); // andl $16, %r10d
    a.b(&[0x41, 0xc1, 0xea, 0x04]); // shrl $4, %r10d        (constant)
    a.b(&[0x48, 0x89, 0xdf]); // movq %rbx, %rdi
    a.b(&[0x48, 0x89, 0xca]); // movq %rcx, %rdx
    a.b(&[0x41, 0x89, 0xc0]); // movl %eax, %r8d
    a.b(&[0x6a, 0x00]); // pushq $0
    a.cfi(CfaOffset(40));
    a.b(&[0x41, 0x52]); // pushq %r10
    a.cfi(CfaOffset(48));
    call(a, "__hipRegisterVar");
    a.b(&[0xeb, 0x2b]); // jmp .Lpop (0x119)
    a.cfi(CfaOffset(32));
    a.b(&[0x48, 0x89, 0xdf]); // 0xee .Lsurface: movq %rbx, %rdi
    a.b(&[0x48, 0x89, 0xca]); // movq %rcx, %rdx
    a.b(&[0x41, 0x89, 0xc1]); // movl %eax, %r9d
    call(a, "__hipRegisterSurface");
    a.b(&[0xeb, 0x92]); // jmp .Lnext (0x90)
    a.b(&[0x41, 0x83, 0xe2, 0x20]); // 0xfe .Ltexture: andl $32, %r10d
    a.b(&[0x41, 0xc1, 0xea, 0x05]); // shrl $5, %r10d     (normalized)
    a.b(&[0x48, 0x83, 0xec, 0x08]); // subq $8, %rsp
    a.cfi(CfaOffset(40));
    a.b(&[0x48, 0x89, 0xdf]); // movq %rbx, %rdi
    a.b(&[0x48, 0x89, 0xca]); // movq %rcx, %rdx
    a.b(&[0x45, 0x89, 0xd1]); // movl %r10d, %r9d
    a.b(&[0x50]); // pushq %rax
    a.cfi(CfaOffset(48));
    call(a, "__hipRegisterTexture");
    a.b(&[0x48, 0x83, 0xc4, 0x10]); // 0x119 .Lpop: addq $16, %rsp
    a.cfi(CfaOffset(32));
    a.b(&[0xe9, 0x6e, 0xff, 0xff, 0xff]); // jmp .Lnext (0x90)
    globals_epilogue(a); // 0x122 .Lexit
}
