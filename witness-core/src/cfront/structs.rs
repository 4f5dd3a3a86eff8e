//! The struct type registry of the front end and the flattening of struct variables.
//!
//! Structs have value semantics only (no pointers yet), so a struct variable is *flattened*:
//! besides its own (unsupported-typed) variable, it gets one variable per leaf field, named by
//! its access path (`s.a`, `s.in.x`, `s.arr`). Member accesses lower to these variables, and
//! witness assumptions find them by name. Unions are not flattened: their members overlap, and
//! type punning needs a byte-level memory model.

use std::collections::HashMap;

use super::types::Ty;
use crate::cfa::DataModel;

/// A field of a struct definition.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    /// The field's type; for a bit-field the integer type of the bit-field's width and
    /// signedness (`int a : 3` is a signed 3-bit integer, `_Bool b : 1` a `_Bool`).
    pub ty: Ty,
    /// Declared width of a bit-field.
    pub bit_width: Option<u32>,
    /// The declared type (for a bit-field, the type of its storage unit: `int` for `int a : 3`).
    pub declared: Ty,
}

/// Struct definitions by key (`struct tag`, or `struct <anonymous@N>` for untagged ones).
/// A key without definition (incomplete type) is absent.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    pub defs: HashMap<String, Vec<Field>>,
    /// Set when the program has a `packed`/`aligned` attribute (decision 57): struct and union
    /// layouts are then not known (gcc's layout would change in a way not modelled).
    pub layout_taint: Option<String>,
    /// Struct and union types whose own definition carries such an attribute (decision 57):
    /// their layout, and that of every type containing them, is not known.
    pub tainted: HashMap<String, String>,
}

/// A leaf of a flattened struct: its access path relative to the struct (`.a`, `.in.x`) and type.
pub type Leaf = (String, Ty);

impl Registry {
    /// The fields of a struct type, if it is a complete (defined) struct.
    pub fn fields(&self, ty: &Ty) -> Option<&[Field]> {
        match ty {
            Ty::Struct(key) => self.defs.get(key).map(|v| v.as_slice()),
            _ => None,
        }
    }

    /// The leaves of a struct type, depth first in declaration order. Leaves of types the
    /// semantics does not model (pointers, unions, arrays of structs) are kept, so that only
    /// their use is unsupported. `Err` for an incomplete struct type.
    pub fn leaves(&self, ty: &Ty) -> Result<Vec<Leaf>, String> {
        let mut out = Vec::new();
        self.collect(ty, String::new(), &mut out, 0)?;
        Ok(out)
    }

    fn collect(&self, ty: &Ty, prefix: String, out: &mut Vec<Leaf>, depth: u32) -> Result<(), String> {
        if depth > 32 {
            return Err("struct nesting too deep".into());
        }
        match ty {
            Ty::Struct(key) if key.starts_with("struct ") => {
                let fields = self.defs.get(key).ok_or_else(|| format!("incomplete type {key}"))?;
                for f in fields.iter().filter(|f| !f.name.is_empty()) {
                    self.collect(&f.ty, format!("{prefix}.{}", f.name), out, depth + 1)?;
                }
                Ok(())
            }
            other => {
                out.push((prefix, other.clone()));
                Ok(())
            }
        }
    }

    /// The bit-field leaves of a struct type by access path (as [`leaves`](Self::leaves) names
    /// them), each with the number of its *memory location* (C11 3.14: a maximal sequence of
    /// adjacent bit-fields all of nonzero width; a zero-width bit-field or another member ends
    /// it). Two bit-fields with the same number are one memory location: writing one while
    /// another thread accesses the other is a data race (issue 32 cause 13).
    pub fn bitfield_locations(&self, ty: &Ty) -> Vec<(String, u32)> {
        let mut out = Vec::new();
        let mut next = 0u32;
        self.runs(ty, String::new(), &mut out, &mut next, 0);
        out
    }

    fn runs(&self, ty: &Ty, prefix: String, out: &mut Vec<(String, u32)>, next: &mut u32, depth: u32) {
        let Ty::Struct(key) = ty else { return };
        let Some(fields) = self.defs.get(key).filter(|_| key.starts_with("struct ") && depth <= 32) else { return };
        let mut open = false;
        for f in fields {
            match f.bit_width {
                Some(w) if w > 0 => {
                    if !open {
                        *next += 1;
                        open = true;
                    }
                    if !f.name.is_empty() {
                        out.push((format!("{prefix}.{}", f.name), *next));
                    }
                }
                _ => {
                    open = false;
                    if !f.name.is_empty() {
                        self.runs(&f.ty, format!("{prefix}.{}", f.name), out, next, depth + 1);
                    }
                }
            }
        }
    }

    /// Whether a struct or union type has a bit-field, also in nested members (bit-fields have
    /// no byte address, so such a struct is never stored as bytes).
    pub fn has_bitfields(&self, ty: &Ty) -> bool {
        fn go(r: &Registry, ty: &Ty, depth: u32) -> bool {
            match ty {
                Ty::Struct(key) => r.defs.get(key).is_some_and(|fs| {
                    fs.iter().any(|f| f.bit_width.is_some() || (depth < 32 && go(r, &f.ty, depth + 1)))
                }),
                Ty::Array(t, _) => go(r, t, depth + 1),
                _ => false,
            }
        }
        go(self, ty, 0)
    }

