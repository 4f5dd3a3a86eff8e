//! Conservative value ranges of Z3 bit-vector terms, computed from the term's structure.
//!
//! Used to decide cheap questions without the solver: a sum of two zero-extended `char`s cannot
//! overflow an `int`; `(int)c > 300` is false for an `unsigned char c`. The ranges are sound
//! over-approximations: every value the term can take lies inside; when in doubt, the full range
//! of the width is returned.

use z3::ast::{Ast, BV};
use z3::DeclKind;

/// Ranges of a term read as unsigned and as signed two's complement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    pub unsigned: (u128, u128),
    pub signed: (i128, i128),
}

impl Bounds {
    fn full(width: u32) -> Bounds {
        let w = width.min(64);
        Bounds { unsigned: (0, (1u128 << w) - 1), signed: (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1) }
    }

    /// Bounds from an unsigned range of a `width`-bit value.
    fn from_unsigned(lo: u128, hi: u128, width: u32) -> Bounds {
        let full = Bounds::full(width);
        if lo > hi || hi > full.unsigned.1 {
            return full;
        }
        let half = 1u128 << (width - 1);
        let signed = if hi < half {
            (lo as i128, hi as i128)
        } else if lo >= half {
            (lo as i128 - (1i128 << width), hi as i128 - (1i128 << width))
        } else {
            full.signed
        };
        Bounds { unsigned: (lo, hi), signed }
    }

    /// Bounds from a signed range of a `width`-bit value.
    fn from_signed(lo: i128, hi: i128, width: u32) -> Bounds {
        let full = Bounds::full(width);
        if lo > hi || lo < full.signed.0 || hi > full.signed.1 {
            return full;
        }
        let unsigned = if lo >= 0 {
            (lo as u128, hi as u128)
        } else if hi < 0 {
            ((lo + (1i128 << width)) as u128, (hi + (1i128 << width)) as u128)
        } else {
            full.unsigned
        };
        Bounds { unsigned, signed: (lo, hi) }
    }

    fn union(a: Bounds, b: Bounds) -> Bounds {
        Bounds {
            unsigned: (a.unsigned.0.min(b.unsigned.0), a.unsigned.1.max(b.unsigned.1)),
            signed: (a.signed.0.min(b.signed.0), a.signed.1.max(b.signed.1)),
        }
    }
}

/// Depth to which the term structure is followed (terms are DAGs; this keeps the walk small).
const MAX_DEPTH: u32 = 10;

/// Conservative bounds of a bit-vector term (width at most 64).
pub fn bounds(t: &BV) -> Bounds {
    bounds_at(t, MAX_DEPTH)
}

fn child(t: &BV, i: usize) -> Option<BV> {
    t.nth_child(i)?.as_bv()
}

