//! Initializers: scalars, arrays and aggregates, as writes into variables or bytes.

use super::*;

/// The expression of a scalar's initializer (`= e` or `= { e }`).
pub(super) fn scalar_init(init: &Initializer) -> R<&Node<Expression>> {
    match init {
        Initializer::Expression(e) => Ok(e),
        Initializer::List(items) => match items.first().map(|i| &i.node.initializer.node) {
            Some(Initializer::Expression(e)) => Ok(e),
            _ => Err("unsupported scalar initializer".into()),
        },
    }
}

/// Bytes of a (possibly concatenated) string literal, without the terminating NUL.
pub fn string_bytes(parts: &[String]) -> R<Vec<u8>> {
    let mut out = Vec::new();
    for p in parts {
        let body = p
            .strip_prefix('"')
            .and_then(|x| x.strip_suffix('"'))
            .ok_or_else(|| format!("string literal {p} (wide strings are not supported)"))?;
        for v in types::unescape(body)? {
            out.push(v as u8);
        }
    }
    Ok(out)
}

impl<'a> Builder<'a> {
    pub(super) fn infer_len(&mut self, elem: &Ty, init: &Initializer) -> Option<u64> {
        match init {
            Initializer::Expression(e) => match &e.node {
                Expression::StringLiteral(s) if matches!(elem, Ty::Int(t) if t.bits == 8) => {
                    Some(string_bytes(&s.node).ok()?.len() as u64 + 1)
                }
                _ => None,
            },
            Initializer::List(items) => {
                // Structs with elided braces take a number of items that depends on their
                // members: the length is not inferred (the array stays unsupported).
                let braced = items.iter().all(|i| matches!(i.node.initializer.node, Initializer::List(_)));
                if !braced
                    && !matches!(
                        elem.to_ctype(self.dm),
                        CType::Int(_) | CType::Float(_) | CType::Ptr | CType::Array { .. } | CType::FloatArray { .. }
                    )
                {
                    return None;
                }
                let sub = elem.to_ctype(self.dm).element_count().max(1);
                let mut pos: u64 = 0;
                let mut max: u64 = 0;
                for it in items {
                    if let Some(d) = it.node.designation.first() {
                        if let Designator::Index(e) = &d.node {
                            pos = self.const_eval(e).ok()? as u64;
                        } else {
                            return None;
                        }
                    }
                    pos += 1;
                    max = max.max(pos);
                }
                // With brace elision for nested arrays, items count scalars.
                let nested_braced = items.iter().all(|i| matches!(i.node.initializer.node, Initializer::List(_)));
                if sub > 1 && !nested_braced {
                    Some(max.div_ceil(sub))
                } else {
                    Some(max)
                }
            }
        }
    }

    /// Lowers an initializer for a variable of type `ty`.
    pub(super) fn initializer(&mut self, ty: &Ty, init: &Initializer) -> R<Init> {
        if matches!(ty, Ty::Struct(_)) || Self::bytes_array(ty) {
            let mut out = Vec::new();
            self.bytes_init(ty, init, 0, &mut out)?;
            return Ok(Init::Bytes(out));
        }
        match ty {
            Ty::Pointer(_) => Ok(Init::Scalar(self.ptr_expr(scalar_init(init)?)?.0)),
            Ty::Int(t) => {
                let e = scalar_init(init)?;
                let v = self.rv_any(e)?;
                Ok(Init::Scalar(v.into_int(*t)))
            }
            Ty::Float(_) if ty.float_ty().is_some() => {
                let e = scalar_init(init)?;
                let fty = ty.float_ty().ok_or("float type")?;
                Ok(Init::Scalar(self.rv_any(e)?.into_float(fty)))
            }
            Ty::Array(..) => {
                let (elem, dims) = match ty.to_ctype(self.dm) {
                    CType::Array { elem, dims } => (ScalarTy::Int(elem), dims),
                    CType::FloatArray { elem, dims } => (ScalarTy::Float(elem), dims),
                    _ => return Err(format!("array of type {} (not supported yet)", ty.describe(self.dm)).into()),
                };
                let mut out = Vec::new();
                self.fill(elem, &dims, init, 0, &mut out)?;
                out.sort_by_key(|x| x.0);
                // Later initializers of the same element win.
                let mut dedup: Vec<(u64, Expr)> = Vec::new();
                for (i, e) in out {
                    if let Some(last) = dedup.last_mut() {
                        if last.0 == i {
                            last.1 = e;
                            continue;
                        }
                    }
                    dedup.push((i, e));
                }
                let ints = dedup.iter().filter(|(_, e)| e.int_ty().is_some()).cloned();
                let floats = dedup.iter().filter(|(_, e)| e.float_ty().is_some()).cloned();
                Ok(match elem {
                    ScalarTy::Int(_) => Init::Array(ints.collect()),
                    ScalarTy::Float(_) => Init::FloatArray(floats.collect()),
                    ScalarTy::Ptr => return Err("array of pointers (not supported yet)".into()),
                })
            }
            other => Err(format!("initializer for type {} (not supported yet)", other.describe(self.dm)).into()),
        }
    }

