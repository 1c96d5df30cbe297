//! The size bound of a layout and exact (arbitrary-precision) element counts.
//!
//! Every layout's element count must be at most [`MAX_ELEMENTS`] = 2^63 − 1. For a layout whose count fits,
//! every index, stride, flat position and partial product of sizes is below 2^63, so it is the same number
//! whether the `index` arithmetic of a lowering is read as signed or unsigned (semantics.md: index
//! arithmetic does not wrap, no value reaches 2^63). Counts are computed exactly, never modulo 2^64: a
//! product that wraps could otherwise "match" another size (`[2^62 + 1, 4]` has 2^64 + 4 elements, 4 modulo
//! 2^64), and diagnostics name the exact count.

use std::fmt;

/// The largest element count of a layout: 2^63 − 1, the largest value signed and unsigned 64-bit index
/// arithmetic agree on.
pub const MAX_ELEMENTS: u64 = i64::MAX as u64;

/// The reason text for a layout with too many elements, shared by the dialect verifier and
/// [`crate::AlgebraError::TooManyElements`] (MLIR prefixes it with `'lego.<op>' op `). With `at_least`,
/// `count` is the product of the sizes known at compile time (a lower bound: sizes are ≥ 1).
pub fn too_many_elements(count: &ElementCount, at_least: bool) -> String {
    let at_least = if at_least { "at least " } else { "" };
    let count = count.abbreviated();
    format!(
        "has {at_least}{count} elements, more than 2^63 - 1, the most a layout may have (its indices, strides \
         and sizes must stay below 2^63, where signed and unsigned index arithmetic agree)"
    )
}

/// Numbers with more decimal digits than this are abbreviated in diagnostics ([`abbreviate_decimal`]): a
/// 10 000-level `order_by` of `row [2]` has a 3 011-digit count, which helps no reader in full.
pub const FULL_DIGITS: usize = 40;

/// `text` (decimal digits) as a diagnostic shows it: in full up to [`FULL_DIGITS`] digits, else its first and
/// last ten digits and the digit count, `1995063116…4596709376 (3011 digits)`. Text that is not all ASCII
/// digits (a sign, a hex literal) is shortened the same way by characters.
pub fn abbreviate_decimal(text: &str) -> String {
    let length = text.chars().count();
    if length <= FULL_DIGITS {
        return text.to_string();
    }
    let head: String = text.chars().take(10).collect();
    let tail: String = text.chars().skip(length - 10).collect();
    let unit = if text.bytes().all(|byte| byte.is_ascii_digit()) { "digits" } else { "characters" };
    format!("{head}…{tail} ({length} {unit})")
}

/// A product of sizes, exact at any magnitude (little-endian base-2^32 digits, no leading zero digit).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ElementCount {
    digits: Vec<u32>,
}

impl Default for ElementCount {
    fn default() -> Self {
        ElementCount::one()
    }
}

impl ElementCount {
    /// The empty product.
    pub fn one() -> Self {
        ElementCount { digits: vec![1] }
    }

    /// `Π sizes`, exactly.
    pub fn of(sizes: impl IntoIterator<Item = u64>) -> Self {
        let mut count = ElementCount::one();
        for size in sizes {
            count.multiply(size);
        }
        count
    }

    /// `self · factor`, exactly.
    pub fn multiply(&mut self, factor: u64) {
        if factor == 0 {
            self.digits = vec![0];
            return;
        }
        let mut product = vec![0u32; self.digits.len() + 2];
        for (k, part) in [factor as u32, (factor >> 32) as u32].into_iter().enumerate() {
            let mut carry = 0u64;
            for (j, digit) in self.digits.iter().enumerate() {
                let sum = u64::from(*digit) * u64::from(part) + u64::from(product[j + k]) + carry;
                product[j + k] = sum as u32;
                carry = sum >> 32;
            }
            let mut position = self.digits.len() + k;
            while carry > 0 {
                let sum = u64::from(product[position]) + carry;
                product[position] = sum as u32;
                carry = sum >> 32;
                position += 1;
            }
        }
        while product.len() > 1 && product.last() == Some(&0) {
            product.pop();
        }
        self.digits = product;
    }

    /// The count, when it fits in a `u64`.
    pub fn to_u64(&self) -> Option<u64> {
        match self.digits.as_slice() {
            [low] => Some(u64::from(*low)),
            [low, high] => Some(u64::from(*low) | (u64::from(*high) << 32)),
            _ => None,
        }
    }

    /// `k` when the count is 2^k.
    pub fn power_of_two(&self) -> Option<u32> {
        let (top, lower) = self.digits.split_last()?;
        (top.is_power_of_two() && lower.iter().all(|digit| *digit == 0))
            .then(|| 32 * (lower.len() as u32) + top.trailing_zeros())
    }

