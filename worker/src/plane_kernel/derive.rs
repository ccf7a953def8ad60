//! The fox-to-move values of a published tier (which stores the
//! sheep-to-move values alone, docs/format.md) derived a block at a time:
//! the initial pass's fox side (captures into the children, a pen already
//! filled) and one fox phase over the block's stored sheep-to-move planes.
//! These are the values `foxbase_tables::tiered::fill_derived` derives by
//! one fox move per position (a test compares the two tier by tier), at
//! the speed of the kernel's fox side instead of one move generation per
//! position.

use super::*;

/// Sets the fox-to-move (even) slots of `own`, a tier read from a
/// published table (its odd slots as stored), from its sheep-to-move
/// values and those of `children` (every child tier of `tier` the
/// tablebase holds; only their sheep-to-move slots are read). Slots of
/// mirror images a symmetric sheep set does not store get the unused code.
pub fn derive_fox_side(
    game: &FoxGame,
    tier: FoxTier,
    children: &[ChildRef],
    own: &mut PackedValues,
) -> Result<(), KernelError> {
    if bmi2_in_use() {
        derive::<true>(game, tier, children, own)
    } else {
        derive::<false>(game, tier, children, own)
    }
}

fn derive<const BMI2: bool>(
    game: &FoxGame,
    tier: FoxTier,
    children: &[ChildRef],
    own: &mut PackedValues,
) -> Result<(), KernelError> {
    let ctx = Ctx::new(game, tier, children);
    let (rows, stride) = (ctx.rows, ctx.stride);
    let sets = ctx.index.sheep_sets as usize;
    ctx.check_size(own)?;
    let stored = own.clone();
    // A work item's blocks fill whole bytes (`per_set` is even: both sides of each placement).
    let item_slots = BLOCKS_PER_ITEM as u64 * ctx.per_set;
    own.bytes_mut().par_chunks_mut((item_slots / 4) as usize).enumerate().try_for_each(|(it, bytes)| {
        let mut scratch = Scratch::default();
        let (mut f, mut cleared, mut s) = (vec![0u32; stride], vec![0u32; stride], vec![0u32; stride]);
        for set in it * BLOCKS_PER_ITEM..((it + 1) * BLOCKS_PER_ITEM).min(sets) {
            let view = SetView::new(ctx.index.sheep_set(set as u64));
            ctx.stored_planes::<BMI2>(&stored, set, &view, 1, &mut s);
            ctx.init_fox_side::<BMI2>(&view, &mut f, &mut cleared, &mut scratch)?;
            ctx.fox_phase_any::<BMI2>(view.sheep, &mut f, &s);
            let block_start = (set - it * BLOCKS_PER_ITEM) as u64 * ctx.per_set;
            ctx.for_each_row(&view, |h, first_slot, len, used| {
                let (won, lost) = (f[WON * rows + h], f[LOST * rows + h]);
                for j in 0..len {
                    let bit = 1u32 << j;
                    let code = if used & bit == 0 {
                        3
                    } else if won & bit != 0 {
                        WIN_CODE
                    } else if lost & bit != 0 {
                        LOSS_CODE
                    } else {
                        0
                    };
                    let slot = block_start + first_slot + 2 * j as u64;
                    let (byte, shift) = ((slot / 4) as usize, (slot % 4) * 2);
                    bytes[byte] = (bytes[byte] & !(3 << shift)) | code << shift;
                }
            });
        }
        Ok(())
    })
}

/// [`derive_fox_side`] as the tables' reader's derivation of whole
/// published tables ([`foxbase_tables::tier_tables::DeriveWhole`]; install it
/// with [`foxbase_tables::fox_tables::install_fox_side_deriver`]).
pub struct PlaneFoxSide;

impl foxbase_tables::tier_tables::DeriveWhole<FoxGame> for PlaneFoxSide {
    fn derive(
        &self,
        game: &FoxGame,
        tier: FoxTier,
        own: &mut PackedValues,
        children: &[&foxbase_tables::tiered::WholeTier<FoxGame>],
    ) -> Option<Result<(), String>> {
        // Values under a no-progress rule hang on distances: one move at a time.
        if game.rules.no_progress > 0 {
            return None;
        }
        let refs = ChildRef::values_of(children);
        Some(derive_fox_side(game, tier, &refs, own).map_err(|e| e.to_string()))
    }
}
