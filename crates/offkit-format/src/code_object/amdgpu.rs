//! The resources of an AMD GPU code object's kernels, from its metadata note: the
//! `NT_AMDGPU_METADATA` (32) note of owner `AMDGPU` (code object v3 and later), a msgpack map
//! whose `amdhsa.kernels` array has one map per kernel (LLVM's `AMDGPUUsage`, "Code Object V3
//! Metadata" and later; what `llvm-readelf --notes` prints as YAML). Only the keys below are
//! kept; the others (arguments, language, …) are passed over.
//!
//! ```text
//! .note ─notes─► NT_AMDGPU_METADATA desc ─msgpack::Cursor─► amdhsa.kernels ─► [KernelResources]
//! ```

use object::read::elf::{FileHeader, SectionHeader, SectionTable};
use object::{elf, Endianness, ReadRef};

use crate::error::{Error, Result};
use crate::msgpack::{Cursor, Token};
use offkit_read::limits;

/// `NT_AMDGPU_METADATA`.
pub const NT_AMDGPU_METADATA: u32 = 32;

/// What the metadata note says of one kernel. A field is `None` where the note has no such key
/// (older code objects lack `.agpr_count`, `.uses_dynamic_stack`, …).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernelResources {
    /// `.name`: the kernel's name.
    pub name: String,
    /// `.symbol`: its kernel descriptor's symbol (`NAME.kd`).
    pub symbol: String,
    /// `.vgpr_count`: vector registers.
    pub vgpr_count: Option<u64>,
    /// `.sgpr_count`: scalar registers.
    pub sgpr_count: Option<u64>,
    /// `.agpr_count`: accumulation registers (gfx90a and later with MFMA).
    pub agpr_count: Option<u64>,
    /// `.vgpr_spill_count`: vector registers spilled to scratch.
    pub vgpr_spill_count: Option<u64>,
    /// `.sgpr_spill_count`: scalar registers spilled.
    pub sgpr_spill_count: Option<u64>,
    /// `.group_segment_fixed_size`: LDS (shared memory) bytes, without dynamic LDS.
    pub group_segment_fixed_size: Option<u64>,
    /// `.private_segment_fixed_size`: scratch bytes per work-item, without a dynamic stack.
    pub private_segment_fixed_size: Option<u64>,
    /// `.uses_dynamic_stack`: whether the scratch need is not known statically.
    pub uses_dynamic_stack: Option<bool>,
    /// `.kernarg_segment_size`: kernel argument bytes (hidden arguments included).
    pub kernarg_segment_size: Option<u64>,
    /// `.kernarg_segment_align`.
    pub kernarg_segment_align: Option<u64>,
    /// `.wavefront_size`: 32 or 64.
    pub wavefront_size: Option<u64>,
    /// `.max_flat_workgroup_size`.
    pub max_flat_workgroup_size: Option<u64>,
}

/// The kernels of the `NT_AMDGPU_METADATA` notes of the code object whose section headers are
/// `sections` (`base` is the absolute offset of the code object, for errors); `None` when it
/// has no such note (code object v2 has YAML in a note of owner `AMD`, not read).
pub(crate) fn resources<'d, Elf: FileHeader<Endian = Endianness>, R: ReadRef<'d>>(
    sections: &SectionTable<'d, Elf, R>,
    endian: Endianness,
    data: R,
    base: u64,
) -> Result<Option<Vec<KernelResources>>> {
    let mut found = None;
    for s in sections.iter() {
        if s.sh_type(endian) != elf::SHT_NOTE {
            continue;
        }
        let at = base + s.sh_offset(endian).into();
        let object_error = |source| Error::Object {
            what: "AMDGPU note section",
            offset: at,
            source,
        };
        let contents = s.data(endian, data).map_err(object_error)?;
        let Some(mut notes) = s.notes(endian, data).map_err(object_error)? else {
            continue;
        };
        while let Some(note) = notes.next().map_err(object_error)? {
            if note.name() != b"AMDGPU" || note.n_type(endian).0 != NT_AMDGPU_METADATA {
                continue;
            }
            let desc = note.desc();
            // Where the note's data is in the section (both borrow the same bytes).
            let within = (desc.as_ptr() as usize).wrapping_sub(contents.as_ptr() as usize);
            let kernels = read(desc, at + within as u64)?;
            found.get_or_insert_with(Vec::new).extend(kernels);
        }
    }
    Ok(found)
}

/// The kernels of the msgpack metadata `desc`, whose first byte is at absolute offset `base`.
pub fn read(desc: &[u8], base: u64) -> Result<Vec<KernelResources>> {
    let mut c = Cursor::new(desc, base);
    let mut out = Vec::new();
    let n = c.map("the AMDGPU metadata")?;
    for _ in 0..n {
        let key = c.str("a metadata key")?;
        if key != b"amdhsa.kernels" {
            c.skip()?;
            continue;
        }
        let at = c.offset();
        let kernels = c.array("`amdhsa.kernels`")?;
        if kernels as usize > limits::MAX_KERNELS {
            return Err(Error::limit(
                limits::Limit::Kernels,
                "kernels of the AMDGPU metadata",
                at,
                u64::from(kernels),
            ));
        }
        for _ in 0..kernels {
            out.push(kernel(&mut c)?);
        }
    }
    Ok(out)
}

