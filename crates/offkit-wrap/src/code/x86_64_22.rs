//! LLVM 22's x86-64 entry walks (`.{cuda,hip}.globals_reg` over 56-byte `llvm_offload_entries`),
//! as its backend emits them (generic CPU, PIC). The constructor and destructor are LLVM 19's
//! (`x86_64.rs`).
//!
//! An entry is `{ u64 reserved; u16 version; u16 kind; u32 flags; ptr addr; ptr name; u64 size;
//! u64 data; ptr aux_addr }`: `kind` at 0xa, `flags` at 0xc, `addr` 0x10, `name` 0x18, `size`
//! 0x20, `data` 0x28, `aux_addr` 0x30. Entries of another kind are skipped; a zero size is a
//! kernel; otherwise `flags & 7` picks variable, managed variable, surface or texture (CUDA:
//! surfaces and textures are not registered). HIP's switch is a jump table in `.rodata`.

use super::x86_64::{call, globals_epilogue, table_bounds, R14, R15, RBX};
use super::{Anchor, Asm, Target};
use crate::eh_frame::Cfi::{CfaOffset, Offset};
use crate::host::R_X86_64_PC32;
use crate::release::Entries;

const R12: u8 = 12;

/// The kernel branch: `Register*Function(h, addr, name, name, -1, 0, 0, 0, 0, 0)`, the CFA
/// `cfa` bytes above the stack pointer before it.
fn register_function(a: &mut Asm, register: &'static str, cfa: u32) {
    a.b(&[0x48, 0x89, 0xdf]); // movq %rbx, %rdi
    a.b(&[0x48, 0x89, 0xd6]); // movq %rdx, %rsi
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

/// `addr` to %rdx, `name` to %rcx and `size` to `size_reg` (`0x47`: %rax, `0x4f`: %r9), then
/// `je .Lfunction` (displacement `to_function`) when the size is zero.
fn load_entry(a: &mut Asm, size_rex: u8, size_modrm: u8, test: &[u8], to_function: u8) {
    a.b(&[0x49, 0x8b, 0x57, 0x10]); // movq 0x10(%r15), %rdx   (addr)
    a.b(&[0x49, 0x8b, 0x4f, 0x18]); // movq 0x18(%r15), %rcx   (name)
    a.b(&[size_rex, 0x8b, size_modrm, 0x20]); // movq 0x20(%r15), size
    a.b(test); // testq size, size
    a.b(&[0x74, to_function]); // je .Lfunction
}

/// LLVM 22's `.cuda.globals_reg`.
pub(super) fn cuda_globals(a: &mut Asm, e: Entries) {
    a.begin(".cuda.globals_reg");
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
    a.b(&[0x0f, 0x84, 0xac, 0, 0, 0]); // je .Lexit (0x118)
    a.b(&[0x48, 0x89, 0xfb]); // movq %rdi, %rbx
    a.b(&[0xeb, 0x38]); // jmp .Lentry (0xa9)
    register_function(a, "__cudaRegisterFunction", 32); // 0x71 .Lfunction
    a.align(16);
    a.b(&[0x49, 0x83, 0xc7, 0x38]); // 0xa0 .Lnext: addq $56, %r15
    a.b(&[0x4d, 0x39, 0xf7]); // cmpq %r14, %r15
    a.b(&[0x74, 0x6f]); // je .Lexit (0x118)
    a.b(&[0x66, 0x41, 0x83, 0x7f, 0x0a, 0x02]); // 0xa9 .Lentry: cmpw $2, 0xa(%r15)  (CUDA)
    a.b(&[0x75, 0xef]); // jne .Lnext
    load_entry(a, 0x49, 0x47, &[0x48, 0x85, 0xc0], 0xaf); // size in %rax; je .Lfunction (0x71)
    a.b(&[0x45, 0x8b, 0x57, 0x0c]); // movl 0xc(%r15), %r10d   (flags)
    a.b(&[0x44, 0x89, 0xd6]); // movl %r10d, %esi
    a.b(&[0x83, 0xe6, 0x07]); // andl $7, %esi             (type)
    a.b(&[0x83, 0xfe, 0x01]); // cmpl $1, %esi
    a.b(&[0x74, 0x32]); // je .Lmanaged (0x103)
    a.b(&[0x85, 0xf6]); // testl %esi, %esi
    a.b(&[0x75, 0xcb]); // jne .Lnext (surface, texture: not registered for CUDA)
    a.b(&[0x45, 0x89, 0xd0]); // movl %r10d, %r8d
    a.b(&[0x41, 0x83, 0xe0, 0x08]); // andl $8, %r8d
    a.b(&[0x41, 0xc1, 0xe8, 0x03]); // shrl $3, %r8d    (extern)
    a.b(&[0x41, 0x83, 0xe2, 0x10]); // andl $16, %r10d
    a.b(&[0x41, 0xc1, 0xea, 0x04]); // shrl $4, %r10d   (constant)
    a.b(&[0x48, 0x89, 0xdf]); // movq %rbx, %rdi
    a.b(&[0x48, 0x89, 0xd6]); // movq %rdx, %rsi
    a.b(&[0x48, 0x89, 0xca]); // movq %rcx, %rdx
    a.b(&[0x49, 0x89, 0xc1]); // movq %rax, %r9
    a.b(&[0x6a, 0x00]); // pushq $0
    a.cfi(CfaOffset(40));
    a.b(&[0x41, 0x52]); // pushq %r10
    a.cfi(CfaOffset(48));
    call(a, "__cudaRegisterVar");
    a.b(&[0x48, 0x83, 0xc4, 0x10]); // addq $16, %rsp
    a.cfi(CfaOffset(32));
    a.b(&[0xeb, 0x9d]); // jmp .Lnext
    a.b(&[0x49, 0x8b, 0x77, 0x30]); // 0x103 .Lmanaged: movq 0x30(%r15), %rsi  (aux_addr)
    a.b(&[0x45, 0x8b, 0x4f, 0x28]); // movl 0x28(%r15), %r9d   (data)
    a.b(&[0x48, 0x89, 0xdf]); // movq %rbx, %rdi
    a.b(&[0x49, 0x89, 0xc0]); // movq %rax, %r8
    call(a, "__cudaRegisterManagedVar");
    a.b(&[0xeb, 0x88]); // jmp .Lnext
    globals_epilogue(a); // 0x118 .Lexit
}

/// LLVM 22's `.hip.globals_reg`.
pub(super) fn hip_globals(a: &mut Asm, e: Entries) {
    a.begin(".hip.globals_reg");
    for (push, cfa) in [
        (&[0x41, 0x57][..], 16), // pushq %r15
        (&[0x41, 0x56], 24),     // pushq %r14
        (&[0x41, 0x54], 32),     // pushq %r12
        (&[0x53], 40),           // pushq %rbx
        (&[0x50], 48),           // pushq %rax
    ] {
        a.b(push);
        a.cfi(CfaOffset(cfa));
    }
    a.cfi(Offset(RBX, -40));
    a.cfi(Offset(R12, -32));
    a.cfi(Offset(R14, -24));
    a.cfi(Offset(R15, -16));
    table_bounds(a, e);
    a.b(&[0x0f, 0x84, 0xf1, 0, 0, 0]); // je .Lexit (0x150)
    a.b(&[0x48, 0x89, 0xfb]); // movq %rdi, %rbx
    a.r(
        &[0x4c, 0x8d, 0x25, 0, 0, 0, 0],
        3,
        R_X86_64_PC32,
        Target::Local(Anchor::JumpTable),
        -4,
    ); // leaq .LJTI(%rip), %r12
    a.b(&[0xeb, 0x32]); // jmp .Lentry (0x9d)
    register_function(a, "__hipRegisterFunction", 48); // 0x6b .Lfunction
    a.align(16);
    a.b(&[0x49, 0x83, 0xc7, 0x38]); // 0x90 .Lnext: addq $56, %r15
    a.b(&[0x4d, 0x39, 0xf7]); // cmpq %r14, %r15
    a.b(&[0x0f, 0x84, 0xb3, 0, 0, 0]); // je .Lexit (0x150)
    a.b(&[0x66, 0x41, 0x83, 0x7f, 0x0a, 0x04]); // 0x9d .Lentry: cmpw $4, 0xa(%r15)  (HIP)
    a.b(&[0x75, 0xeb]); // jne .Lnext
    load_entry(a, 0x4d, 0x4f, &[0x4d, 0x85, 0xc9], 0xb5); // size in %r9; je .Lfunction (0x6b)
    a.b(&[0x41, 0x8b, 0x47, 0x0c]); // movl 0xc(%r15), %eax   (flags)
    a.b(&[0x89, 0xc6]); // movl %eax, %esi
    a.b(&[0x83, 0xe6, 0x07]); // andl $7, %esi            (type)
    a.b(&[0x83, 0xfe, 0x03]); // cmpl $3, %esi
    a.b(&[0x77, 0xcc]); // ja .Lnext
    a.b(&[0x45, 0x8b, 0x5f, 0x28]); // movl 0x28(%r15), %r11d  (data)
    a.b(&[0x41, 0x89, 0xc2]); // movl %eax, %r10d
    a.b(&[0x41, 0x83, 0xe2, 0x08]); // andl $8, %r10d
    a.b(&[0x41, 0xc1, 0xea, 0x03]); // shrl $3, %r10d    (extern)
    a.b(&[0x89, 0xf6]); // movl %esi, %esi
    a.b(&[0x49, 0x63, 0x34, 0xb4]); // movslq (%r12,%rsi,4), %rsi
    a.b(&[0x4c, 0x01, 0xe6]); // addq %r12, %rsi
    a.b(&[0xff, 0xe6]); // jmpq *%rsi
    let global = a.pos();
    a.b(&[0x83, 0xe0, 0x10]); // 0xde .Lglobal: andl $16, %eax
    a.b(&[0xc1, 0xe8, 0x04]); // shrl $4, %eax      (constant)
    a.b(&[0x48, 0x89, 0xdf]); // movq %rbx, %rdi
    a.b(&[0x48, 0x89, 0xd6]); // movq %rdx, %rsi
    a.b(&[0x48, 0x89, 0xca]); // movq %rcx, %rdx
    a.b(&[0x45, 0x89, 0xd0]); // movl %r10d, %r8d
    a.b(&[0x6a, 0x00]); // pushq $0
    a.cfi(CfaOffset(56));
    a.b(&[0x50]); // pushq %rax
    a.cfi(CfaOffset(64));
    call(a, "__hipRegisterVar");
    a.b(&[0xeb, 0x36]); // jmp .Lpop (0x130)
    a.cfi(CfaOffset(48));
    let surface = a.pos();
    a.b(&[0x48, 0x89, 0xdf]); // 0xfa .Lsurface: movq %rbx, %rdi
    a.b(&[0x48, 0x89, 0xd6]); // movq %rdx, %rsi
    a.b(&[0x48, 0x89, 0xca]); // movq %rcx, %rdx
    a.b(&[0x45, 0x89, 0xd8]); // movl %r11d, %r8d
    a.b(&[0x45, 0x89, 0xd1]); // movl %r10d, %r9d
    call(a, "__hipRegisterSurface");
    a.b(&[0xeb, 0x80]); // jmp .Lnext
    let texture = a.pos();
    a.b(&[0x83, 0xe0, 0x20]); // 0x110 .Ltexture: andl $32, %eax
    a.b(&[0xc1, 0xe8, 0x05]); // shrl $5, %eax     (normalized)
    a.b(&[0x48, 0x83, 0xec, 0x08]); // subq $8, %rsp
    a.cfi(CfaOffset(56));
    a.b(&[0x48, 0x89, 0xdf]); // movq %rbx, %rdi
    a.b(&[0x48, 0x89, 0xd6]); // movq %rdx, %rsi
    a.b(&[0x48, 0x89, 0xca]); // movq %rcx, %rdx
    a.b(&[0x45, 0x89, 0xd8]); // movl %r11d, %r8d
    a.b(&[0x41, 0x89, 0xc1]); // movl %eax, %r9d
    a.b(&[0x41, 0x52]); // pushq %r10
    a.cfi(CfaOffset(64));
    call(a, "__hipRegisterTexture");
    a.b(&[0x48, 0x83, 0xc4, 0x10]); // 0x130 .Lpop: addq $16, %rsp
    a.cfi(CfaOffset(48));
    a.b(&[0xe9, 0x57, 0xff, 0xff, 0xff]); // jmp .Lnext
    let managed = a.pos();
    a.b(&[0x49, 0x8b, 0x77, 0x30]); // 0x139 .Lmanaged: movq 0x30(%r15), %rsi  (aux_addr)
    a.b(&[0x48, 0x89, 0xdf]); // movq %rbx, %rdi
    a.b(&[0x4d, 0x89, 0xc8]); // movq %r9, %r8
    a.b(&[0x45, 0x89, 0xd9]); // movl %r11d, %r9d
    call(a, "__hipRegisterManagedVar");
    a.b(&[0xe9, 0x40, 0xff, 0xff, 0xff]); // jmp .Lnext
    a.b(&[0x48, 0x83, 0xc4, 0x08]); // 0x150 .Lexit: addq $8, %rsp
    a.cfi(CfaOffset(40));
    a.b(&[0x5b]); // popq %rbx
    a.cfi(CfaOffset(32));
    a.b(&[0x41, 0x5c]); // popq %r12
    a.cfi(CfaOffset(24));
    a.b(&[0x41, 0x5e]); // popq %r14
    a.cfi(CfaOffset(16));
    a.b(&[0x41, 0x5f]); // popq %r15
    a.cfi(CfaOffset(8));
    a.b(&[0xc3]); // retq
                  // The switch on the type: variable, managed variable, surface, texture.
    a.jump_table = vec![global, managed, surface, texture];
}
