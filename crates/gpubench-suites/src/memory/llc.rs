//! The last-level cache a GPU's working-set sweep is sized from, by vendor: wgpu reports no cache
//! sizes, so the sweep assumes the largest last-level cache of the vendor's current devices and
//! runs to four times it, where only device memory can serve the reads.
//!
//! | vendor | assumed | why |
//! |---|---|---|
//! | NVIDIA (0x10de) | 128 MiB | covers B200's 126 MB L2 (H100 and H200 50 MiB, RTX 4090 72 MiB) |
//! | AMD Instinct MI300 series | 256 MiB | MI300X's infinity cache |
//! | AMD, other (RDNA) | 128 MiB | RX 6900 XT's infinity cache (RX 7900 XTX 96 MiB) |
//! | anyone else | the adapter class's assumption | 256 MiB discrete, 96 MiB integrated ([`AdapterClass::assumed_llc_bytes`]) |

use gpubench_harness::kit::sizing::AdapterClass;
use gpubench_results::units::MIB;

pub use gpubench_harness::kit::facts::{VENDOR_AMD as AMD, VENDOR_NVIDIA as NVIDIA};

/// The last-level cache assumed for a GPU of `vendor` called `name`, and where the figure comes
/// from; `None` when the vendor is not in the table (the class's assumption applies).
pub fn vendor_llc(vendor: u32, name: &str) -> Option<(u64, &'static str)> {
    let upper = name.to_uppercase();
    match vendor {
        NVIDIA => Some((128 * MIB, "assumed for NVIDIA (B200's 126 MB L2)")),
        AMD if upper.contains("MI300") || upper.contains("MI325") => {
            Some((256 * MIB, "assumed for AMD MI300 (its infinity cache)"))
        }
        AMD => Some((
            128 * MIB,
            "assumed for AMD RDNA (RX 6900 XT's infinity cache)",
        )),
        _ => None,
    }
}

/// The last-level cache of a GPU adapter of `class` (`None` on a software adapter, whose host's
/// caches are read instead), from the vendor table or the class's assumption.
pub fn gpu_llc(class: AdapterClass, vendor: u32, name: &str) -> Option<(u64, String)> {
    let assumed = class.assumed_llc_bytes()?;
    Some(match vendor_llc(vendor, name) {
        Some((bytes, source)) => (bytes, source.to_string()),
        None => (
            assumed,
            format!(
                "assumed for a {} adapter (vendor not in the table)",
                class.name()
            ),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vendors_get_their_table_figure_and_others_the_class_fallback() {
        let h200 = gpu_llc(AdapterClass::Discrete, NVIDIA, "NVIDIA H200").expect("a GPU");
        assert_eq!(h200.0, 128 * MIB);
        let mi300 = gpu_llc(AdapterClass::Discrete, AMD, "AMD Instinct MI300X").expect("a GPU");
        assert_eq!(mi300.0, 256 * MIB);
        let rdna = gpu_llc(AdapterClass::Discrete, AMD, "AMD Radeon RX 7900 XTX").expect("GPU");
        assert_eq!(rdna.0, 128 * MIB);
        let intel = gpu_llc(AdapterClass::Discrete, 0x8086, "Intel Arc A770").expect("a GPU");
        assert_eq!(intel.0, 256 * MIB);
        assert!(intel.1.contains("not in the table"), "{}", intel.1);
        let apple = gpu_llc(AdapterClass::Integrated, 0, "Apple M3 Max").expect("a GPU");
        assert_eq!(apple.0, 96 * MIB);
        assert_eq!(gpu_llc(AdapterClass::Software, NVIDIA, "llvmpipe"), None);
    }
}
