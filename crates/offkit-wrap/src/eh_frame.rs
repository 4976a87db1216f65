//! `.eh_frame` for the registration functions, encoded as LLVM's MC layer does: one CIE
//! (augmentation `zR`, PC-relative 4-byte FDE pointers) and one FDE per function, each padded
//! with `DW_CFA_nop` to 4 bytes, the last one to 8.

use crate::host::Host;

/// One call-frame instruction at a code offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cfi {
    /// `DW_CFA_def_cfa_offset`: the CFA is now the stack pointer plus this.
    CfaOffset(u32),
    /// `DW_CFA_offset`: DWARF register `reg` is saved at CFA + `offset` (negative).
    Offset(u8, i32),
}

/// The frame description of one function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fde {
    /// The function's offset in `.text.startup`.
    pub start: u64,
    /// Its length (the symbol size, without alignment padding).
    pub len: u64,
    /// The instructions, at offsets from `start`, in order.
    pub ops: Vec<(u64, Cfi)>,
}

/// The encoded section and the places of its relocations: `(offset, addend)` pairs of 4-byte
/// PC-relative references to `.text.startup + addend`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EhFrame {
    /// The section's bytes (relocated fields zero).
    pub bytes: Vec<u8>,
    /// The FDE start-address fields.
    pub relocs: Vec<(u64, i64)>,
}

const DW_CFA_ADVANCE_LOC: u8 = 0x40;
const DW_CFA_ADVANCE_LOC1: u8 = 0x02;
const DW_CFA_ADVANCE_LOC2: u8 = 0x03;
const DW_CFA_ADVANCE_LOC4: u8 = 0x04;
const DW_CFA_OFFSET: u8 = 0x80;
const DW_CFA_DEF_CFA: u8 = 0x0c;
const DW_CFA_DEF_CFA_OFFSET: u8 = 0x0e;
const DW_EH_PE_PCREL_SDATA4: u8 = 0x1b;

fn uleb(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn sleb(out: &mut Vec<u8>, mut v: i64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        let done = (v == 0 && b & 0x40 == 0) || (v == -1 && b & 0x40 != 0);
        if done {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// The CIE parameters of a host: data alignment factor, return-address column, and the
/// initial instructions.
fn cie_params(host: Host) -> (i64, u8, &'static [u8]) {
    match host {
        // CFA = rsp + 8; rip saved at CFA - 8.
        Host::X86_64 => (-8, 16, &[DW_CFA_DEF_CFA, 7, 8, DW_CFA_OFFSET | 16, 1]),
        // CFA = sp.
        Host::Aarch64 => (-4, 30, &[DW_CFA_DEF_CFA, 31, 0]),
    }
}

/// Pads the record that starts at `start` with `DW_CFA_nop` so that it ends on a multiple of
/// `align` (from the start of the section), and fills in its length field.
fn finish_record(out: &mut Vec<u8>, start: usize, align: usize) {
    let end = out.len().next_multiple_of(align);
    out.resize(end, 0);
    let len = (end - start - 4) as u32;
    out[start..start + 4].copy_from_slice(&len.to_le_bytes());
}

/// Encodes `.eh_frame` for `fdes` (in `.text.startup` order).
pub fn encode(host: Host, fdes: &[Fde]) -> EhFrame {
    let (data_align, ra, initial) = cie_params(host);
    let mut out = Vec::new();
    out.extend_from_slice(&[0; 4]); // length
    out.extend_from_slice(&[0; 4]); // CIE id
    out.push(1); // version
    out.extend_from_slice(b"zR\0");
    uleb(&mut out, 1); // code alignment factor
    sleb(&mut out, data_align);
    uleb(&mut out, ra.into());
    uleb(&mut out, 1); // augmentation data length
    out.push(DW_EH_PE_PCREL_SDATA4);
    out.extend_from_slice(initial);
    finish_record(&mut out, 0, 4);

    let mut relocs = Vec::new();
    for (n, fde) in fdes.iter().enumerate() {
        let start = out.len();
        out.extend_from_slice(&[0; 4]); // length
        out.extend_from_slice(&((start + 4) as u32).to_le_bytes()); // CIE pointer
        relocs.push((out.len() as u64, fde.start as i64));
        out.extend_from_slice(&[0; 4]); // PC begin (relocated)
        out.extend_from_slice(&(fde.len as u32).to_le_bytes());
        uleb(&mut out, 0); // augmentation data length
        let mut pc = 0u64;
        for &(at, op) in &fde.ops {
            let delta = at - pc;
            pc = at;
            if delta > 0 {
                if delta < 0x40 {
                    out.push(DW_CFA_ADVANCE_LOC | delta as u8);
                } else if delta <= 0xff {
                    out.extend_from_slice(&[DW_CFA_ADVANCE_LOC1, delta as u8]);
                } else if delta <= 0xffff {
                    out.push(DW_CFA_ADVANCE_LOC2);
                    out.extend_from_slice(&(delta as u16).to_le_bytes());
                } else {
                    out.push(DW_CFA_ADVANCE_LOC4);
                    out.extend_from_slice(&(delta as u32).to_le_bytes());
                }
            }
            match op {
                Cfi::CfaOffset(o) => {
                    out.push(DW_CFA_DEF_CFA_OFFSET);
                    uleb(&mut out, o.into());
                }
                Cfi::Offset(reg, off) => {
                    out.push(DW_CFA_OFFSET | reg);
                    uleb(&mut out, (i64::from(off) / data_align) as u64);
                }
            }
        }
        let last = n + 1 == fdes.len();
        finish_record(&mut out, start, if last { 8 } else { 4 });
    }
    EhFrame { bytes: out, relocs }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `.eh_frame` of LLVM 19's x86-64 OpenMP wrapper object
    /// (`linking-evidence/wrapper-openmp-x86_64.readelf.txt`).
    #[test]
    fn x86_64_openmp_matches_llvm() {
        let f = encode(
            Host::X86_64,
            &[
                Fde {
                    start: 0,
                    len: 0x1b,
                    ops: vec![(1, Cfi::CfaOffset(16)), (0x1a, Cfi::CfaOffset(8))],
                },
                Fde {
                    start: 0x20,
                    len: 0xf,
                    ops: vec![(1, Cfi::CfaOffset(16)), (0xe, Cfi::CfaOffset(8))],
                },
            ],
        );
        let expect: Vec<u8> = [
            "14000000 00000000 017a5200 01781001 1b0c0708 90010000",
            "14000000 1c000000 00000000 1b000000 00410e10 590e0800",
            "14000000 34000000 00000000 0f000000 00410e10 4d0e0800",
        ]
        .concat()
        .split_whitespace()
        .flat_map(|w| {
            (0..w.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&w[i..i + 2], 16).unwrap())
                .collect::<Vec<_>>()
        })
        .collect();
        assert_eq!(f.bytes, expect);
        assert_eq!(f.relocs, [(0x20, 0), (0x38, 0x20)]);
    }

    #[test]
    fn leb128() {
        let mut v = Vec::new();
        sleb(&mut v, -8);
        sleb(&mut v, -4);
        uleb(&mut v, 300);
        assert_eq!(v, [0x78, 0x7c, 0xac, 0x02]);
    }
}
