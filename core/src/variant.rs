//! A variant: geometry, start position (which fixes the fox count and the
//! first mover), pen target K, and the sheep floor F with its winner. Every
//! table records the variant it was built for, in the stable text and JSON
//! forms below. A variant without a floor (F = K) writes neither
//! `sheep_floor` nor `floor_winner`, so that its text is what it was before
//! the floor existed and older tables keep their variant.
//!
//! ```
//! use foxbase_core::{Side, Variant};
//! let v = Variant::default();
//! assert_eq!(v.to_string(), "geometry=classic;pen_target=9;start=F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS f");
//! assert_eq!(v.to_string().parse::<Variant>().unwrap(), v);
//! assert_eq!(Variant::from_json(&v.to_json()).unwrap(), v);
//! let floored = v.with_sheep_floor(20, Side::Fox).unwrap();
//! assert_eq!(
//!     floored.to_string(),
//!     "geometry=classic;pen_target=9;sheep_floor=20;floor_winner=foxes;start=F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS f"
//! );
//! assert_eq!(floored.to_string().parse::<Variant>().unwrap(), floored);
//! assert_eq!(Variant::from_json(&floored.to_json()).unwrap(), floored);
//! assert!(v.with_sheep_floor(21, Side::Fox).is_err()); // the start has 20 sheep
//! assert!(v.with_sheep_floor(9, Side::Sheep).is_err()); // a sheep floor winner needs F > K
//! ```

use crate::board::Geometry;
use crate::error::VariantError;
use crate::notation::{format_position, parse_position};
use crate::position::{Position, Side};
use crate::rules::Rules;
use std::fmt;
use std::str::FromStr;

/// The largest no-progress cap N (plies): a distance to zeroing of at most N is one byte.
pub const MAX_NO_PROGRESS: u32 = 255;

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
    /// F: fewer than F sheep after a fox move end the game, K..=the start's
    /// sheep count. F = K is the rule without a floor.
    pub sheep_floor: u32,
    /// Who wins below the floor: the foxes, or (only with F > K) the sheep.
    pub floor_winner: Side,
    /// N (RULES.md, "Draws"): a draw after N plies without progress, 1..=255;
    /// 0 (the default) for no such rule. Written only when set.
    pub no_progress: u32,
}

impl Default for Variant {
    fn default() -> Variant {
        Variant::new(Geometry::Classic, 9, parse_position(DEFAULT_START).unwrap()).unwrap()
    }
}

/// The `floor_winner` names of the text and JSON forms and the CLI: `foxes` or `sheep`.
pub fn floor_winner_name(side: Side) -> &'static str {
    match side {
        Side::Fox => "foxes",
        Side::Sheep => "sheep",
    }
}

/// Reads a `floor_winner` name ([`floor_winner_name`]).
pub fn parse_floor_winner(name: &str) -> Result<Side, VariantError> {
    match name {
        "foxes" => Ok(Side::Fox),
        "sheep" => Ok(Side::Sheep),
        _ => Err(VariantError::FloorWinner { value: name.to_string() }),
    }
}

/// Checks a sheep floor F and its winner against the pen target K and the
/// start's sheep count: K <= F <= sheep, and the sheep win below the floor
/// only when F > K (the rule of [`Variant::with_sheep_floor`]). No floor
/// (F = K, won by the foxes) is always allowed, also from a start with
/// fewer than K sheep.
pub fn check_sheep_floor(
    pen_target: u32,
    sheep: u32,
    sheep_floor: u32,
    floor_winner: Side,
) -> Result<(), VariantError> {
    if sheep_floor == pen_target && floor_winner == Side::Fox {
        return Ok(()); // no floor: the rule as it always was, for any start
    }
    if floor_winner == Side::Sheep && sheep_floor <= pen_target {
        return Err(VariantError::FloorWinnerWithoutFloor { sheep_floor, pen_target });
    }
    if !(pen_target..=sheep).contains(&sheep_floor) {
        return Err(VariantError::SheepFloorOutOfRange { sheep_floor, low: pen_target, high: sheep });
    }
    Ok(())
}

/// What a sheep floor makes of a variant's values: bounds on the game
/// without it ([`Variant::bound`]), shown beside every value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bound {
    pub sheep_floor: u32,
    pub floor_winner: Side,
    /// One line for people ([`Variant::floor_note`]).
    pub note: String,
}

impl Variant {
    /// A checked variant without a sheep floor (F = K); the error names the
    /// bad field ([`VariantError::PenTargetOutOfRange`] or [`VariantError::NoFox`]).
    pub fn new(geometry: Geometry, pen_target: u32, start: Position) -> Result<Variant, VariantError> {
        if !(1..=9).contains(&pen_target) {
            return Err(VariantError::PenTargetOutOfRange { pen_target });
        }
        if start.fox_count() == 0 {
            return Err(VariantError::NoFox);
        }
        Ok(Variant { geometry, pen_target, start, sheep_floor: pen_target, floor_winner: Side::Fox, no_progress: 0 })
    }

    /// This variant with the sheep floor F and its winner (RULES.md, "End of
    /// a fox move"). F must be in K..=the start's sheep count
    /// ([`VariantError::SheepFloorOutOfRange`]), and the sheep can be the
    /// floor's winner only when F > K ([`VariantError::FloorWinnerWithoutFloor`]).
    pub fn with_sheep_floor(self, sheep_floor: u32, floor_winner: Side) -> Result<Variant, VariantError> {
        check_sheep_floor(self.pen_target, self.start.sheep_count(), sheep_floor, floor_winner)?;
        Ok(Variant { sheep_floor, floor_winner, ..self })
    }

