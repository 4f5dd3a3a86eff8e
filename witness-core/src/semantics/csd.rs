//! Decision 229: a product with a constant, `x * c`, rewritten as the fewest shifted additions and
//! subtractions of `x` (c's non-adjacent form, a canonical signed-digit code) before a query is
//! bit-blasted. Z3 4.8.12 blasts `x * c` as one adder per set bit of `c`: `i * 4294967295`, the
//! bound of SV-COMP's `linear-inequality-inv-d`, becomes 32 chained 64-bit adders, and whether the
//! SAT solver proves the induction step in 2 s or 15 s depends on its seed. The same product as
//! `(i << 32) - i` is one subtractor, decided in about 0.3 s whatever the seed.
//!
//! The rewrite is an identity of arithmetic modulo 2^w: Σ dₖ·2ᵏ ≡ c (mod 2^w) with dₖ ∈ {−1, 0, 1},
//! so `x * c` and `Σ dₖ·(x << k)` are equal for every `x`. A query keeps its symbols, so a model
//! of the rewritten query is one of the original.

use std::collections::HashMap;

use z3::ast::{Ast, Bool, Dynamic, BV};
use z3::DeclKind;

/// Most nodes of a query the rewrite walks; a larger one is asked as it is.
const MAX_NODES: usize = 200_000;

/// The non-adjacent form of `c` modulo 2^`width` (width ≤ 64): (shift, +1 or −1) digits, no two
/// adjacent, lowest first. Digits at 2^width or above are multiples of 2^width: dropped.
pub fn naf(c: u64, width: u32) -> Vec<(u32, i8)> {
    let mut rest = c as u128;
    let mut out = Vec::new();
    let mut k = 0;
    while rest != 0 && k < width {
        if rest & 1 == 1 {
            // 1 when rest ≡ 1 (mod 4), −1 when rest ≡ 3 (mod 4): the next bit becomes 0.
            let d: i8 = if rest & 3 == 1 { 1 } else { -1 };
            rest = if d == 1 { rest - 1 } else { rest + 1 };
            out.push((k, d));
        }
        rest >>= 1;
        k += 1;
    }
    out
}

/// `x * c` as shifted sums of `x`, where that needs fewer adders than `c` has set bits.
fn shifted_sum(x: &BV, c: u64, width: u32) -> Option<BV> {
    let digits = naf(c, width);
    if digits.is_empty() || digits.len() >= c.count_ones() as usize {
        return None;
    }
    let shifted = |k: u32| if k == 0 { x.clone() } else { x.bvshl(BV::from_u64(u64::from(k), width)) };
    let plus: Vec<BV> = digits.iter().filter(|(_, d)| *d > 0).map(|(k, _)| shifted(*k)).collect();
    let minus: Vec<BV> = digits.iter().filter(|(_, d)| *d < 0).map(|(k, _)| shifted(*k)).collect();
    let mut sum = plus.into_iter().reduce(|a, b| a.bvadd(&b)).unwrap_or_else(|| BV::from_u64(0, width));
    for m in minus {
        sum = sum.bvsub(&m);
    }
    Some(sum)
}

/// The constant factor of a two-operand product and the other operand.
fn constant_product(t: &Dynamic, children: &[Dynamic]) -> Option<(BV, u64, u32)> {
    if children.len() != 2 || t.decl().kind() != DeclKind::BMUL {
        return None;
    }
    let (a, b) = (children[0].as_bv()?, children[1].as_bv()?);
    let width = a.get_size();
    if width > 64 {
        return None;
    }
    match (a.as_u64(), b.as_u64()) {
        (Some(c), None) => Some((b, c, width)),
        (None, Some(c)) => Some((a, c, width)),
        _ => None,
    }
}

