//! The sheep floor (RULES.md, "End of a fox move"): its rule, its variant
//! forms and errors, and the bounds it gives, position by position against
//! the exact game with the reference solver.

use foxbase_core::notation::{format_position, parse_position};
use foxbase_core::reference::ReferenceSolution;
use foxbase_core::rules::EndReason;
use foxbase_core::{Geometry, Side, Status, Value, Variant, VariantError};

fn variant(start: &str, geometry: Geometry, k: u32) -> Variant {
    Variant::new(geometry, k, parse_position(start).unwrap()).unwrap()
}

/// The value of a position for the sheep: 0 lost, 1 drawn, 2 won.
fn for_sheep(value: Value, side: Side) -> u8 {
    let v = if side == Side::Sheep { value } else { value.for_mover() };
    match v {
        Value::Loss => 0,
        Value::Draw => 1,
        Value::Win => 2,
    }
}

/// Solves the exact game and the game under floor `floor` with each
/// winner; checks lower <= exact <= upper (for the sheep) on every
/// position the three reach, and returns (positions compared, positions
/// where the lower bound is below the exact value, positions where the
/// upper bound is above it).
fn check_bounds(start: &str, geometry: Geometry, k: u32, floor: u32) -> (usize, usize, usize) {
    let exact_variant = variant(start, geometry, k);
    let exact = ReferenceSolution::solve(&exact_variant, 20_000_000).unwrap();
    let lower =
        ReferenceSolution::solve(&exact_variant.with_sheep_floor(floor, Side::Fox).unwrap(), 20_000_000).unwrap();
    let upper =
        ReferenceSolution::solve(&exact_variant.with_sheep_floor(floor, Side::Sheep).unwrap(), 20_000_000).unwrap();
    let (mut compared, mut lower_below, mut upper_above) = (0, 0, 0);
    for (pos, low) in lower.iter() {
        let (Some(e), Some(up)) = (exact.value(&pos), upper.value(&pos)) else { continue };
        let side = pos.side();
        let (l, e, u) = (for_sheep(low, side), for_sheep(e, side), for_sheep(up, side));
        assert!(
            l <= e && e <= u,
            "{exact_variant}, floor {floor}: {} has bounds {l} <= {e} <= {u}",
            format_position(&pos)
        );
        compared += 1;
        lower_below += (l < e) as usize;
        upper_above += (e < u) as usize;
    }
    // Both floor games reach the same positions: they end at the same moves.
    assert_eq!(lower.len(), upper.len());
    (compared, lower_below, upper_above)
}

#[test]
fn bounds_hold_one_fox_classic_fox_first() {
    let got = check_bounds(".F./.../......./......./SSSS.../.../... f", Geometry::Classic, 2, 3);
    assert_eq!(got, (842_939, 109_537, 22_694));
}

#[test]
fn bounds_hold_one_fox_orthogonal_sheep_first() {
    let got = check_bounds(".F./.../......./SS...SS/......./.../... s", Geometry::Orthogonal, 3, 4);
    assert_eq!(got, (129_475, 42_944, 19_421));
}

#[test]
fn bounds_hold_two_foxes_orthogonal_fox_first() {
    let got = check_bounds("F.F/.../......./......./..SSS../.../... f", Geometry::Orthogonal, 2, 3);
    assert_eq!(got, (1_261_251, 245_329, 523_513));
}

#[test]
fn bounds_hold_two_foxes_classic_sheep_first() {
    let got = check_bounds("F.F/.../......./......./..SSS../.../... s", Geometry::Classic, 1, 3);
    assert_eq!(got, (1_026_585, 286_292, 31_909));
}

#[test]
fn below_the_floor_the_floors_winner_has_won_after_a_fox_move() {
    // Twenty sheep minus one: with the sheep to move, below a floor of 20.
    let v = Variant::default();
    let nineteen = parse_position("F.F/.../......./SSSSSS./SSSSSSS/SSS/SSS s").unwrap();
    let over = |winner: Side| Status::Over { winner, reason: EndReason::BelowFloor };
    assert_eq!(v.rules().status(&nineteen), Status::Ongoing);
    assert_eq!(v.with_sheep_floor(20, Side::Fox).unwrap().rules().status(&nineteen), over(Side::Fox));
    assert_eq!(v.with_sheep_floor(20, Side::Sheep).unwrap().rules().status(&nineteen), over(Side::Sheep));
    assert_eq!(v.with_sheep_floor(19, Side::Sheep).unwrap().rules().status(&nineteen), Status::Ongoing);
    // The floor applies at the end of a fox move only: the foxes to move play on.
    assert_eq!(
        v.with_sheep_floor(20, Side::Fox).unwrap().rules().status(&nineteen.with_side(Side::Fox)),
        Status::Ongoing
    );
    // Below K the foxes win whatever the floor's winner.
    let eight = parse_position("F.F/.../......./......./SSSSSSS/.S./... s").unwrap();
    let k9 = v.with_sheep_floor(20, Side::Sheep).unwrap().rules();
    assert_eq!(k9.status(&eight), Status::Over { winner: Side::Fox, reason: EndReason::TooFewSheep });
}

#[test]
fn a_floor_is_recorded_in_the_variant_and_refused_out_of_range() {
    let v = Variant::default();
    let f = v.with_sheep_floor(18, Side::Sheep).unwrap();
    assert_eq!(f.to_string().parse::<Variant>().unwrap(), f);
    assert_eq!(Variant::from_json(&f.to_json()).unwrap(), f);
    assert!(f.to_json().contains(r#""sheep_floor":18"#) && f.to_json().contains(r#""floor_winner":"sheep""#));
    // Without a floor the forms are those of every earlier table.
    assert_eq!(v.with_sheep_floor(9, Side::Fox).unwrap().to_json(), v.to_json());
    assert!(!v.to_json().contains("floor"));
    let err = |r: Result<Variant, VariantError>| r.unwrap_err().to_string();
    assert_eq!(
        err(v.with_sheep_floor(8, Side::Fox)),
        "sheep_floor 8 is out of range: it must be from the pen target to the start's sheep count, here 9..=20"
    );
    assert!(err(v.with_sheep_floor(21, Side::Fox)).contains("here 9..=20"));
    assert_eq!(
        err(v.with_sheep_floor(9, Side::Sheep)),
        "floor_winner sheep needs a sheep_floor above the pen target (9); sheep_floor is 9"
    );
    assert!(err("geometry=classic;pen_target=9;sheep_floor=x;start=F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS f"
        .parse::<Variant>())
    .contains("sheep_floor 'x' is not a number"));
    assert!(err("geometry=classic;pen_target=9;floor_winner=wolves;start=F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS f"
        .parse::<Variant>())
    .contains("floor_winner 'wolves'"));
    assert!(err(Variant::from_json(
        r#"{"geometry":"classic","pen_target":9,"sheep_floor":30,"start":"F.F/.../......./SSSSSSS/SSSSSSS/SSS/SSS f"}"#
    ))
    .contains("sheep_floor 30 is out of range"));
}