/// One kernel's map.
fn kernel(c: &mut Cursor<'_>) -> Result<KernelResources> {
    let mut k = KernelResources::default();
    let pairs = c.map("a kernel's metadata")?;
    for _ in 0..pairs {
        let key = c.str("a kernel metadata key")?;
        let at = c.offset();
        let value = c.token()?;
        let uint = |field: &mut Option<u64>| -> Result<()> {
            *field = Some(
                value
                    .as_u64()
                    .ok_or_else(|| wrong(at, key, value, "an unsigned integer"))?,
            );
            Ok(())
        };
        let text = |field: &mut String| -> Result<()> {
            let s = value
                .as_str()
                .ok_or_else(|| wrong(at, key, value, "a string"))?;
            *field = String::from_utf8_lossy(s).into_owned();
            Ok(())
        };
        match key {
            b".name" => text(&mut k.name)?,
            b".symbol" => text(&mut k.symbol)?,
            b".vgpr_count" => uint(&mut k.vgpr_count)?,
            b".sgpr_count" => uint(&mut k.sgpr_count)?,
            b".agpr_count" => uint(&mut k.agpr_count)?,
            b".vgpr_spill_count" => uint(&mut k.vgpr_spill_count)?,
            b".sgpr_spill_count" => uint(&mut k.sgpr_spill_count)?,
            b".group_segment_fixed_size" => uint(&mut k.group_segment_fixed_size)?,
            b".private_segment_fixed_size" => uint(&mut k.private_segment_fixed_size)?,
            b".kernarg_segment_size" => uint(&mut k.kernarg_segment_size)?,
            b".kernarg_segment_align" => uint(&mut k.kernarg_segment_align)?,
            b".wavefront_size" => uint(&mut k.wavefront_size)?,
            b".max_flat_workgroup_size" => uint(&mut k.max_flat_workgroup_size)?,
            b".uses_dynamic_stack" => {
                k.uses_dynamic_stack = Some(
                    value
                        .as_bool()
                        .ok_or_else(|| wrong(at, key, value, "a boolean"))?,
                )
            }
            _ => c.skip_elements(value)?,
        }
    }
    Ok(k)
}

fn wrong(offset: u64, key: &[u8], value: Token<'_>, want: &str) -> Error {
    Error::Invalid {
        what: "AMDGPU metadata",
        offset,
        reason: format!(
            "`{}` is {}, not {want}",
            String::from_utf8_lossy(key),
            value.kind()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// msgpack: a fixstr.
    fn s(out: &mut Vec<u8>, v: &str) {
        out.push(0xa0 | v.len() as u8);
        out.extend_from_slice(v.as_bytes());
    }

    #[test]
    fn kernels_of_a_note() {
        // {"amdhsa.version": [1, 2], "amdhsa.kernels": [{".name": "k", ".symbol": "k.kd",
        //  ".vgpr_count": 23, ".args": [{".size": 8}], ".uses_dynamic_stack": false,
        //  ".group_segment_fixed_size": 2048}]}
        let mut m = vec![0x82];
        s(&mut m, "amdhsa.version");
        m.extend([0x92, 1, 2]);
        s(&mut m, "amdhsa.kernels");
        m.extend([0x91, 0x86]);
        s(&mut m, ".name");
        s(&mut m, "k");
        s(&mut m, ".symbol");
        s(&mut m, "k.kd");
        s(&mut m, ".vgpr_count");
        m.push(23);
        s(&mut m, ".args");
        m.extend([0x91, 0x81]);
        s(&mut m, ".size");
        m.push(8);
        s(&mut m, ".uses_dynamic_stack");
        m.push(0xc2);
        s(&mut m, ".group_segment_fixed_size");
        m.extend([0xcd, 0x08, 0x00]);
        let k = read(&m, 0).unwrap();
        assert_eq!(k.len(), 1);
        assert_eq!((k[0].name.as_str(), k[0].symbol.as_str()), ("k", "k.kd"));
        assert_eq!(k[0].vgpr_count, Some(23));
        assert_eq!(k[0].group_segment_fixed_size, Some(2048));
        assert_eq!(k[0].uses_dynamic_stack, Some(false));
        assert_eq!(k[0].agpr_count, None);
        // A count of the wrong type names the key and the offset of its value.
        let mut bad = vec![0x81];
        s(&mut bad, "amdhsa.kernels");
        bad.extend([0x91, 0x81]);
        s(&mut bad, ".vgpr_count");
        s(&mut bad, "x");
        let e = read(&bad, 0x1000).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid AMDGPU metadata at offset 0x101e: `.vgpr_count` is a string, not an unsigned integer"
        );
    }
}
