//! Game-theoretic values for the side to move, and the rule that gives a
//! position its value from its children's.

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

    /// The value of a position whose moves lead to positions of the given
    /// values (each for *its* side to move): a win if some child is a loss,
    /// else a draw if some child is a draw, else a loss (every child is a
    /// win, or there is no child at all).
    ///
    /// ```
    /// use foxbase_core::Value::{self, Draw, Loss, Win};
    /// assert_eq!(Value::from_children([Win, Draw, Loss]), Win);
    /// assert_eq!(Value::from_children([Win, Draw, Win]), Draw);
    /// assert_eq!(Value::from_children([Win, Win]), Loss);
    /// assert_eq!(Value::from_children([]), Loss);
    /// ```
    pub fn from_children(children: impl IntoIterator<Item = Value>) -> Value {
        let mut value = Value::Loss;
        for child in children {
            match child {
                Value::Loss => return Value::Win,
                Value::Draw => value = Value::Draw,
                Value::Win => {}
            }
        }
        value
    }

    /// [`Value::from_children`] with partial knowledge (`None`: the child's
    /// value is not known yet): `Some(Win)` as soon as a known child is a
    /// loss, `None` while no child is a loss and some child is unknown, and
    /// otherwise the value from the known children.
    ///
    /// ```
    /// use foxbase_core::Value::{self, Draw, Loss, Win};
    /// assert_eq!(Value::decided_by([None, Some(Loss)]), Some(Win));
    /// assert_eq!(Value::decided_by([Some(Win), None]), None);
    /// assert_eq!(Value::decided_by([Some(Win), Some(Draw)]), Some(Draw));
    /// assert_eq!(Value::decided_by([Some(Win), Some(Win)]), Some(Loss));
    /// assert_eq!(Value::decided_by([]), Some(Loss));
    /// ```
    pub fn decided_by(children: impl IntoIterator<Item = Option<Value>>) -> Option<Value> {
        let mut unknown = false;
        let value = Value::from_children(children.into_iter().filter_map(|child| {
            unknown |= child.is_none();
            child
        }));
        // `from_children` stops at the first lost child, so `unknown` may then
        // be incomplete; otherwise it has seen every child.
        (value == Value::Win || !unknown).then_some(value)
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

/// A position's value for the side to move and its plies to the end: the
/// plies until the game ends when the winner ends it as fast as it can and
/// the loser delays it as long as it can (0 when it is over; `None` for a
/// draw, or where plies are not known).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub value: Value,
    pub plies: Option<u32>,
}

impl Outcome {
    /// The outcome of a position that is not over from its children's
    /// (each for its own side to move): the value of
    /// [`Value::from_children`], and for a win 1 + the fewest plies among
    /// the children lost for the opponent, for a loss 1 + the most among
    /// all of them. The plies are `None` for a draw, or when a child that
    /// counts has none.
    ///
    /// ```
    /// use foxbase_core::{Outcome, Value::*};
    /// let o = |value, plies| Outcome { value, plies };
    /// // A win takes the quickest losing child; a loss the slowest child.
    /// assert_eq!(Outcome::from_children(&[o(Loss, Some(4)), o(Loss, Some(2)), o(Draw, None)]), o(Win, Some(3)));
    /// assert_eq!(Outcome::from_children(&[o(Win, Some(1)), o(Win, Some(7))]), o(Loss, Some(8)));
    /// assert_eq!(Outcome::from_children(&[o(Win, Some(1)), o(Draw, None)]), o(Draw, None));
    /// ```
    pub fn from_children(children: &[Outcome]) -> Outcome {
        let value = Value::from_children(children.iter().map(|c| c.value));
        let plies = match value {
            Value::Draw => None,
            Value::Win => children.iter().filter(|c| c.value == Value::Loss).map(|c| c.plies).min().flatten(),
            Value::Loss => children.iter().try_fold(0u32, |m, c| c.plies.map(|p| m.max(p))),
        };
        Outcome { value, plies: plies.map(|p| p + 1) }
    }
}

#[cfg(test)]
mod tests {
    use super::Value::{self, Draw, Loss, Win};

    #[test]
    fn from_children_exact_cases() {
        assert_eq!(Value::from_children([]), Loss);
        assert_eq!(Value::from_children([Win]), Loss);
        assert_eq!(Value::from_children([Draw]), Draw);
        assert_eq!(Value::from_children([Loss]), Win);
        assert_eq!(Value::from_children([Win, Win, Win]), Loss);
        assert_eq!(Value::from_children([Win, Draw, Win]), Draw);
        assert_eq!(Value::from_children([Draw, Draw]), Draw);
        assert_eq!(Value::from_children([Win, Draw, Loss]), Win);
        assert_eq!(Value::from_children([Loss, Draw, Win]), Win);
        assert_eq!(Value::from_children(vec![Draw, Loss]), Win);
    }

    #[test]
    fn decided_by_exact_cases() {
        assert_eq!(Value::decided_by([]), Some(Loss));
        assert_eq!(Value::decided_by([None]), None);
        assert_eq!(Value::decided_by([Some(Win)]), Some(Loss));
        assert_eq!(Value::decided_by([Some(Draw)]), Some(Draw));
        assert_eq!(Value::decided_by([Some(Loss)]), Some(Win));
        // A lost child decides, whatever else is unknown, before or after it.
        assert_eq!(Value::decided_by([None, Some(Loss)]), Some(Win));
        assert_eq!(Value::decided_by([Some(Loss), None]), Some(Win));
        assert_eq!(Value::decided_by([None, Some(Draw), Some(Loss), None]), Some(Win));
        // Without a lost child, one unknown child leaves it open.
        assert_eq!(Value::decided_by([Some(Win), None]), None);
        assert_eq!(Value::decided_by([None, Some(Win)]), None);
        assert_eq!(Value::decided_by([Some(Draw), None, Some(Win)]), None);
        // Everything known: as from_children.
        assert_eq!(Value::decided_by([Some(Win), Some(Win)]), Some(Loss));
        assert_eq!(Value::decided_by([Some(Win), Some(Draw)]), Some(Draw));
    }

    #[test]
    fn decided_by_agrees_with_from_children_when_all_known() {
        let all = [Win, Draw, Loss];
        for n in 0..=3u32 {
            for code in 0..3usize.pow(n) {
                let kids: Vec<Value> = (0..n).map(|i| all[code / 3usize.pow(i) % 3]).collect();
                let known = kids.iter().map(|&v| Some(v));
                assert_eq!(Value::decided_by(known), Some(Value::from_children(kids.iter().copied())), "{kids:?}");
            }
        }
    }
}