/// The conjuncts with every product by a constant that gains by it rewritten (module comment);
/// `None` when none does (or the query is too large to walk), so the caller asks the original.
pub fn rewrite(terms: &[Bool]) -> Option<Vec<Bool>> {
    // Post-order over the DAG with an explicit stack: terms can be deeper than the thread's stack.
    let mut done: HashMap<Dynamic, Dynamic> = HashMap::new();
    let mut changed = false;
    // An entry carries its children once they are on the stack above it.
    let mut stack: Vec<(Dynamic, Option<Vec<Dynamic>>)> =
        terms.iter().rev().map(|t| (Dynamic::from_ast(t), None)).collect();
    while let Some((t, expanded)) = stack.pop() {
        if done.contains_key(&t) {
            continue;
        }
        let children = match expanded {
            Some(children) => children,
            None if !t.is_app() || t.num_children() == 0 => {
                done.insert(t.clone(), t);
                continue;
            }
            None => {
                if done.len() + stack.len() > MAX_NODES {
                    return None;
                }
                let children = t.children();
                let todo: Vec<Dynamic> = children.iter().filter(|c| !done.contains_key(*c)).cloned().collect();
                stack.push((t, Some(children)));
                stack.extend(todo.into_iter().map(|c| (c, None)));
                continue;
            }
        };
        let new: Vec<Dynamic> = children.iter().map(|c| done.get(c).cloned().unwrap_or_else(|| c.clone())).collect();
        let rebuilt = match constant_product(&t, &new).and_then(|(x, c, w)| shifted_sum(&x, c, w)) {
            Some(sum) => {
                changed = true;
                Dynamic::from_ast(&sum)
            }
            None if new == children => t.clone(),
            None => {
                let args: Vec<&dyn Ast> = new.iter().map(|c| c as &dyn Ast).collect();
                t.decl().apply(&args)
            }
        };
        done.insert(t, rebuilt);
    }
    if !changed {
        return None;
    }
    terms.iter().map(|t| done.get(&Dynamic::from_ast(t)).and_then(|d| d.as_bool())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use z3::{SatResult, Solver};

    fn value(digits: &[(u32, i8)], width: u32) -> u64 {
        let m = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
        digits.iter().fold(0u64, |acc, (k, d)| {
            let p = 1u64.wrapping_shl(*k);
            if *d > 0 {
                acc.wrapping_add(p)
            } else {
                acc.wrapping_sub(p)
            }
        }) & m
    }

    #[test]
    fn the_bound_of_linear_inequality_is_one_subtraction() {
        assert_eq!(naf(0xffff_ffff, 64), vec![(0, -1), (32, 1)]);
        assert_eq!(naf(u64::MAX, 64), vec![(0, -1)]);
        assert_eq!(naf(7, 8), vec![(0, -1), (3, 1)]);
        assert_eq!(naf(0, 32), vec![]);
    }

    proptest! {
        /// Law: the digits are worth c modulo 2^w, none adjacent, never more than c's set bits.
        #[test]
        fn naf_is_worth_c(c in any::<u64>(), w in prop::sample::select(vec![8u32, 16, 32, 64])) {
            let c = if w == 64 { c } else { c & ((1u64 << w) - 1) };
            let d = naf(c, w);
            prop_assert_eq!(value(&d, w), c);
            prop_assert!(d.windows(2).all(|p| p[1].0 > p[0].0 + 1));
            prop_assert!(d.len() <= c.count_ones() as usize + 1);
        }

        /// Law: the rewritten query means what the original does, for products nested in sums
        /// and in each other, evaluated on sampled values at 8, 32 and 64 bits.
        #[test]
        fn rewriting_keeps_the_meaning(
            c in any::<u64>(),
            d in any::<u64>(),
            w in prop::sample::select(vec![8u32, 32, 64]),
            xv in any::<u64>(),
            yv in any::<u64>(),
        ) {
            let m = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
            let x = BV::new_const("csd_x", w);
            let y = BV::new_const("csd_y", w);
            let outer = x.bvmul(BV::from_u64(c & m, w)).bvadd(&y).bvmul(BV::from_u64(d & m, w));
            let f = outer.bvule(&x);
            let Some(r) = rewrite(std::slice::from_ref(&f)) else { return Ok(()) };
            let at = [(&x, &BV::from_u64(xv & m, w)), (&y, &BV::from_u64(yv & m, w))];
            let want = f.substitute(&at).simplify().as_bool();
            prop_assert!(want.is_some());
            prop_assert_eq!(r[0].substitute(&at).simplify().as_bool(), want);
        }

        /// Law: at 8 bits, Z3 proves a product and its shifted sum equal for every value.
        #[test]
        fn a_shifted_sum_is_the_product(c in any::<u8>()) {
            let x = BV::new_const("csd_p", 8);
            if let Some(sum) = shifted_sum(&x, u64::from(c), 8) {
                let s = Solver::new();
                s.assert(x.bvmul(BV::from_u64(u64::from(c), 8)).eq(&sum).not());
                prop_assert_eq!(s.check(), SatResult::Unsat);
            }
        }
    }

    #[test]
    fn a_query_without_a_gainful_product_is_left_alone() {
        let x = BV::new_const("csd_plain", 32);
        let f = x.bvmul(BV::from_u64(3, 32)).bvugt(&x);
        assert!(rewrite(&[f]).is_none());
        let g = x.bvmul(BV::from_u64(0xffff, 32)).bvugt(&x);
        let r = rewrite(std::slice::from_ref(&g)).expect("0xffff is 2^16 - 1");
        assert!(!r[0].to_string().contains("bvmul"), "{}", r[0]);
    }
}
