//! Game-theoretic values for the side to move.

use std::fmt;

/// The value of a position for the side to move, under perfect play.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Value {
    Win,
    Draw,
    Loss,
}

impl Value {
    /// The value for the player who moved into a position of value `self`.
    pub fn for_mover(self) -> Value {
        match self {
            Value::Win => Value::Loss,
            Value::Draw => Value::Draw,
            Value::Loss => Value::Win,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Value::Win => "win",
            Value::Draw => "draw",
            Value::Loss => "loss",
        }
    }

    /// The 2-bit code stored in tables: 0 draw, 1 win, 2 loss (3 marks an unused slot).
    pub fn code(self) -> u8 {
        match self {
            Value::Draw => 0,
            Value::Win => 1,
            Value::Loss => 2,
        }
    }

    /// The value of a 2-bit code; `None` for 3 (an unused slot).
    pub fn from_code(code: u8) -> Option<Value> {
        match code & 3 {
            0 => Some(Value::Draw),
            1 => Some(Value::Win),
            2 => Some(Value::Loss),
            _ => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
