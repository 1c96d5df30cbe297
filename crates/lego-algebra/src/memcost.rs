//! The cost of one warp's memory request, exactly as the hardware counts it — the one definition that the
//! `lego-analyze-memory` pass (which proves it for all threads and iterations), `lego-choose-smem-layout` and
//! LEGO Studio's GPU view (which evaluates it on concrete addresses) all agree on.
//!
//! **Shared memory.** A request is served in *phases* of 128 bytes of lane data: one phase of 32 lanes for
//! accesses of at most 4 bytes, two phases of 16 lanes for 8-byte accesses, four phases of 8 lanes for 16-byte
//! accesses (a 32-lane warp). Memory is `banks` banks of 4-byte words; word `w` lives in bank `w mod banks`.
//! Within one phase, a bank serves all requests for one word at once (broadcast), so the phase costs, per bank,
//! the number of *distinct words* of that bank the phase touches. The **bank-conflict degree** of the request
//! is the largest such count over its phases and banks: 1 is conflict-free, `N` is an N-way conflict.
//!
//! **Global memory.** A request touches the 32-byte sectors that contain any of its bytes; its cost is the
//! number of distinct sectors, and the ideal is the fewest sectors that could hold the distinct bytes it asks
//! for (`⌈bytes / 32⌉`).
//!
//! ```
//! use lego_algebra::memcost::{bank_conflict_degree, sectors_per_request};
//! // A column of an unpadded 32×32 fp32 tile: every lane hits bank 0 with its own word.
//! let column: Vec<u64> = (0..32).map(|lane| lane * 32 * 4).collect();
//! assert_eq!(bank_conflict_degree(&column, 4, 32).unwrap().degree, 32);
//! // Padding each row by one word spreads the column over all 32 banks.
//! let padded: Vec<u64> = (0..32).map(|lane| lane * 33 * 4).collect();
//! assert_eq!(bank_conflict_degree(&padded, 4, 32).unwrap().degree, 1);
//! // A row read by 32 lanes of 4 bytes: 128 contiguous bytes, 4 sectors, ideal 4.
//! let row: Vec<u64> = (0..32).map(|lane| lane * 4).collect();
//! assert_eq!(sectors_per_request(&row, 4).unwrap(), (4, 4));
//! ```

use std::collections::{BTreeMap, BTreeSet};

use crate::error::{AlgebraError, Result};

/// Bytes of one shared-memory bank word.
pub const BANK_WORD_BYTES: u64 = 4;
/// Bytes of one global-memory sector.
pub const SECTOR_BYTES: u64 = 32;
/// Bytes of lane data one shared-memory phase serves.
pub const PHASE_BYTES: u64 = 128;

/// The bank-conflict degree of one request and the lowest pair of lanes that shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BankConflicts {
    /// Largest number of distinct words one bank serves in one phase (1 = conflict-free; 0 = no lanes).
    pub degree: u64,
    /// The lowest two lanes of one phase that access different words of the same bank, if any.
    pub witness: Option<(usize, usize)>,
    /// Lanes per phase for this access width.
    pub lanes_per_phase: usize,
}

impl BankConflicts {
    /// `conflict-free` or `N-way bank conflict` — the words remarks and tools match.
    pub fn describe(&self) -> String {
        if self.degree <= 1 {
            "conflict-free".to_string()
        } else {
            format!("{}-way bank conflict", self.degree)
        }
    }
}

fn check_access_bytes(access_bytes: u64) -> Result<()> {
    if matches!(access_bytes, 1 | 2 | 4 | 8 | 16) {
        Ok(())
    } else {
        Err(AlgebraError::MemoryModel(format!(
            "memory access of {access_bytes} bytes: expected 1, 2, 4, 8 or 16"
        )))
    }
}

/// Lanes served together in one shared-memory phase for an access of `access_bytes` bytes per lane.
pub fn lanes_per_phase(access_bytes: u64) -> Result<usize> {
    check_access_bytes(access_bytes)?;
    Ok((PHASE_BYTES / access_bytes.max(BANK_WORD_BYTES)) as usize)
}

