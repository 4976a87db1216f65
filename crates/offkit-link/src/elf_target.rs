//! The target of a linked ELF image, as LLVM 19's `--override-image` reads it
//! (`ELFObjectFileBase::makeTriple` and `tryGetCPUName`): `x86_64--` for an x86-64 image,
//! `amdgcn-amd-amdhsa` with the processor from `e_flags` for AMDGPU.

/// `(triple, arch)` of the image, or why it cannot be told.
pub fn target(elf: &[u8]) -> Result<(String, Option<String>), String> {
    if !elf.starts_with(b"\x7fELF") {
        return Err("the file is not an ELF image".into());
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
    let machine = u16_at(18).ok_or("truncated ELF header")?;
    let flags_at = if is64 { 0x30 } else { 0x24 };
    let flags = elf
        .get(flags_at..flags_at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or("truncated ELF header")?;
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
                m => return Err(format!("unknown AMDGPU processor (EF_AMDGPU_MACH {m:#x})")),
            };
            ("amdgcn-amd-amdhsa".into(), Some(cpu.into()))
        }
        m => return Err(format!("unknown ELF machine {m}")),
    })
}
