//! Which `pdep`/`pext` the kernels and the index use on this CPU.
//!
//! BMI2's `pdep` and `pext` are one cycle on Intel since Haswell and on
//! AMD since Zen 3, but AMD's earlier cores (family 0x17, Zen 1 and 2,
//! and Hygon's Dhyana built on them) run them in microcode, about 18
//! cycles per set bit of the mask: a 13-point row map then costs more
//! than the portable loop. So the BMI2 path is taken only where the
//! instructions are fast. `FOXBASE_PDEP=portable` or `FOXBASE_PDEP=bmi2`
//! overrides the choice (for benchmarks of both paths on one machine);
//! `bmi2` is refused on a CPU without the instructions.

use std::sync::OnceLock;

/// The environment variable that overrides [`pdep_path`].
pub const PDEP_ENV: &str = "FOXBASE_PDEP";

/// How `pdep`/`pext` are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PdepPath {
    /// The BMI2 instructions.
    Bmi2,
    /// A loop over the mask's bits.
    Portable,
}

impl PdepPath {
    /// The name `FOXBASE_PDEP` takes and benchmarks report.
    pub fn name(self) -> &'static str {
        match self {
            PdepPath::Bmi2 => "bmi2",
            PdepPath::Portable => "portable",
        }
    }
}

/// What this CPU offers: whether it has BMI2 and whether it is fast.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bmi2Support {
    pub present: bool,
    pub fast: bool,
}

/// Reads BMI2 support off this CPU (`cpuid`).
pub fn bmi2_support() -> Bmi2Support {
    #[cfg(target_arch = "x86_64")]
    {
        let present = std::is_x86_feature_detected!("bmi2");
        Bmi2Support { present, fast: present && !microcoded_pdep() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        Bmi2Support { present: false, fast: false }
    }
}

/// AMD (and Hygon) cores of family 0x17 and below run `pdep`/`pext` in microcode.
#[cfg(target_arch = "x86_64")]
fn microcoded_pdep() -> bool {
    // Leaf 0: the vendor; leaf 1: the signature (every x86_64 CPU has both).
    let (vendor, signature) = (core::arch::x86_64::__cpuid(0), core::arch::x86_64::__cpuid(1));
    let mut name = [0u8; 12];
    name[..4].copy_from_slice(&vendor.ebx.to_le_bytes());
    name[4..8].copy_from_slice(&vendor.edx.to_le_bytes());
    name[8..].copy_from_slice(&vendor.ecx.to_le_bytes());
    let amd_like = &name == b"AuthenticAMD" || &name == b"HygonGenuine";
    amd_like && cpu_family(signature.eax) <= 0x17
}

/// The family of a `cpuid` leaf 1 signature (base family plus extended family).
pub fn cpu_family(eax: u32) -> u32 {
    let base = (eax >> 8) & 0xF;
    if base == 0xF {
        base + ((eax >> 20) & 0xFF)
    } else {
        base
    }
}

/// The path `setting` (the value of `FOXBASE_PDEP`, if set) chooses on a
/// CPU with `support`, or why the setting cannot be honoured.
pub fn choose_path(setting: Option<&str>, support: Bmi2Support) -> Result<PdepPath, String> {
    match setting {
        None | Some("") => Ok(if support.fast { PdepPath::Bmi2 } else { PdepPath::Portable }),
        Some("portable") => Ok(PdepPath::Portable),
        Some("bmi2") if support.present => Ok(PdepPath::Bmi2),
        Some("bmi2") => Err(format!("{PDEP_ENV}=bmi2: this CPU has no BMI2 instructions")),
        Some(other) => Err(format!("{PDEP_ENV}={other}: expected 'bmi2' or 'portable'")),
    }
}

/// The path this process uses, chosen once. A bad `FOXBASE_PDEP` is
/// reported on stderr once and the CPU's own choice is used.
pub fn pdep_path() -> PdepPath {
    static PATH: OnceLock<PdepPath> = OnceLock::new();
    *PATH.get_or_init(|| {
        let setting = std::env::var(PDEP_ENV).ok();
        let support = bmi2_support();
        choose_path(setting.as_deref(), support).unwrap_or_else(|message| {
            eprintln!("foxbase: ignoring {message}");
            choose_path(None, support).expect("the CPU's own choice always applies")
        })
    })
}

/// Whether the BMI2 path is in use in this process ([`pdep_path`]).
pub fn bmi2_in_use() -> bool {
    pdep_path() == PdepPath::Bmi2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_read_as_amd_documents_them() {
        // Zen 1 EPYC 7001 (family 0x17 model 1), Zen 3 (0x19), an Intel Skylake (6).
        assert_eq!(cpu_family(0x0080_0F12), 0x17);
        assert_eq!(cpu_family(0x00A0_0F11), 0x19);
        assert_eq!(cpu_family(0x0005_0654), 6);
    }

    #[test]
    fn the_setting_picks_the_path_and_bad_settings_say_why() {
        let slow = Bmi2Support { present: true, fast: false };
        let fast = Bmi2Support { present: true, fast: true };
        let none = Bmi2Support { present: false, fast: false };
        assert_eq!(choose_path(None, fast), Ok(PdepPath::Bmi2));
        assert_eq!(choose_path(None, slow), Ok(PdepPath::Portable));
        assert_eq!(choose_path(None, none), Ok(PdepPath::Portable));
        assert_eq!(choose_path(Some("bmi2"), slow), Ok(PdepPath::Bmi2));
        assert_eq!(choose_path(Some("portable"), fast), Ok(PdepPath::Portable));
        assert_eq!(choose_path(Some("bmi2"), none), Err("FOXBASE_PDEP=bmi2: this CPU has no BMI2 instructions".into()));
        assert_eq!(choose_path(Some("fast"), fast), Err("FOXBASE_PDEP=fast: expected 'bmi2' or 'portable'".into()));
    }
}