    /// An array element's initial value, converted to the element type.
    pub(super) fn elem_init(&mut self, e: &Node<Expression>, elem: ScalarTy) -> R<Expr> {
        let v = self.rv_any(e)?;
        Ok(match elem {
            ScalarTy::Int(t) => v.into_int(t),
            ScalarTy::Float(f) => v.into_float(f),
            ScalarTy::Ptr => return Err("array of pointers (not supported yet)".into()),
        })
    }

    /// The scalars of an initializer of an object of type `ty` stored as bytes at offset
    /// `base`, with their byte offsets (C11 6.7.9: positional and one-level designated
    /// elements and members, a union's first or designated member, and brace elision, p20).
    /// Bit-fields and struct or union values are not supported yet.
    pub(super) fn bytes_init(&mut self, ty: &Ty, init: &Initializer, base: u64, out: &mut Vec<(u64, Expr)>) -> R<()> {
        match init {
            Initializer::List(items) => {
                let mut pos = 0;
                self.bytes_fill(ty, items, &mut pos, base, out, true)?;
                if pos < items.len() {
                    return Err("excess elements in an initializer".into());
                }
                Ok(())
            }
            // `struct S t = s;`: the source's scalar leaves at their offsets (all read before
            // any is stored), from a flattened struct variable or a struct in memory.
            Initializer::Expression(e)
                if matches!(ty, Ty::Struct(k) if k.starts_with("struct "))
                    && !matches!(e.node, Expression::Call(_)) =>
            {
                let leaves = self.front.structs.leaves(ty)?;
                let values = self.struct_arg("the initializer", e, ty)?;
                for ((path, _), v) in leaves.iter().zip(values) {
                    let off = self.member_offset(ty, path).ok_or_else(|| format!("offset of member `{path}`"))?;
                    out.push((base + off, v));
                }
                Ok(())
            }
            Initializer::Expression(_) if Self::is_aggregate(ty) => {
                Err("struct, union or array initialized from an expression (not supported yet)".into())
            }
            Initializer::Expression(_) => {
                let v = match self.initializer(ty, init)? {
                    Init::Scalar(e) => e,
                    _ => return Err(format!("initializer of {}", ty.describe(self.dm)).into()),
                };
                out.push((base, v));
                Ok(())
            }
        }
    }

    pub(super) fn is_aggregate(ty: &Ty) -> bool {
        matches!(ty, Ty::Array(..) | Ty::Struct(_))
    }