    /// `(size, alignment)` of a type as gcc lays it out on x86 (bit-fields packed into units of
    /// their declared type, never straddling a unit boundary; a zero-width bit-field aligns the
    /// next field to its type's unit). `None` for types without a known layout.
    pub fn layout(&self, ty: &Ty, dm: DataModel) -> Option<(u64, u64)> {
        self.layout_depth(ty, dm, 0)
    }

    fn layout_depth(&self, ty: &Ty, dm: DataModel, depth: u32) -> Option<(u64, u64)> {
        if depth > 32 {
            return None;
        }
        if let Ty::Struct(key) = ty {
            if self.layout_taint.is_some() || self.tainted.contains_key(key) {
                return None;
            }
        }
        match ty {
            Ty::Struct(key) if key.starts_with("struct ") => {
                let fields = self.defs.get(key)?;
                let mut bit: u64 = 0; // offset in bits
                let mut align: u64 = 1;
                for f in fields {
                    match f.bit_width {
                        Some(w) => {
                            let (unit, a) = scalar_layout(&f.declared, dm)?;
                            let unit_bits = unit * 8;
                            let w = w as u64;
                            if w == 0 {
                                bit = bit.div_ceil(unit_bits) * unit_bits;
                                continue;
                            }
                            if bit / unit_bits != (bit + w - 1) / unit_bits {
                                bit = bit.div_ceil(unit_bits) * unit_bits;
                            }
                            bit += w;
                            align = align.max(a);
                        }
                        None => {
                            let (s, a) = self.layout_depth(&f.ty, dm, depth + 1)?;
                            bit = bit.div_ceil(a * 8) * a * 8 + s * 8;
                            align = align.max(a);
                        }
                    }
                }
                let bytes = bit.div_ceil(8);
                Some((bytes.div_ceil(align) * align, align))
            }
            Ty::Struct(key) if key.starts_with("union ") => {
                let fields = self.defs.get(key)?;
                let (mut size, mut align) = (0u64, 1u64);
                for f in fields {
                    let (s, a) = match f.bit_width {
                        Some(_) => scalar_layout(&f.declared, dm)?,
                        None => self.layout_depth(&f.ty, dm, depth + 1)?,
                    };
                    size = size.max(s);
                    align = align.max(a);
                }
                Some((size.div_ceil(align) * align, align))
            }
            Ty::Array(t, Some(n)) => {
                let (s, a) = self.layout_depth(t, dm, depth + 1)?;
                Some((s.checked_mul(*n)?, a))
            }
            other => scalar_layout(other, dm),
        }
    }
}

/// Size and (ABI, `_Alignof`) alignment of a scalar type: the i386 System V ABI aligns `long
/// long`, `double` and `long double` (12 bytes) to 4; x86-64 aligns every scalar to its size
/// (`long double`: 16) (decision 101).
fn scalar_layout(ty: &Ty, dm: DataModel) -> Option<(u64, u64)> {
    let size = ty.size(dm)?;
    let align = match (ty, dm) {
        (Ty::Int(_) | Ty::Float(_), DataModel::Ilp32) if size >= 8 => 4,
        (Ty::Int(_) | Ty::Float(_) | Ty::Pointer(_), _) => size,
        _ => return None,
    };
    Some((size, align.max(1)))
}

impl Registry {
    /// Sizes of the members of a union type, ascending and without repeats (all start at
    /// byte 0); `None` if the type is not a union or a layout is not known.
    pub fn union_member_sizes(&self, ty: &Ty, dm: DataModel) -> Option<Vec<u64>> {
        let Ty::Struct(key) = ty else { return None };
        if !key.starts_with("union ") {
            return None;
        }
        let mut sizes = Vec::new();
        for f in self.defs.get(key)? {
            let (s, _) = match f.bit_width {
                Some(_) => scalar_layout(&f.declared, dm)?,
                None => self.layout(&f.ty, dm)?,
            };
            sizes.push(s);
        }
        sizes.sort_unstable();
        sizes.dedup();
        Some(sizes)
    }

    /// Byte offset and type of member `name` of a struct or union type (`None`: no such
    /// member, an incomplete type, a bit-field, or a layout that is not known).
    pub fn member(&self, ty: &Ty, name: &str, dm: DataModel) -> Option<(u64, Ty)> {
        let Ty::Struct(key) = ty else { return None };
        if self.layout_taint.is_some() || self.tainted.contains_key(key) {
            return None;
        }
        let fields = self.defs.get(key)?;
        let union = key.starts_with("union ");
        let mut off: u64 = 0;
        for f in fields {
            if f.bit_width.is_some() {
                if f.name == name {
                    return None;
                }
                if !union {
                    // Offsets after a bit-field need the bit-level layout: not supported.
                    return None;
                }
                continue;
            }
            let (s, a) = self.layout(&f.ty, dm)?;
            let here = if union { 0 } else { off.div_ceil(a) * a };
            if f.name == name {
                return Some((here, f.ty.clone()));
            }
            off = here + s;
        }
        None
    }
}