    /// The count as diagnostics print it: in full up to [`FULL_DIGITS`] digits; beyond, `2^k` for a power of
    /// two, else [`abbreviate_decimal`]'s first and last digits with the digit count.
    pub fn abbreviated(&self) -> String {
        let decimal = self.to_string();
        if decimal.len() <= FULL_DIGITS {
            return decimal;
        }
        match self.power_of_two() {
            Some(exponent) => format!("2^{exponent}"),
            None => abbreviate_decimal(&decimal),
        }
    }

    /// Whether the count is at most [`MAX_ELEMENTS`].
    pub fn fits(&self) -> bool {
        self.to_u64().is_some_and(|count| count <= MAX_ELEMENTS)
    }
}

impl fmt::Display for ElementCount {
    /// Decimal, by repeated division by 10^9.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const CHUNK: u64 = 1_000_000_000;
        let mut digits = self.digits.clone();
        let mut chunks = Vec::new();
        loop {
            let mut remainder = 0u64;
            for digit in digits.iter_mut().rev() {
                let value = (remainder << 32) | u64::from(*digit);
                *digit = (value / CHUNK) as u32;
                remainder = value % CHUNK;
            }
            chunks.push(remainder);
            while digits.len() > 1 && digits.last() == Some(&0) {
                digits.pop();
            }
            if digits == [0] {
                break;
            }
        }
        let mut chunks = chunks.into_iter().rev();
        write!(f, "{}", chunks.next().unwrap_or(0))?;
        for chunk in chunks {
            write!(f, "{chunk:09}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_products_print_in_decimal() {
        assert_eq!(ElementCount::one().to_string(), "1");
        assert_eq!(ElementCount::of([24]).to_string(), "24");
        assert_eq!(ElementCount::of([0, 5]).to_string(), "0");
        assert_eq!(ElementCount::of([1 << 62, 8]).to_string(), "36893488147419103232"); // 2^65
        assert_eq!(ElementCount::of([(1 << 62) + 1, 4]).to_string(), "18446744073709551620"); // 2^64 + 4
        assert_eq!(ElementCount::of([1 << 62, 1 << 62]).to_string(), "21267647932558653966460912964485513216"); // 2^124
        assert_eq!(ElementCount::of([u64::MAX, u64::MAX]).to_string(), (u128::MAX - 2 * u128::from(u64::MAX)).to_string());
        assert_eq!(ElementCount::of([1_000_000_000, 1_000_000_000, 7]).to_string(), "7000000000000000000");
        // 2^192, against a hand-computed value.
        assert_eq!(
            ElementCount::of([1 << 63, 1 << 63, 1 << 63, 8]).to_string(),
            "6277101735386680763835789423207666416102355444464034512896"
        );
    }

    #[test]
    fn huge_counts_are_abbreviated() {
        // Up to 40 digits in full (2^124 has 38), powers of two beyond as 2^k.
        assert_eq!(ElementCount::of([1 << 62, 1 << 62]).abbreviated(), "21267647932558653966460912964485513216");
        assert_eq!(ElementCount::of([2; 10_000]).abbreviated(), "2^10000");
        assert_eq!(ElementCount::of([1 << 32; 5]).abbreviated(), "2^160");
        assert_eq!(ElementCount::of([2; 10_000]).power_of_two(), Some(10_000));
        assert_eq!(ElementCount::of([3, 1 << 40]).power_of_two(), None);
        // 3^100 = 515377520732011331036461129765621272702107522001 (48 digits, by hand: Python's 3**100).
        assert_eq!(ElementCount::of([3; 100]).to_string(), "515377520732011331036461129765621272702107522001");
        assert_eq!(ElementCount::of([3; 100]).abbreviated(), "5153775207…2107522001 (48 digits)");
        assert_eq!(abbreviate_decimal("12345"), "12345");
        assert_eq!(abbreviate_decimal(&"9".repeat(5000)), "9999999999…9999999999 (5000 digits)");
        assert_eq!(abbreviate_decimal(&format!("-{}", "1".repeat(49))), "-111111111…1111111111 (50 characters)");
    }

    #[test]
    fn the_bound_is_two_to_the_63_minus_one() {
        assert_eq!(MAX_ELEMENTS, (1 << 63) - 1);
        assert!(ElementCount::of([MAX_ELEMENTS]).fits());
        assert!(ElementCount::of([1 << 31, 1 << 31]).fits()); // 2^62
        assert!(!ElementCount::of([1 << 62, 2]).fits()); // 2^63
        assert!(!ElementCount::of([1 << 63]).fits());
        assert!(!ElementCount::of([(1 << 62) + 1, 4]).fits()); // 4 modulo 2^64
        assert_eq!(ElementCount::of([1 << 62, 2]).to_u64(), Some(1 << 63));
        assert_eq!(ElementCount::of([1 << 32, 1 << 32]).to_u64(), None);
    }
}