    /// This variant with the no-progress rule after `no_progress` plies
    /// (RULES.md, "Draws"): 1..=255, or 0 for none
    /// ([`VariantError::NoProgressOutOfRange`]).
    pub fn with_no_progress(self, no_progress: u32) -> Result<Variant, VariantError> {
        if no_progress > MAX_NO_PROGRESS {
            return Err(VariantError::NoProgressOutOfRange { no_progress, max: MAX_NO_PROGRESS });
        }
        Ok(Variant { no_progress, ..self })
    }

    /// Whether a sheep floor above K is set: the values are then bounds on
    /// the game without it, not its values.
    pub fn has_floor(&self) -> bool {
        self.sheep_floor > self.pen_target
    }

    /// One line that says what a floor makes of the values, for every
    /// command that shows a value of floored tables; `None` without a floor.
    pub fn floor_note(&self) -> Option<String> {
        if !self.has_floor() {
            return None;
        }
        let lost = self.start.sheep_count() - self.sheep_floor;
        Some(match self.floor_winner {
            Side::Fox => format!(
                "sheep floor {}: the foxes win once fewer than {} sheep remain, so a sheep win is a sheep win of \
                 the real game (losing at most {lost} sheep) and anything else is only a bound; the sheep's \
                 winning moves are a winning strategy in the real game, the foxes' moves are not a strategy of it",
                self.sheep_floor, self.sheep_floor
            ),
            Side::Sheep => format!(
                "sheep floor {} won by the sheep: the sheep win once fewer than {} (and at least {}) sheep remain, \
                 so only a value that is not a sheep win holds for the real game; the foxes' moves that hold a \
                 draw or a win are a strategy for it in the real game, the sheep's moves are not a strategy of it",
                self.sheep_floor, self.sheep_floor, self.pen_target
            ),
        })
    }

    /// The floor and its note ([`Variant::floor_note`]) of a variant whose values are bounds.
    pub fn bound(&self) -> Option<Bound> {
        Some(Bound { sheep_floor: self.sheep_floor, floor_winner: self.floor_winner, note: self.floor_note()? })
    }

    pub fn rules(&self) -> Rules {
        Rules::new(self.geometry, self.pen_target)
            .with_sheep_floor(self.sheep_floor, self.floor_winner)
            .with_no_progress(self.no_progress)
    }

    pub fn fox_count(&self) -> u32 {
        self.start.fox_count()
    }

    pub fn first_mover(&self) -> Side {
        self.start.side()
    }

    pub fn to_json(&self) -> String {
        let mut v = serde_json::json!({
            "geometry": self.geometry.name(),
            "pen_target": self.pen_target,
            "start": format_position(&self.start),
        });
        if self.has_floor() {
            v["sheep_floor"] = self.sheep_floor.into();
            v["floor_winner"] = floor_winner_name(self.floor_winner).into();
        }
        if self.no_progress > 0 {
            v["no_progress"] = self.no_progress.into();
        }
        v.to_string()
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
        let variant = Variant::new(geometry, pen_target, start)?;
        let sheep_floor = match v.get("sheep_floor") {
            None => pen_target,
            Some(f) => f.as_u64().and_then(|f| u32::try_from(f).ok()).ok_or(VariantError::JsonSheepFloor)?,
        };
        let floor_winner = match v.get("floor_winner") {
            None => Side::Fox,
            Some(w) => parse_floor_winner(w.as_str().ok_or(VariantError::JsonNotAString { field: "floor_winner" })?)?,
        };
        let no_progress = match v.get("no_progress") {
            None => 0,
            Some(n) => n.as_u64().and_then(|n| u32::try_from(n).ok()).ok_or(VariantError::JsonNoProgress)?,
        };
        variant.with_sheep_floor(sheep_floor, floor_winner)?.with_no_progress(no_progress)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "geometry={};pen_target={};", self.geometry, self.pen_target)?;
        if self.has_floor() {
            write!(f, "sheep_floor={};floor_winner={};", self.sheep_floor, floor_winner_name(self.floor_winner))?;
        }
        if self.no_progress > 0 {
            write!(f, "no_progress={};", self.no_progress)?;
        }
        write!(f, "start={}", format_position(&self.start))
    }
}

impl FromStr for Variant {
    type Err = VariantError;
    /// Reads the text form written by `Display`; the error names the bad or
    /// missing part ([`VariantError::Geometry`], the text variants of
    /// [`VariantError`], or [`Variant::new`]'s).
    fn from_str(s: &str) -> Result<Variant, VariantError> {
        let (mut geometry, mut pen_target, mut start) = (None, None, None);
        let (mut sheep_floor, mut floor_winner, mut no_progress) = (None, Side::Fox, 0);
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
                "sheep_floor" => {
                    sheep_floor = Some(
                        value
                            .parse::<u32>()
                            .map_err(|error| VariantError::SheepFloorNotANumber { value: value.to_string(), error })?,
                    )
                }
                "floor_winner" => floor_winner = parse_floor_winner(value)?,
                "no_progress" => {
                    no_progress = value
                        .parse::<u32>()
                        .map_err(|error| VariantError::NoProgressNotANumber { value: value.to_string(), error })?
                }
                other => return Err(VariantError::UnknownField { field: other.to_string() }),
            }
        }
        let variant = Variant::new(
            geometry.ok_or(VariantError::MissingField { field: "geometry" })?,
            pen_target.ok_or(VariantError::MissingField { field: "pen_target" })?,
            start.ok_or(VariantError::MissingField { field: "start" })?,
        )?;
        variant.with_sheep_floor(sheep_floor.unwrap_or(variant.pen_target), floor_winner)?.with_no_progress(no_progress)
    }
}
