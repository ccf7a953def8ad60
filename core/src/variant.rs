//! A variant: geometry, start position (which fixes the fox count and the
//! first mover) and pen target K. Every table records the variant it was
//! built for, in the stable text and JSON forms below.
//!
//! ```
//! use foxbase_core::Variant;
//! let v = Variant::default();
//! assert_eq!(v.to_string(), "geometry=classic;pen_target=9;start=F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS f");
//! assert_eq!(v.to_string().parse::<Variant>().unwrap(), v);
//! assert_eq!(Variant::from_json(&v.to_json()).unwrap(), v);
//! ```

use crate::board::Geometry;
use crate::notation::{format_position, parse_position};
use crate::position::{Position, Side};
use crate::rules::Rules;
use std::fmt;
use std::str::FromStr;

/// The default start: foxes on c7 and e7, twenty sheep on ranks 1..4, fox first.
pub const DEFAULT_START: &str = "F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS f";

/// A rule variant (RULES.md, variant switches).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Variant {
    pub geometry: Geometry,
    /// K: sheep in the pen to win; fewer than K sheep left loses. 1..=9.
    pub pen_target: u32,
    /// The start position; its side to move is the first mover.
    pub start: Position,
}

impl Default for Variant {
    fn default() -> Variant {
        Variant { geometry: Geometry::Classic, pen_target: 9, start: parse_position(DEFAULT_START).unwrap() }
    }
}

impl Variant {
    /// A checked variant; the error names the bad field.
    pub fn new(geometry: Geometry, pen_target: u32, start: Position) -> Result<Variant, String> {
        if !(1..=9).contains(&pen_target) {
            return Err(format!("pen_target {pen_target} is out of range (1..=9)"));
        }
        if start.fox_count() == 0 {
            return Err("start: the start position has no fox (1 or 2 are allowed)".into());
        }
        Ok(Variant { geometry, pen_target, start })
    }

    pub fn rules(&self) -> Rules {
        Rules::new(self.geometry, self.pen_target)
    }

    pub fn fox_count(&self) -> u32 {
        self.start.fox_count()
    }

    pub fn first_mover(&self) -> Side {
        self.start.side()
    }

    pub fn to_json(&self) -> String {
        serde_json::json!({
            "geometry": self.geometry.name(),
            "pen_target": self.pen_target,
            "start": format_position(&self.start),
        })
        .to_string()
    }

    pub fn to_json_value(&self) -> serde_json::Value {
        serde_json::from_str(&self.to_json()).unwrap()
    }

    pub fn from_json(text: &str) -> Result<Variant, String> {
        let v: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("variant JSON: {e}"))?;
        let field = |name: &str| v.get(name).ok_or_else(|| format!("variant JSON: missing field '{name}'"));
        let geometry = field("geometry")?.as_str().ok_or("variant JSON: 'geometry' is not a string")?.parse()?;
        let pen_target = field("pen_target")?
            .as_u64()
            .and_then(|k| u32::try_from(k).ok())
            .ok_or("variant JSON: 'pen_target' is not a whole number in range")?;
        let start = parse_position(field("start")?.as_str().ok_or("variant JSON: 'start' is not a string")?)
            .map_err(|e| format!("variant JSON: start: {e}"))?;
        Variant::new(geometry, pen_target, start)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "geometry={};pen_target={};start={}", self.geometry, self.pen_target, format_position(&self.start))
    }
}

impl FromStr for Variant {
    type Err = String;
    fn from_str(s: &str) -> Result<Variant, String> {
        let (mut geometry, mut pen_target, mut start) = (None, None, None);
        for part in s.split(';') {
            let (key, value) = part.split_once('=').ok_or_else(|| format!("variant: '{part}' is not key=value"))?;
            match key.trim() {
                "geometry" => geometry = Some(value.parse::<Geometry>()?),
                "pen_target" => {
                    pen_target = Some(
                        value.parse::<u32>().map_err(|_| format!("variant: pen_target '{value}' is not a number"))?,
                    )
                }
                "start" => start = Some(parse_position(value).map_err(|e| format!("variant: start: {e}"))?),
                other => return Err(format!("variant: unknown field '{other}'")),
            }
        }
        Variant::new(
            geometry.ok_or("variant: missing geometry")?,
            pen_target.ok_or("variant: missing pen_target")?,
            start.ok_or("variant: missing start")?,
        )
    }
}
