//! `foxbase verify`'s check of a stored tier with the plane kernel's machinery.

use super::*;

/// The first stored value of a tier that its children contradict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contradiction {
    pub slot: u64,
    pub stored: Value,
    pub derived: Value,
}

/// Why [`check_tier`] failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    #[error("slot {}: stored {}, but its children say {}", .0.slot, .0.stored, .0.derived)]
    Contradiction(Contradiction),
    #[error(transparent)]
    Kernel(#[from] KernelError),
}

/// `foxbase verify`'s value check of a whole tier with the plane kernel's
/// machinery: every stored value is derived again, one step, from its
/// children's stored values (the tier's own for moves inside it) and
/// compared. The initial pass reads the children, one fox phase and one
/// sheep phase (run on the stored planes) give the rest. `fox_side`:
/// check the fox-to-move values too (a published table derives them).
/// Returns the number of positions checked, or the contradiction with
/// the lowest slot.
pub fn check_tier(
    game: &FoxGame,
    tier: FoxTier,
    children: &[ChildRef],
    own: &PackedValues,
    fox_side: bool,
) -> Result<u64, CheckError> {
    if bmi2_in_use() {
        check::<true>(game, tier, children, own, fox_side)
    } else {
        check::<false>(game, tier, children, own, fox_side)
    }
}

pub(super) fn check<const BMI2: bool>(
    game: &FoxGame,
    tier: FoxTier,
    children: &[ChildRef],
    own: &PackedValues,
    fox_side: bool,
) -> Result<u64, CheckError> {
    let mut ctx = Ctx::new(game, tier, children);
    let (rows, stride) = (ctx.rows, ctx.stride);
    let sets = ctx.index.sheep_sets as usize;
    ctx.check_size(own)?;
    // The solve's own initial pass: on crowded tiers the trapped foxes of
    // every set a sheep step leads to are found once per set, from the
    // children's stored values and the tier's own sets. (`--one-step`
    // checks each position by the prober's rule instead.)
    let set_bits: Vec<Bits> = (0..sets as u64).into_par_iter().map(|c| ctx.index.sheep_set(c)).collect();
    ctx.find_traps_per_set::<BMI2>(&set_bits);
    let item = BLOCKS_PER_ITEM * stride;
    // The stored values as planes.
    let mut stored_fox = vec![0u32; sets * stride];
    let mut stored_sheep = vec![0u32; sets * stride];
    stored_fox.par_chunks_mut(item).zip(stored_sheep.par_chunks_mut(item)).enumerate().for_each(|(it, (f, s))| {
        for (b, (fb, sb)) in f.chunks_mut(stride).zip(s.chunks_mut(stride)).enumerate() {
            let view = SetView::new(set_bits[it * BLOCKS_PER_ITEM + b]);
            ctx.stored_planes::<BMI2>(own, it * BLOCKS_PER_ITEM + b, &view, 0, fb);
            ctx.stored_planes::<BMI2>(own, it * BLOCKS_PER_ITEM + b, &view, 1, sb);
        }
    });
    // Derive every block again and compare.
    let results: Vec<Result<(u64, Option<Contradiction>), KernelError>> = (0..sets.div_ceil(BLOCKS_PER_ITEM))
        .into_par_iter()
        .map(|it| {
            let mut scratch = Scratch::default();
            let mut sideways = Sideways::default();
            let (mut f, mut s) = (vec![0u32; stride], vec![0u32; stride]);
            let mut checked = 0u64;
            for set in it * BLOCKS_PER_ITEM..((it + 1) * BLOCKS_PER_ITEM).min(sets) {
                let view = SetView::new(set_bits[set]);
                sideways.clear();
                ctx.init_block_any::<BMI2>(&view, &mut f, &mut s, &mut scratch, &mut sideways)?;
                let own_fox = &stored_fox[set * stride..(set + 1) * stride];
                let own_sheep = &stored_sheep[set * stride..(set + 1) * stride];
                ctx.fox_phase_any::<BMI2>(view.sheep, &mut f, own_sheep);
                ctx.sheep_phase::<BMI2, _>(
                    view.sheep,
                    &mut s,
                    &AllBlocks { planes: &stored_fox, stride },
                    sideways.block(0),
                    &sideways,
                    &mut scratch.mirror,
                );
                let mut first: Option<Contradiction> = None;
                ctx.for_each_row(&view, |h, first_slot, _, used| {
                    for (side, derived, stored) in [(0u64, &f, own_fox), (1, &s, own_sheep)] {
                        if side == 0 && !fox_side {
                            continue;
                        }
                        checked += used.count_ones() as u64;
                        let (dw, dl) = (derived[WON * rows + h] & used, derived[LOST * rows + h] & used);
                        let (sw, sl) = (stored[WON * rows + h] & used, stored[LOST * rows + h] & used);
                        let differ = (dw ^ sw) | (dl ^ sl);
                        if differ == 0 {
                            continue;
                        }
                        let j = differ.trailing_zeros();
                        let value = |w: u32, l: u32| {
                            if w >> j & 1 == 1 {
                                Value::Win
                            } else if l >> j & 1 == 1 {
                                Value::Loss
                            } else {
                                Value::Draw
                            }
                        };
                        let slot = set as u64 * ctx.per_set + first_slot + 2 * j as u64 + side;
                        if first.as_ref().is_none_or(|c| slot < c.slot) {
                            first = Some(Contradiction { slot, stored: value(sw, sl), derived: value(dw, dl) });
                        }
                    }
                });
                if first.is_some() {
                    return Ok((checked, first));
                }
            }
            Ok((checked, None))
        })
        .collect();
    let mut checked = 0;
    for r in results {
        let (count, contradiction) = r?;
        if let Some(c) = contradiction {
            return Err(CheckError::Contradiction(c));
        }
        checked += count;
    }
    Ok(checked)
}

