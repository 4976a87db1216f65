//! Fuzz body: the ELF editor (`offkit_elf`) on any input. It must not panic; a file it reads
//! is written back unchanged by an in-place edit that changes nothing, and a file with a
//! section appended reads back with that section, its name and its contents.

use object::elf;
use offkit_elf::{Editor, Elf, Section};

/// Reads `data`, writes it back in place, appends a section, and reads the result.
pub fn run(data: &[u8]) {
    if data.len() > 1 << 20 {
        return;
    }
    let Ok(elf) = Elf::parse(data) else {
        return;
    };
    for i in 0..elf.sections().len() {
        let _ = elf.section_name(i);
        let _ = elf.section_data(i);
    }
    let _ = elf.segments();
    let h = *elf.header();
    // Without a table (`e_shoff` 0) the model counts no sections, whatever `e_shnum` says.
    if !h.extended && h.shnum > 0 {
        if let Ok(head) = elf.header_for_table(h.e_shoff, h.shnum, h.shstrndx) {
            assert_eq!(data.get(..head.len()), Some(&head[..]), "the ELF header");
        }
    }
    if let Ok(same) = Editor::new(&elf).write_in_place() {
        assert!(same == data, "an unchanged in-place edit changed the file");
    }
    let mut ed = Editor::new(&elf);
    let Ok(name) = ed.add_name(b".offkit.fuzz") else {
        return;
    };
    let at = ed.append(b"fuzz", 4);
    let index = ed.push(Section {
        sh_name: name,
        sh_type: elf::SHT_PROGBITS,
        sh_flags: elf::SHF_EXCLUDE,
        sh_offset: at,
        sh_size: 4,
        sh_addralign: 4,
        ..Section::default()
    });
    let Ok(out) = ed.write_appended() else {
        return;
    };
    let again = Elf::parse(&out).expect("the appended file reads back");
    assert_eq!(again.sections().len(), index + 1);
    assert_eq!(again.section_name(index).ok(), Some(&b".offkit.fuzz"[..]));
    assert_eq!(again.section_data(index).ok(), Some(&b"fuzz"[..]));
}

#[cfg(test)]
mod tests {
    #[test]
    fn seeds_and_mutations() {
        let seeds = crate::seeds("elf");
        assert!(seeds.len() >= 6);
        for (name, s) in crate::named_seeds("elf") {
            // Every clang-built seed takes the appended section; the ones fuzzing found
            // (`regress-*`) need only pass the body.
            if !name.starts_with("regress-") {
                let elf = offkit_elf::Elf::parse(&s).unwrap();
                let mut ed = offkit_elf::Editor::new(&elf);
                ed.add_name(b".x").unwrap();
                ed.write_appended().unwrap();
            }
            super::run(&s);
        }
        for input in crate::mutations(&seeds, 200) {
            super::run(&input);
        }
    }
}
