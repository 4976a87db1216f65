//! Calling a host kernel without libffi: every argument of an outlined host-target function is
//! pointer-sized and of INTEGER class, so under the SysV x86-64 ABI a call with N arguments
//! puts the first six in rdi, rsi, rdx, rcx, r8, r9 and the rest on the stack, in order.
//! `offkit_rt_call` does exactly that for any N.

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
compile_error!("the offkit runtime's host plugin is for x86_64 Linux");

std::arch::global_asm!(
    ".text",
    ".p2align 4",
    ".globl offkit_rt_call",
    ".hidden offkit_rt_call",
    ".type offkit_rt_call,@function",
    // offkit_rt_call(fn: rdi, args: rsi (at least 6 slots), n: rdx)
    "offkit_rt_call:",
    ".cfi_startproc",
    "push rbp",
    ".cfi_def_cfa_offset 16",
    ".cfi_offset rbp, -16",
    "mov rbp, rsp",
    ".cfi_def_cfa_register rbp",
    "push rbx",
    "push r12",
    // rsp is 16-byte aligned here (entry rsp ≡ 8, three pushes).
    "mov rax, rdi",
    "mov r10, rsi",
    "mov rbx, rdx",
    // An odd number of stack arguments needs 8 bytes of padding to keep the alignment.
    "cmp rbx, 6",
    "jbe 3f",
    "test bl, 1",
    "jz 2f",
    "sub rsp, 8",
    "2:",
    "dec rbx",
    "push qword ptr [r10 + rbx*8]",
    "cmp rbx, 6",
    "ja 2b",
    "3:",
    "mov rdi, [r10]",
    "mov rsi, [r10 + 8]",
    "mov rdx, [r10 + 16]",
    "mov rcx, [r10 + 24]",
    "mov r8, [r10 + 32]",
    "mov r9, [r10 + 40]",
    "call rax",
    "lea rsp, [rbp - 16]",
    "pop r12",
    "pop rbx",
    "pop rbp",
    ".cfi_def_cfa rsp, 8",
    "ret",
    ".cfi_endproc",
    ".size offkit_rt_call, .-offkit_rt_call",
);

unsafe extern "C" {
    fn offkit_rt_call(f: usize, args: *const usize, n: usize);
}

/// Calls `f(args[0], args[1], …)` as `void f(void*, …)`.
///
/// # Safety
/// `f` must be a function taking exactly `args.len()` pointer-sized integer arguments (or
/// fewer: extra register arguments are ignored by the callee).
pub(crate) unsafe fn call(f: usize, args: &[usize]) {
    let mut regs = [0usize; 6];
    let buf: &[usize] = if args.len() >= 6 {
        args
    } else {
        regs.get_mut(..args.len())
            .unwrap_or_default()
            .copy_from_slice(args);
        &regs
    };
    // SAFETY: buf has at least six readable slots and args.len() valid ones; the caller
    // guarantees f's signature.
    unsafe { offkit_rt_call(f, buf.as_ptr(), args.len()) }
}

#[cfg(test)]
mod tests {
    use super::call;
    use std::cell::Cell;

    thread_local!(static SUM: Cell<usize> = const { Cell::new(0) });

    macro_rules! weighted {
        ($name:ident, $($a:ident),*) => {
            #[allow(unused_mut, unused_variables, unused_assignments)]
            extern "C" fn $name($($a: usize),*) {
                let mut s = 0usize;
                let mut w = 1usize;
                $( s = s.wrapping_add($a.wrapping_mul(w)); w += 1; )*
                // Check the stack alignment the ABI promises at the call.
                let probe = 0u128;
                assert_eq!(std::ptr::addr_of!(probe) as usize % 16, 0);
                SUM.with(|c| c.set(s));
            }
        };
    }
    weighted!(f0,);
    weighted!(f1, a);
    weighted!(f5, a, b, c, d, e);
    weighted!(f6, a, b, c, d, e, f);
    weighted!(f7, a, b, c, d, e, f, g);
    weighted!(f8, a, b, c, d, e, f, g, h);
    weighted!(f13, a, b, c, d, e, f, g, h, i, j, k, l, m);

    #[test]
    fn every_arity_gets_its_arguments_in_order() {
        let fns: [(usize, usize); 7] = [
            (f0 as *const () as usize, 0),
            (f1 as *const () as usize, 1),
            (f5 as *const () as usize, 5),
            (f6 as *const () as usize, 6),
            (f7 as *const () as usize, 7),
            (f8 as *const () as usize, 8),
            (f13 as *const () as usize, 13),
        ];
        for (f, n) in fns {
            let args: Vec<usize> = (0..n).map(|i| 1000 + i * 7).collect();
            let want: usize = args.iter().enumerate().map(|(i, a)| a * (i + 1)).sum();
            SUM.with(|c| c.set(usize::MAX));
            // SAFETY: f takes exactly n usize arguments.
            unsafe { call(f, &args) };
            assert_eq!(SUM.with(Cell::get), want, "arity {n}");
        }
    }
}