/// The bank-conflict degree of one warp request: lane `i` accesses `access_bytes` bytes at byte address
/// `byte_addrs[i]` (every lane of the slice is active). `banks` is the number of 4-byte banks (32 on NVIDIA).
pub fn bank_conflict_degree(byte_addrs: &[u64], access_bytes: u64, banks: u64) -> Result<BankConflicts> {
    let lanes: Vec<Option<u64>> = byte_addrs.iter().copied().map(Some).collect();
    bank_conflict_degree_of_lanes(&lanes, access_bytes, banks)
}

/// The same for a request some of whose lanes are inactive (`None`: a lane whose guard is false accesses
/// nothing). Lane `i` stays in phase `i / lanes_per_phase` whatever the other lanes do: the hardware splits a
/// wide request by lane number, not by the active lanes' rank.
pub fn bank_conflict_degree_of_lanes(byte_addrs: &[Option<u64>], access_bytes: u64, banks: u64) -> Result<BankConflicts> {
    if banks == 0 {
        return Err(AlgebraError::MemoryModel("bank count must be at least 1".to_string()));
    }
    let per_phase = lanes_per_phase(access_bytes)?;
    let mut degree = 0u64;
    let mut witness: Option<(usize, usize)> = None;
    for (phase, lanes) in byte_addrs.chunks(per_phase).enumerate() {
        // bank -> (distinct word -> lowest lane touching it)
        let mut by_bank: BTreeMap<u64, BTreeMap<u64, usize>> = BTreeMap::new();
        for (offset, addr) in lanes.iter().enumerate() {
            let Some(addr) = *addr else { continue };
            let lane = phase * per_phase + offset;
            let last = addr.checked_add(access_bytes - 1).ok_or_else(|| {
                AlgebraError::MemoryModel(format!("lane {lane}: byte address {addr} overflows"))
            })?;
            for word in addr / BANK_WORD_BYTES..=last / BANK_WORD_BYTES {
                by_bank.entry(word % banks).or_default().entry(word).or_insert(lane);
            }
        }
        for words in by_bank.values() {
            degree = degree.max(words.len() as u64);
            if words.len() > 1 {
                let mut lanes: Vec<usize> = words.values().copied().collect();
                lanes.sort_unstable();
                let pair = (lanes[0], lanes[1]);
                if pair.0 != pair.1 && witness.map_or(true, |w| pair < w) {
                    witness = Some(pair);
                }
            }
        }
    }
    Ok(BankConflicts { degree, witness, lanes_per_phase: per_phase })
}

