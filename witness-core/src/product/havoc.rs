//! A state made general (decision 96, reused by issue 23's induction): every integer variable
//! and every array cell a path has touched becomes a fresh symbol, with an empty path
//! condition; cells never touched stay untouched (any value when read). An array of more than
//! 4096 cells becomes one fresh SMT array instead (decision 204). Used where a check
//! must hold for every state of a shape, not only for the one a run reached: a recurrent set's
//! closure, an invariant's induction step.

use super::*;
use crate::cfa::VarId;
use crate::semantics::Slot;
use std::collections::BTreeMap;

/// `s` with every value general, and for each new symbol the equation with the value it
/// replaces (to show the run `s` itself took). Why not, if `s` holds what this cannot make
/// general (floats, pointers, memory objects, approximations, a returned value, heap blocks) or
/// more than `max_cells` values; `place` names where `s` is, for that message.
pub(super) fn generalise(s: &ProductState, max_cells: usize, place: &str) -> Result<(ProductState, Vec<Bool>), String> {
    let mut g = s.clone();
    if !g.data.approx.is_empty() || !g.data.layout.is_empty() || !g.data.unspecified.is_empty() {
        return Err("approximated values or addresses as integers".into());
    }
    if g.returned.is_some() || !g.data.heap.is_empty() {
        return Err(format!("a returned value or heap memory {place}"));
    }
    g.data.path = Default::default();
    let cells = |slots: &BTreeMap<VarId, Slot>| -> usize {
        slots
            .values()
            .map(|s| match s {
                Slot::Array { cells, .. } if cells.len() <= DataState::MAX_GENERAL_CELLS => cells.len(),
                _ => 1,
            })
            .sum()
    };
    let total = cells(&g.data.globals) + g.data.frames.iter().map(|f| cells(&f.locals)).sum::<usize>();
    if total > max_cells {
        return Err(format!("more than {max_cells} variables and array cells"));
    }
    let mut ok = true;
    // `links`: each new symbol equals the value it replaces in `s` (only for the trace).
    let mut links: Vec<Bool> = Vec::new();
    let mut general = |slots: &mut BTreeMap<VarId, Slot>, data: &mut DataState| {
        for slot in slots.values_mut() {
            match slot {
                Slot::Scalar(v) => {
                    let new = data.symbol("rec", v.ty);
                    links.push(v.term().eq(new.term()));
                    *v = new;
                }
                // Decision 204: a long array is one SMT array, whatever its cells held.
                Slot::Array { elem, cells } if cells.len() > DataState::MAX_GENERAL_CELLS => {
                    *slot = data.symbolic_array("rec", *elem);
                }
                Slot::SymArray { elem, .. } => *slot = data.symbolic_array("rec", *elem),
                Slot::Array { elem, cells } => {
                    let elem = *elem;
                    let new: Vec<Option<Val>> = cells
                        .iter()
                        .map(|c| {
                            c.as_ref().map(|old| {
                                let new = data.symbol("rec", elem);
                                let old = Value { val: old.clone(), ty: elem };
                                links.push(old.term().eq(new.term()));
                                new.val
                            })
                        })
                        .collect();
                    *cells = Rc::new(new);
                }
                Slot::PtrUninit | Slot::Opaque | Slot::External => {}
                _ => ok = false,
            }
        }
    };
    let mut data = g.data.clone();
    let mut globals = (*g.data.globals).clone();
    general(&mut globals, &mut data);
    let mut frames = (*g.data.frames).clone();
    for f in frames.iter_mut() {
        let mut locals = (*f.locals).clone();
        general(&mut locals, &mut data);
        f.locals = Rc::new(locals);
        // The formals at entry a postcondition reads (decision 231): as general as the rest.
        if let Some(entry) = &f.entry {
            let mut entry = (**entry).clone();
            general(&mut entry, &mut data);
            f.entry = Some(Rc::new(entry));
        }
    }
    if !ok {
        return Err(format!("floats, pointers or memory objects {place}"));
    }
    data.globals = Rc::new(globals);
    data.frames = Rc::new(frames);
    g.data = data;
    Ok((g, links))
}

/// Gives each of `vars` (globals of `data`) a fresh, unconstrained value: what code the search
/// does not see may have written (decisions 227, 228). Integers and integer arrays only; the
/// first variable of another kind is the error (a pointer could have been made to point
/// anywhere). Opaque and external variables stay as they are (any access to them is unsupported
/// anyway).
pub(super) fn havoc_globals(data: &mut DataState, vars: &[VarId]) -> Result<(), VarId> {
    let mut globals = (*data.globals).clone();
    for v in vars {
        let Some(slot) = globals.get_mut(v) else { continue };
        match slot {
            Slot::Scalar(old) => *old = data.symbol("env", old.ty),
            Slot::Array { elem, .. } | Slot::SymArray { elem, .. } => {
                let elem = *elem;
                *slot = data.symbolic_array("env", elem);
            }
            Slot::Opaque | Slot::External => {}
            _ => return Err(*v),
        }
    }
    data.globals = Rc::new(globals);
    Ok(())
}