    /// Fills the aggregate `ty` at `base` from `items[*pos..]`. In its own braces (`braced`)
    /// it takes designators and every item; inside an elided brace it takes only as many items
    /// as its members need, and stops at a designator (which belongs to the enclosing list).
    pub(super) fn bytes_fill(
        &mut self,
        ty: &Ty,
        items: &[Node<InitializerListItem>],
        pos: &mut usize,
        base: u64,
        out: &mut Vec<(u64, Expr)>,
        braced: bool,
    ) -> R<()> {
        fn designated(it: &Node<InitializerListItem>) -> R<Option<&Node<Designator>>> {
            match &it.node.designation[..] {
                [] => Ok(None),
                [d] => Ok(Some(d)),
                _ => Err("nested designators in an initializer (not supported yet)".into()),
            }
        }
        match ty {
            Ty::Array(elem, Some(n)) => {
                let (es, _) = self.front.structs.layout(elem, self.dm).ok_or("array element of unknown size")?;
                let mut i = 0u64;
                while *pos < items.len() {
                    if let Some(d) = designated(&items[*pos])? {
                        if !braced {
                            break;
                        }
                        let Designator::Index(e) = &d.node else {
                            return Err("member designator in an array initializer".into());
                        };
                        let k = self.const_eval(e)?;
                        if k < 0 || k as u64 >= *n {
                            return Err("array designator out of bounds".into());
                        }
                        i = k as u64;
                    } else if i >= *n {
                        if braced {
                            return Err("excess elements in an array initializer".into());
                        }
                        break;
                    }
                    self.bytes_member(elem, items, pos, base + i * es, out)?;
                    i += 1;
                }
                Ok(())
            }
            Ty::Struct(key) => {
                let fields: Vec<Field> = self
                    .front
                    .structs
                    .fields(ty)
                    .ok_or_else(|| format!("initializer of {}", ty.describe(self.dm)))?
                    .iter()
                    .filter(|f| !f.name.is_empty())
                    .cloned()
                    .collect();
                let union = key.starts_with("union ");
                let mut k = 0usize;
                let mut done = 0usize;
                while *pos < items.len() {
                    if let Some(d) = designated(&items[*pos])? {
                        if !braced {
                            break;
                        }
                        let Designator::Member(m) = &d.node else {
                            return Err("array designator in a struct initializer".into());
                        };
                        k = fields
                            .iter()
                            .position(|f| f.name == m.node.name)
                            .ok_or_else(|| format!("no member `{}` in {}", m.node.name, ty.describe(self.dm)))?;
                    } else if k >= fields.len() || (union && done > 0) {
                        if braced {
                            return Err("excess elements in a struct or union initializer".into());
                        }
                        break;
                    }
                    if union && done > 0 {
                        return Err("union initializer with more than one value".into());
                    }
                    let f = &fields[k];
                    if f.bit_width.is_some() {
                        return Err(
                            format!("initializer of bit-field `{}` in memory (not supported yet)", f.name).into()
                        );
                    }
                    let (off, fty) = self
                        .front
                        .structs
                        .member(ty, &f.name, self.dm)
                        .ok_or_else(|| format!("layout of member `{}`", f.name))?;
                    self.bytes_member(&fty, items, pos, base + off, out)?;
                    k += 1;
                    done += 1;
                }
                Ok(())
            }
            _ => Err(format!("initializer of {} in memory (not supported yet)", ty.describe(self.dm)).into()),
        }
    }

    /// Initializes one element or member of type `t` from `items[*pos]`: a braced list or a
    /// scalar takes one item; an aggregate without braces takes as many as it needs.
    pub(super) fn bytes_member(
        &mut self,
        t: &Ty,
        items: &[Node<InitializerListItem>],
        pos: &mut usize,
        base: u64,
        out: &mut Vec<(u64, Expr)>,
    ) -> R<()> {
        let init = &items[*pos].node.initializer.node;
        // A `char` array member from a string literal: its bytes, then zeros (C11 6.7.9p14).
        if let (Initializer::Expression(e), Ty::Array(c, Some(n))) = (init, t) {
            if let (Expression::StringLiteral(lit), Ty::Int(ct)) = (&e.node, &**c) {
                if ct.bits == 8 {
                    let bytes = string_bytes(&lit.node)?;
                    if bytes.len() as u64 > *n {
                        return Err("string literal longer than its array".into());
                    }
                    for (i, b) in bytes.iter().enumerate() {
                        out.push((
                            base + i as u64,
                            Expr::Const { bits: *b as u64 & ct.mask(), ty: ScalarTy::Int(*ct) },
                        ));
                    }
                    *pos += 1;
                    return Ok(());
                }
            }
        }
        if matches!(init, Initializer::Expression(_)) && Self::is_aggregate(t) {
            let before = *pos;
            self.bytes_fill(t, items, pos, base, out, false)?;
            if *pos == before {
                return Err("initializer of an aggregate member (not supported yet)".into());
            }
            return Ok(());
        }
        self.bytes_init(t, init, base, out)?;
        *pos += 1;
        Ok(())
    }