/// `(sectors, ideal)` of one global-memory warp request: the distinct 32-byte sectors its lanes touch, and the
/// fewest sectors that could hold the distinct bytes it asks for.
pub fn sectors_per_request(byte_addrs: &[u64], access_bytes: u64) -> Result<(u64, u64)> {
    check_access_bytes(access_bytes)?;
    let mut sectors = BTreeSet::new();
    let mut bytes = BTreeSet::new();
    for (lane, &addr) in byte_addrs.iter().enumerate() {
        let last = addr.checked_add(access_bytes - 1).ok_or_else(|| {
            AlgebraError::MemoryModel(format!("lane {lane}: byte address {addr} overflows"))
        })?;
        for byte in addr..=last {
            bytes.insert(byte);
        }
        for sector in addr / SECTOR_BYTES..=last / SECTOR_BYTES {
            sectors.insert(sector);
        }
    }
    let ideal = (bytes.len() as u64).div_ceil(SECTOR_BYTES);
    Ok((sectors.len() as u64, ideal))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lanes(f: impl Fn(u64) -> u64) -> Vec<u64> {
        (0..32).map(f).collect()
    }

    #[test]
    fn column_of_unpadded_fp32_tile_is_32_way() {
        let r = bank_conflict_degree(&lanes(|t| t * 128), 4, 32).unwrap();
        assert_eq!(r.degree, 32);
        assert_eq!(r.witness, Some((0, 1)));
        assert_eq!(r.describe(), "32-way bank conflict");
    }

    #[test]
    fn padded_and_swizzled_columns_are_conflict_free() {
        assert_eq!(bank_conflict_degree(&lanes(|t| t * 33 * 4), 4, 32).unwrap().degree, 1);
        // Column 5 of a 32×32 fp32 tile stored at word row*32 + (col ^ row): banks 5^row are all distinct.
        let swizzled = bank_conflict_degree(&lanes(|row| (row * 32 + (5 ^ row)) * 4), 4, 32).unwrap();
        assert_eq!(swizzled.degree, 1);
        assert_eq!(swizzled.describe(), "conflict-free");
    }

    #[test]
    fn broadcast_is_free_and_two_words_per_bank_is_two_way() {
        assert_eq!(bank_conflict_degree(&lanes(|_| 40), 4, 32).unwrap().degree, 1);
        // Stride of 2 words: lanes t and t+16 share a bank with different words.
        let r = bank_conflict_degree(&lanes(|t| t * 8), 4, 32).unwrap();
        assert_eq!(r.degree, 2);
        assert_eq!(r.witness, Some((0, 16)));
    }

    #[test]
    fn wide_accesses_are_split_into_phases() {
        // 16-byte contiguous accesses: 4 phases of 8 lanes, each phase covers all 32 banks once.
        let r = bank_conflict_degree(&lanes(|t| t * 16), 16, 32).unwrap();
        assert_eq!((r.degree, r.lanes_per_phase), (1, 8));
        // 8-byte accesses with a 2-row stride of 256 bytes: in each 16-lane phase every lane hits banks 0..1.
        let r = bank_conflict_degree(&lanes(|t| t * 256), 8, 32).unwrap();
        assert_eq!((r.degree, r.lanes_per_phase), (16, 16));
        // Half-word accesses: two lanes share one word without conflict.
        assert_eq!(bank_conflict_degree(&lanes(|t| t * 2), 2, 32).unwrap().degree, 1);
    }

    #[test]
    fn sectors_count_distinct_sectors_against_the_ideal() {
        assert_eq!(sectors_per_request(&lanes(|t| t * 4), 4).unwrap(), (4, 4));
        assert_eq!(sectors_per_request(&lanes(|t| t * 16), 16).unwrap(), (16, 16));
        // Column of a row-major fp32 matrix with 1024-byte rows: a sector per lane.
        assert_eq!(sectors_per_request(&lanes(|t| t * 1024), 4).unwrap(), (32, 4));
        // Misaligned contiguous run: 128 bytes from byte 16 span 5 sectors.
        assert_eq!(sectors_per_request(&lanes(|t| 16 + t * 4), 4).unwrap(), (5, 4));
    }

    #[test]
    fn inactive_lanes_access_nothing_and_keep_the_phases() {
        // Column of an unpadded fp32 tile with only the even lanes active: 16 words in bank 0, 16-way.
        let even: Vec<Option<u64>> = (0..32).map(|t| (t % 2 == 0).then_some(t * 128)).collect();
        let r = bank_conflict_degree_of_lanes(&even, 4, 32).unwrap();
        assert_eq!((r.degree, r.witness), (16, Some((0, 2))));
        // 16-byte accesses, lanes 0 and 8 at words 0 and 32: different phases (0 and 1), so conflict-free even
        // with lanes 1..7 inactive; packing the active lanes would have put them in one phase (2-way).
        let mut wide = vec![None; 32];
        wide[0] = Some(0);
        wide[8] = Some(128);
        assert_eq!(bank_conflict_degree_of_lanes(&wide, 16, 32).unwrap().degree, 1);
        assert_eq!(bank_conflict_degree_of_lanes(&[None; 32], 4, 32).unwrap().degree, 0);
    }

    #[test]
    fn bad_widths_are_errors_not_panics() {
        assert!(bank_conflict_degree(&[0], 3, 32).is_err());
        assert!(bank_conflict_degree(&[0], 4, 0).is_err());
        assert!(sectors_per_request(&[u64::MAX], 4).is_err());
    }
}