impl Ctx<'_> {
    /// Fails unless `own` holds as many values as this tier has slots.
    pub(super) fn check_size(&self, own: &PackedValues) -> Result<(), KernelError> {
        let size = self.game.tier_size(&self.index);
        if own.len() != size {
            return Err(KernelError::Inconsistent(format!(
                "tier {} has {} values, not {size}",
                self.tier.name(),
                own.len()
            )));
        }
        Ok(())
    }

    /// The won and lost planes of `side` (0: fox to move, 1: sheep to
    /// move) of block `set` as stored in `own` (this tier's table), into
    /// `planes` (a side's stride).
    pub(super) fn stored_planes<const BMI2: bool>(
        &self,
        own: &PackedValues,
        set: usize,
        view: &SetView,
        side: u64,
        planes: &mut [u32],
    ) {
        let n = self.n;
        let symmetric = view.sheep == mirror_bits(view.sheep);
        let base = set as u64 * self.per_set;
        if self.one_fox {
            let (w, l) = decode_child_one::<BMI2>(own, base, n, side, symmetric, view.free);
            planes[WON] = w;
            planes[LOST] = l;
        } else {
            let (mut w, mut l) = ([0u32; 32], [0u32; 32]);
            decode_child::<BMI2>(own, base, n, side, symmetric, view.free, &mut w, &mut l);
            planes[WON * n..(WON + 1) * n].copy_from_slice(&w[..n]);
            planes[LOST * n..(LOST + 1) * n].copy_from_slice(&l[..n]);
        }
    }
}

/// [`check_tier`] as `foxbase verify`'s step 3 (see [`foxbase_tables::verify::TierCheck`]).
pub struct PlaneCheck;

impl foxbase_tables::verify::TierCheck<FoxGame> for PlaneCheck {
    fn check(
        &self,
        game: &FoxGame,
        tier: FoxTier,
        own: &foxbase_tables::tiered::WholeTier<FoxGame>,
        children: &[&foxbase_tables::tiered::WholeTier<FoxGame>],
        fox_side: bool,
    ) -> Option<Result<u64, foxbase_tables::verify::TierCheckError>> {
        use foxbase_tables::verify::TierCheckError;
        // Values under a no-progress rule hang on distances: checked one position at a time.
        if game.rules.no_progress > 0 {
            return None;
        }
        let refs = ChildRef::values_of(children);
        Some(check_tier(game, tier, &refs, &own.values, fox_side).map_err(|e| match e {
            CheckError::Contradiction(c) => {
                TierCheckError::Contradiction { slot: c.slot, stored: c.stored, derived: c.derived }
            }
            CheckError::Kernel(e) => TierCheckError::Other(e.to_string()),
        }))
    }
}
