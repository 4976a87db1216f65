//! The target of a linked ELF image, as LLVM 19's `--override-image` reads it
//! (`ELFObjectFileBase::makeTriple` and `tryGetCPUName`): `x86_64--` for an x86-64 image,
//! `amdgcn-amd-amdhsa` with the processor from `e_flags` for AMDGPU.

use crate::error::{Error, Result};

/// `(triple, arch)` of the image given by `option` (`--override-image=…`, named in the error), or
/// why it cannot be told.
pub fn target(elf: &[u8], option: &str) -> Result<(String, Option<String>)> {
    let unsupported = |why: String| Error::Unsupported {
        option: option.to_string(),
        why,
    };
    if !elf.starts_with(b"\x7fELF") {
        return Err(unsupported("the file is not an ELF image".into()));
    }
    let le = elf.get(5) != Some(&2);
    let is64 = elf.get(4) == Some(&2);
    let u16_at = |o: usize| {
        elf.get(o..o + 2).map(|b| {
            if le {
                u16::from_le_bytes([b[0], b[1]])
            } else {
                u16::from_be_bytes([b[0], b[1]])
            }
        })
    };
    let truncated = || unsupported("truncated ELF header".into());
    let machine = u16_at(18).ok_or_else(truncated)?;
    let flags_at = if is64 { 0x30 } else { 0x24 };
    let flags = elf
        .get(flags_at..flags_at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(truncated)?;
    Ok(match machine {
        62 => ("x86_64--".into(), None),
        3 => ("i386--".into(), None),
        183 => ("aarch64--".into(), None),
        21 => (
            if le { "powerpc64le--" } else { "powerpc64--" }.into(),
            None,
        ),
        224 => {
            // EF_AMDGPU_MACH: the processors offkit knows the number of.
            let cpu = match flags & 0xff {
                0x2c => "gfx900",
                0x2f => "gfx906",
                0x30 => "gfx908",
                0x36 => "gfx1030",
                0x3f => "gfx90a",
                0x40 => "gfx940",
                0x41 => "gfx1100",
                0x4c => "gfx942",
                m => {
                    return Err(unsupported(format!(
                        "unknown AMDGPU processor (EF_AMDGPU_MACH {m:#x})"
                    )))
                }
            };
            ("amdgcn-amd-amdhsa".into(), Some(cpu.into()))
        }
        m => return Err(unsupported(format!("unknown ELF machine {m}"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_and_errors() {
        let mut elf = vec![0u8; 64];
        elf[..4].copy_from_slice(b"\x7fELF");
        elf[4] = 2;
        elf[5] = 1;
        elf[18] = 62;
        assert_eq!(target(&elf, "-o").unwrap(), ("x86_64--".into(), None));
        elf[18] = 224;
        elf[0x30] = 0x3f;
        assert_eq!(
            target(&elf, "-o").unwrap(),
            ("amdgcn-amd-amdhsa".into(), Some("gfx90a".into()))
        );
        let e = target(b"MZ", "--override-image=openmp=x").unwrap_err();
        assert_eq!(
            e.to_string(),
            "--override-image=openmp=x is not supported by offkit's clang-linker-wrapper: the \
             file is not an ELF image"
        );
        let e = target(&elf[..20], "o").unwrap_err();
        assert!(e.to_string().ends_with("truncated ELF header"), "{e}");
    }
}
