//! Properties over arbitrary images: the library never panics; whatever it accepts is an ELF
//! object the `object` crate reads, whose offload binaries give back exactly the images, in the
//! order `Wrapper::order` reports, with their triples and arches.

use object::{Object, ObjectSection};
use offkit_format::scan::all_binaries;
use offkit_wrap::{Image, Kind, Large, Order, WrapOptions, Wrapper};
use proptest::prelude::*;

fn image_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        // ELF headers for x86-64 and AMD GPUs with some payload.
        (
            prop_oneof![Just(62u16), Just(224u16)],
            proptest::collection::vec(any::<u8>(), 0..300)
        )
            .prop_map(|(m, tail)| {
                let mut v = vec![0u8; 20];
                v[..4].copy_from_slice(b"\x7fELF");
                v[4] = 2;
                v[5] = 1;
                v[18..20].copy_from_slice(&m.to_le_bytes());
                v.extend(tail);
                v
            }),
        proptest::collection::vec(any::<u8>(), 0..64),
    ]
}

fn triple() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("x86_64-pc-linux-gnu"),
        Just("amdgcn-amd-amdhsa"),
        Just("nvptx64-nvidia-cuda"),
        Just("bogus"),
    ]
}

fn arch() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just(""),
        Just("gfx90a"),
        Just("gfx90a:xnack+"),
        Just("gfx1030"),
        Just("sm_70"),
        Just("gfx90a:xnack"),
        Just("znver3"),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn accepted_images_come_back(
        imgs in proptest::collection::vec((image_bytes(), triple(), arch(), any::<bool>()), 1..6),
        host in prop_oneof![Just("x86_64-pc-linux-gnu"), Just("aarch64-linux-gnu")],
        kind in prop_oneof![Just(Kind::OpenMp), Just(Kind::Hip), Just(Kind::Cuda)],
        flags in (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
    ) {
        let (image_info, relocatable, given, large) = flags;
        let images: Vec<Image> = imgs
            .iter()
            .map(|(d, t, a, has)| {
                let i = Image::new(d, t, a);
                if *has { i } else { i.without_arch() }
            })
            .collect();
        let opts = WrapOptions {
            image_info,
            relocatable,
            order: if given { Order::AsGiven } else { Order::Llvm19 },
            large: if large { Large::Always } else { Large::Never },
            ..WrapOptions::new(host, kind)
        };
        let Ok(w) = Wrapper::new(&images, &opts) else { return Ok(()) };
        let mut out = Vec::new();
        w.write_object(&mut out).unwrap();
        prop_assert_eq!(out.len() as u64, w.object_size().unwrap());
        let mut ir = Vec::new();
        w.write_llvm_ir(&mut ir).unwrap();
        let file = object::File::parse(&*out).unwrap();
        prop_assert!(file.sections().all(|s| s.data().is_ok()));
        if kind == Kind::OpenMp && !image_info {
            let bins = all_binaries(&out, 0).unwrap();
            let order = w.order();
            prop_assert_eq!(bins.len(), order.len());
            for (b, &i) in bins.iter().zip(&order) {
                let e = &b.entries[0];
                prop_assert_eq!(e.image.as_ref(), images[i].data);
                prop_assert_eq!(e.triple(), images[i].triple);
                prop_assert_eq!(e.arch(), images[i].arch);
            }
        }
    }
}
