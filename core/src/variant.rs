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
use crate::error::VariantError;
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
    /// A checked variant; the error names the bad field
    /// ([`VariantError::PenTargetOutOfRange`] or [`VariantError::NoFox`]).
    pub fn new(geometry: Geometry, pen_target: u32, start: Position) -> Result<Variant, VariantError> {
        if !(1..=9).contains(&pen_target) {
            return Err(VariantError::PenTargetOutOfRange { pen_target });
        }
        if start.fox_count() == 0 {
            return Err(VariantError::NoFox);
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

    /// Reads the JSON form written by [`Variant::to_json`]; the error names
    /// the bad or missing field (the `Json*` variants of [`VariantError`],
    /// [`VariantError::Geometry`], or [`Variant::new`]'s).
    pub fn from_json(text: &str) -> Result<Variant, VariantError> {
        let v: serde_json::Value = serde_json::from_str(text).map_err(VariantError::Json)?;
        let field = |field: &'static str| v.get(field).ok_or(VariantError::JsonMissingField { field });
        let string = |name: &'static str| field(name)?.as_str().ok_or(VariantError::JsonNotAString { field: name });
        let geometry = string("geometry")?.parse().map_err(VariantError::Geometry)?;
        let pen_target =
            field("pen_target")?.as_u64().and_then(|k| u32::try_from(k).ok()).ok_or(VariantError::JsonPenTarget)?;
        let start = parse_position(string("start")?).map_err(VariantError::JsonStart)?;
        Variant::new(geometry, pen_target, start)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "geometry={};pen_target={};start={}", self.geometry, self.pen_target, format_position(&self.start))
    }
}

impl FromStr for Variant {
    type Err = VariantError;
    /// Reads the text form written by `Display`; the error names the bad or
    /// missing part ([`VariantError::Geometry`], the text variants of
    /// [`VariantError`], or [`Variant::new`]'s).
    fn from_str(s: &str) -> Result<Variant, VariantError> {
        let (mut geometry, mut pen_target, mut start) = (None, None, None);
        for part in s.split(';') {
            let (key, value) =
                part.split_once('=').ok_or_else(|| VariantError::NotKeyValue { part: part.to_string() })?;
            match key.trim() {
                "geometry" => geometry = Some(value.parse::<Geometry>().map_err(VariantError::Geometry)?),
                "pen_target" => {
                    pen_target = Some(
                        value
                            .parse::<u32>()
                            .map_err(|error| VariantError::PenTargetNotANumber { value: value.to_string(), error })?,
                    )
                }
                "start" => start = Some(parse_position(value).map_err(VariantError::Start)?),
                other => return Err(VariantError::UnknownField { field: other.to_string() }),
            }
        }
        Variant::new(
            geometry.ok_or(VariantError::MissingField { field: "geometry" })?,
            pen_target.ok_or(VariantError::MissingField { field: "pen_target" })?,
            start.ok_or(VariantError::MissingField { field: "start" })?,
        )
    }
}