fn bounds_at(t: &BV, depth: u32) -> Bounds {
    let width = t.get_size();
    if width == 0 || width > 64 {
        return Bounds::full(64);
    }
    if let Some(v) = t.as_u64() {
        return Bounds::from_unsigned(v as u128, v as u128, width);
    }
    let full = Bounds::full(width);
    if depth == 0 || !t.is_app() {
        return full;
    }
    let kind = t.decl().kind();
    let n = t.num_children();
    let sub = |i: usize| child(t, i).map(|c| bounds_at(&c, depth - 1));
    match (kind, n) {
        (DeclKind::ZERO_EXT, 1) => match sub(0) {
            Some(b) => Bounds::from_unsigned(b.unsigned.0, b.unsigned.1, width),
            None => full,
        },
        (DeclKind::SIGN_EXT, 1) => match sub(0) {
            Some(b) => Bounds::from_signed(b.signed.0, b.signed.1, width),
            None => full,
        },
        (DeclKind::CONCAT, 2) => {
            let (Some(hi), Some(lo), Some(lo_t)) = (sub(0), sub(1), child(t, 1)) else { return full };
            let shift = lo_t.get_size();
            Bounds::from_unsigned(
                (hi.unsigned.0 << shift) + lo.unsigned.0,
                (hi.unsigned.1 << shift) + lo.unsigned.1,
                width,
            )
        }
        (DeclKind::BADD, 2) | (DeclKind::BSUB, 2) | (DeclKind::BMUL, 2) => {
            let (Some(a), Some(b)) = (sub(0), sub(1)) else { return full };
            let (u, s) = match kind {
                DeclKind::BADD => (
                    (a.unsigned.0 + b.unsigned.0, a.unsigned.1 + b.unsigned.1),
                    (a.signed.0 + b.signed.0, a.signed.1 + b.signed.1),
                ),
                DeclKind::BSUB => (
                    (a.unsigned.0.saturating_sub(b.unsigned.1), a.unsigned.1.saturating_sub(b.unsigned.0)),
                    (a.signed.0 - b.signed.1, a.signed.1 - b.signed.0),
                ),
                _ => {
                    let p = [
                        a.signed.0 * b.signed.0,
                        a.signed.0 * b.signed.1,
                        a.signed.1 * b.signed.0,
                        a.signed.1 * b.signed.1,
                    ];
                    (
                        (a.unsigned.0 * b.unsigned.0, a.unsigned.1.saturating_mul(b.unsigned.1)),
                        (*p.iter().min().unwrap_or(&0), *p.iter().max().unwrap_or(&0)),
                    )
                }
            };
            // Unsigned subtraction that may go below zero wraps: give up on the unsigned side.
            let unsigned_ok = kind != DeclKind::BSUB || a.unsigned.0 >= b.unsigned.1;
            let from_u = if unsigned_ok { Some(Bounds::from_unsigned(u.0, u.1, width)) } else { None };
            let from_s = Bounds::from_signed(s.0, s.1, width);
            match from_u {
                // Both views are sound; keep the tighter of each.
                Some(fu) if fu != full => Bounds {
                    unsigned: if from_s.unsigned != full.unsigned {
                        tighter_u(fu.unsigned, from_s.unsigned)
                    } else {
                        fu.unsigned
                    },
                    signed: if from_s.signed != full.signed { tighter_s(fu.signed, from_s.signed) } else { fu.signed },
                },
                _ => from_s,
            }
        }
        (DeclKind::ITE, 3) => {
            let (Some(a), Some(b)) = (sub(1), sub(2)) else { return full };
            Bounds::union(a, b)
        }
        (DeclKind::BAND, 2) => {
            let (Some(a), Some(b)) = (sub(0), sub(1)) else { return full };
            Bounds::from_unsigned(0, a.unsigned.1.min(b.unsigned.1), width)
        }
        _ => full,
    }
}

fn tighter_u(a: (u128, u128), b: (u128, u128)) -> (u128, u128) {
    (a.0.max(b.0), a.1.min(b.1))
}

fn tighter_s(a: (i128, i128), b: (i128, i128)) -> (i128, i128) {
    (a.0.max(b.0), a.1.min(b.1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use z3::ast::Ast;

    fn sym8(name: &str) -> BV {
        BV::new_const(name, 8)
    }

    #[test]
    fn widened_chars_do_not_overflow_int() {
        let s = sym8("s").zero_ext(24);
        let v = sym8("v").zero_ext(24);
        let b = bounds(&s.bvadd(&v));
        assert_eq!(b.signed, (0, 510));
        let c = sym8("c").sign_ext(24);
        assert_eq!(bounds(&c).signed, (-128, 127));
    }

    proptest! {
        /// Law: every value a term takes lies inside its bounds.
        #[test]
        fn bounds_contain_every_value(x in any::<u8>(), y in any::<u8>(), op in 0usize..5, ext in 0usize..2) {
            let (sx, sy) = (sym8("bx"), sym8("by"));
            let widen = |t: &BV| if ext == 0 { t.zero_ext(24) } else { t.sign_ext(24) };
            let (a, b) = (widen(&sx), widen(&sy));
            let t = match op {
                0 => a.bvadd(&b),
                1 => a.bvsub(&b),
                2 => a.bvmul(&b),
                3 => a.bvand(&b),
                _ => sx.concat(&sy),
            };
            for t in [t.clone(), t.simplify()] {
            let bd = bounds(&t);
            let ground = t.substitute(&[(&sx, &BV::from_u64(x as u64, 8)), (&sy, &BV::from_u64(y as u64, 8))]).simplify();
            let u = ground.as_u64().unwrap() as u128;
            let w = t.get_size();
            let s = if w < 128 && u >> (w - 1) == 1 { u as i128 - (1i128 << w) } else { u as i128 };
            prop_assert!(bd.unsigned.0 <= u && u <= bd.unsigned.1, "{u} not in {:?}", bd.unsigned);
            prop_assert!(bd.signed.0 <= s && s <= bd.signed.1, "{s} not in {:?}", bd.signed);
            }
        }
    }
}