    pub(super) fn fill(
        &mut self,
        elem: ScalarTy,
        dims: &[u64],
        init: &Initializer,
        base: u64,
        out: &mut Vec<(u64, Expr)>,
    ) -> R<()> {
        let total: u64 = dims.iter().product();
        let sub: u64 = dims.iter().skip(1).product();
        let char_elem = match elem {
            ScalarTy::Int(t) if t.bits == 8 => Some(t),
            _ => None,
        };
        match init {
            Initializer::Expression(e) => {
                if let Expression::StringLiteral(s) = &e.node {
                    if let (Some(elem), 1) = (char_elem, dims.len()) {
                        let bytes = string_bytes(&s.node)?;
                        for (i, b) in bytes.iter().chain(std::iter::once(&0u8)).enumerate() {
                            if (i as u64) < total {
                                let c = Expr::Const { bits: (*b as u64) & elem.mask(), ty: ScalarTy::Int(elem) };
                                out.push((base + i as u64, c));
                            }
                        }
                        return Ok(());
                    }
                }
                Err("array initialized from an expression (not supported)".into())
            }
            Initializer::List(items) => {
                let mut pos: u64 = 0; // in scalars, relative to base
                for it in items {
                    if !it.node.designation.is_empty() {
                        let mut off = 0u64;
                        let mut d_sub = total;
                        for (k, d) in it.node.designation.iter().enumerate() {
                            let Designator::Index(e) = &d.node else {
                                return Err("designated initializer with a member or range (not supported yet)".into());
                            };
                            let i = self.const_eval(e)?;
                            let dim = dims.get(k).copied().unwrap_or(1);
                            d_sub /= dim.max(1);
                            if i < 0 || i as u64 >= dim {
                                return Err("array designator out of bounds".into());
                            }
                            off += i as u64 * d_sub;
                        }
                        pos = off;
                        // A designator selecting a sub-array with a braced initializer.
                        if let Initializer::List(_) = &it.node.initializer.node {
                            let depth = it.node.designation.len();
                            if depth < dims.len() {
                                let s: u64 = dims[depth..].iter().product();
                                self.fill(elem, &dims[depth..], &it.node.initializer.node, base + pos, out)?;
                                pos += s;
                                continue;
                            }
                        }
                    }
                    match &it.node.initializer.node {
                        Initializer::List(_) if dims.len() > 1 => {
                            pos = pos.div_ceil(sub) * sub;
                            if pos >= total {
                                self.warnings.push("excess elements in array initializer ignored".into());
                                continue;
                            }
                            self.fill(elem, &dims[1..], &it.node.initializer.node, base + pos, out)?;
                            pos += sub;
                        }
                        Initializer::Expression(e)
                            if dims.len() > 1
                                && matches!(e.node, Expression::StringLiteral(_))
                                && char_elem.is_some() =>
                        {
                            pos = pos.div_ceil(sub) * sub;
                            self.fill(elem, &dims[1..], &it.node.initializer.node, base + pos, out)?;
                            pos += sub;
                        }
                        Initializer::List(inner) => {
                            // Scalar in braces: `{ {1}, 2 }` for a 1-D array.
                            if pos < total {
                                if let Some(Initializer::Expression(e)) =
                                    inner.first().map(|x| &x.node.initializer.node)
                                {
                                    let v = self.elem_init(e, elem)?;
                                    out.push((base + pos, v));
                                }
                            }
                            pos += 1;
                        }
                        Initializer::Expression(e) => {
                            if pos >= total {
                                self.warnings.push("excess elements in array initializer ignored".into());
                                pos += 1;
                                continue;
                            }
                            let v = self.elem_init(e, elem)?;
                            out.push((base + pos, v));
                            pos += 1;
                        }
                    }
                }
                Ok(())
            }
        }
    }
}
