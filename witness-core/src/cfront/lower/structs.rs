//! Structs and unions: layouts for witness claims, flattening into leaf variables, copies
//! between leaves and memory.

use super::*;

/// The value of a scalar variable of type `st`.
pub(super) fn leaf_value(var: VarId, st: ScalarTy) -> Expr {
    match st {
        ScalarTy::Int(ty) => Expr::Var { var, ty: ScalarTy::Int(ty) },
        ScalarTy::Float(fty) => Expr::Var { var, ty: ScalarTy::Float(fty) },
        ScalarTy::Ptr => Expr::Var { var, ty: ScalarTy::Ptr },
    }
}

/// The scalar of type `st` stored at `ptr`.
pub(super) fn load_value(ptr: Expr, st: ScalarTy) -> Expr {
    let ptr = Box::new(ptr);
    match st {
        ScalarTy::Int(ty) => Expr::Deref { ptr, ty: ScalarTy::Int(ty) },
        ScalarTy::Float(fty) => Expr::Deref { ptr, ty: ScalarTy::Float(fty) },
        ScalarTy::Ptr => Expr::Deref { ptr, ty: ScalarTy::Ptr },
    }
}

/// The write of `rhs` into the variable `var` (of `rhs`'s type).
pub(super) fn write_var(var: VarId, rhs: Expr) -> Write {
    Write::Scalar { lhs: Place::Var { var, ty: rhs.ty() }, rhs }
}

/// The write of `rhs` at `ptr` (as `rhs`'s type).
pub(super) fn write_at(ptr: Expr, rhs: Expr) -> Write {
    Write::Scalar { lhs: Place::Deref { ptr, ty: rhs.ty() }, rhs }
}

impl<'a> Builder<'a> {
    pub(super) fn scalar_ty(t: &Ty, dm: DataModel) -> Option<ScalarTy> {
        match t.to_ctype(dm) {
            CType::Int(i) => Some(ScalarTy::Int(i)),
            CType::Float(f) => Some(ScalarTy::Float(f)),
            CType::Ptr => Some(ScalarTy::Ptr),
            _ => None,
        }
    }

    /// A fixed-size array (of any dimensions) whose elements are structs, unions or pointers.
    pub(super) fn bytes_array(ty: &Ty) -> bool {
        if !matches!(ty, Ty::Array(..)) {
            return false;
        }
        let mut t = ty;
        while let Ty::Array(inner, n) = t {
            if n.is_none() {
                return false;
            }
            t = inner;
        }
        matches!(t, Ty::Struct(_) | Ty::Pointer(_))
    }

    /// Records a struct definition's fields (nested definitions are registered on the way).
    pub(super) fn register_struct(&mut self, key: &str, decls: &[Node<StructDeclaration>]) {
        let mut fields = Vec::new();
        for d in decls {
            let StructDeclaration::Field(f) = &d.node else { continue };
            let specs: Vec<&TypeSpecifier> = f
                .node
                .specifiers
                .iter()
                .filter_map(|s| match &s.node {
                    SpecifierQualifier::TypeSpecifier(t) => Some(&t.node),
                    _ => None,
                })
                .collect();
            let base = self.base_type(&specs);
            if f.node.declarators.is_empty() {
                // C11 anonymous struct/union member: its members would be accessed directly.
                fields.push(Field {
                    name: format!("<anonymous@{}>", f.span.start),
                    ty: Ty::Other("anonymous struct or union member".into()),
                    bit_width: None,
                    declared: base,
                });
                continue;
            }
            for sd in &f.node.declarators {
                let (name, ty) = match &sd.node.declarator {
                    Some(d) => self.declarator_type(base.clone(), &d.node),
                    None => (None, base.clone()),
                };
                let width = match &sd.node.bit_width {
                    Some(w) => match self.const_eval(w) {
                        Ok(v) if (0..=64).contains(&v) => Some(v as u32),
                        _ => {
                            self.warnings.push(format!("bit-field width in {key} is not a valid constant"));
                            Some(u32::MAX)
                        }
                    },
                    None => None,
                };
                let Some(name) = name else {
                    // Unnamed bit-field: padding only (kept for the layout, never a leaf).
                    if width.is_some() {
                        fields.push(Field {
                            name: String::new(),
                            ty: Ty::Other("padding".into()),
                            bit_width: width,
                            declared: ty,
                        });
                    }
                    continue;
                };
                let fty = match (width, &ty) {
                    (None, _) => ty.clone(),
                    (Some(w), Ty::Int(t)) if w >= 1 && w <= t.bits => {
                        if t.is_bool {
                            Ty::Int(IntTy::BOOL)
                        } else {
                            // Plain `int` bit-fields are signed, as with gcc.
                            Ty::Int(IntTy::new(w, t.signed))
                        }
                    }
                    (Some(_), _) => Ty::Other(format!("bit-field `{name}` of unsupported type or width")),
                };
                fields.push(Field { name, ty: fty, bit_width: width, declared: ty });
            }
        }
        if self.front.structs.defs.insert(key.to_string(), fields).is_some() {
            self.warnings.push(format!("{key} is defined more than once; the last definition is used"));
        }
    }

    /// Creates the leaf variables of a struct variable `v` named `name` (nothing for a type
    /// that is not a complete struct).
    pub(super) fn flatten_struct_var(
        &mut self,
        v: VarId,
        name: &str,
        ty: &Ty,
        scope: VarScope,
        visible: (usize, usize),
    ) {
        if !matches!(ty, Ty::Struct(k) if k.starts_with("struct ")) || matches!(self.cfa.var(v).ty, CType::Bytes { .. })
        {
            return;
        }
        let Ok(leaves) = self.front.structs.leaves(ty) else {
            self.front.struct_vars.remove(&v);
            return;
        };
        let units = self.front.structs.bitfield_locations(ty);
        let mut out = Vec::new();
        for (path, lty) in leaves {
            let id = self.new_var(&format!("{name}{path}"), &lty, scope.clone(), visible, false);
            if let Some((_, unit)) = units.iter().find(|(p, _)| *p == path) {
                self.cfa.vars[id.0 as usize].bitfield_unit = Some((v, *unit));
            }
            out.push((path, id, lty));
        }
        self.front.struct_vars.insert(v, out);
    }

    /// The leaves of a flattened struct variable at `path` and below (`""`: all of them), with
    /// their paths relative to `path`.
    pub(super) fn leaves_under(&self, v: VarId, path: &str) -> Vec<(String, VarId, Ty)> {
        let Some(all) = self.front.struct_vars.get(&v) else { return Vec::new() };
        all.iter()
            .filter_map(|(p, id, t)| {
                let rest = p.strip_prefix(path)?;
                (rest.is_empty() || rest.starts_with('.')).then(|| (rest.to_string(), *id, t.clone()))
            })
            .collect()
    }

    /// Resolves `s`, `s.a`, `s.in.x` to (struct variable, access path, type of the member).
    pub(super) fn struct_path(&self, e: &Node<Expression>) -> R<(VarId, String, Ty)> {
        match &e.node {
            Expression::Identifier(i) => match self.lookup(&i.node.name) {
                Some(Sym::Var(v, ty @ Ty::Struct(_))) => Ok((*v, String::new(), ty.clone())),
                None if self.witness.is_some() => Err(self.unknown_name(&i.node.name)),
                _ => Err(format!("`{}` is not a struct variable", i.node.name).into()),
            },
            Expression::Member(m) => {
                if m.node.operator.node == MemberOperator::Indirect {
                    return Err(format!(
                        "member access `{}` through a pointer (pointers are not supported yet)",
                        self.text(sp(e.span))
                    )
                    .into());
                }
                let (v, path, ty) = self.struct_path(&m.node.expression)?;
                let name = &m.node.identifier.node.name;
                let Some(fields) = self.front.structs.fields(&ty) else {
                    return Err(format!(
                        "member access `{}` of type {} (not supported yet)",
                        self.text(sp(e.span)),
                        ty.describe(self.dm)
                    )
                    .into());
                };
                let f = fields
                    .iter()
                    .find(|f| &f.name == name)
                    .ok_or_else(|| format!("no member `{name}` in {}", ty.describe(self.dm)))?;
                if !self.front.struct_vars.contains_key(&v) {
                    return Err(format!("member access `{}` (struct not flattened)", self.text(sp(e.span))).into());
                }
                Ok((v, format!("{path}.{name}"), f.ty.clone()))
            }
            _ => Err(format!("member access on `{}` (only struct variables are supported yet)", self.text(sp(e.span)))
                .into()),
        }
    }

    /// A member access `s.a` / `s.in.arr` as a value, element reference or array.
    pub(super) fn member_place(&self, e: &Node<Expression>) -> R<Either> {
        let (v, path, ty) = self.struct_path(e)?;
        if matches!(ty, Ty::Struct(_)) {
            return Err(format!("struct value `{}` used as a value (not supported yet)", self.text(sp(e.span))).into());
        }
        // The leaf's own type (fixed when the variable was declared, even if a block-scope
        // definition of the same tag came later).
        let (_, leaf, lty) = self
            .front
            .struct_vars
            .get(&v)
            .and_then(|l| l.iter().find(|(p, _, _)| *p == path))
            .ok_or_else(|| format!("member `{}` not found", self.text(sp(e.span))))?;
        if *lty != ty {
            return Err(format!("member `{}` of a redefined struct type (not supported)", self.text(sp(e.span))).into());
        }
        self.var_either(*leaf, lty, &self.text(sp(e.span)))
    }

    /// Whole-struct assignment `dst = src` as one step (both struct lvalues of the same type).
    pub(super) fn struct_copy_writes(&mut self, dst: &Node<Expression>, src: &Node<Expression>) -> R<Vec<Write>> {
        let (dv, dp, dty) = self.struct_path(dst)?;
        if let Expression::CompoundLiteral(_) = &src.node {
            let id = self.compound_literal(src)?;
            return self.struct_copy_writes(dst, &id);
        }
        if let Expression::Call(_) = &src.node {
            return Err("struct returned by a function (struct return values are not supported yet)".into());
        }
        let flat = self.struct_path(src).and_then(|x| {
            if self.front.struct_vars.contains_key(&x.0) {
                Ok(x)
            } else {
                Err("copy of a struct that could not be flattened (not supported yet)".into())
            }
        });
        let (sv, spath, sty) = match flat {
            Ok(x) => x,
            Err(m) => match self.place(src) {
                Ok(Either::Mem(p, sty)) if sty == dty && self.front.struct_vars.contains_key(&dv) => {
                    let d = self.leaves_under(dv, &dp);
                    return self.leaves_from_memory(d, &p, &dty);
                }
                _ => return Err(m),
            },
        };
        if !self.front.struct_vars.contains_key(&sv) || !self.front.struct_vars.contains_key(&dv) {
            return Err("copy of a struct that could not be flattened (not supported yet)".into());
        }
        if dty != sty {
            return Err(format!(
                "assignment of {} to {} (incompatible struct types)",
                sty.describe(self.dm),
                dty.describe(self.dm)
            )
            .into());
        }
        let d = self.leaves_under(dv, &dp);
        let s = self.leaves_under(sv, &spath);
        self.copy_into_leaves(d, s)
    }

    /// `dst = src` for a struct or union in memory (`a[i] = a[j]`, `*p = *q`, `p->s = u`): its
    /// bytes copied as by `memmove`. A copy between memory and a flattened struct variable is
    /// not supported yet.
    pub(super) fn mem_struct_copy(&mut self, dst: &Node<Expression>, src: &Node<Expression>) -> R<()> {
        let Either::Mem(d, dty) = self.place(dst)? else {
            return Err(format!("assignment to `{}` (not supported yet)", self.text(sp(dst.span))).into());
        };
        if let Expression::Call(c) = &src.node {
            let target = self.struct_call_target(c, StructDst::Mem(d, dty))?;
            let ssp = self.stmt_sp;
            return self.call(c, Some(target), ssp);
        }
        if self.is_struct_lvalue(src) {
            let (sv, spath, sty) = self.struct_path(src)?;
            if sty != dty {
                return Err("assignment of another struct type".into());
            }
            let leaves = self.leaves_under(sv, &spath);
            let writes = self.leaves_into_memory(&d, &dty, leaves)?;
            let text = self.text(self.stmt_sp);
            return self.emit(EdgeOp::AssignAll { writes }, self.stmt_sp, text);
        }
        let Either::Mem(s, sty) = self.place(src)? else {
            return Err(format!(
                "assignment of `{}` to a struct in memory (not supported yet)",
                self.text(sp(src.span))
            )
            .into());
        };
        if dty != sty {
            return Err(format!(
                "assignment of {} to {} (incompatible struct types)",
                sty.describe(self.dm),
                dty.describe(self.dm)
            )
            .into());
        }
        let (size, _) =
            self.front.structs.layout(&dty, self.dm).ok_or_else(|| format!("copy of {}", dty.describe(self.dm)))?;
        let n =
            conv(Expr::Const { bits: size, ty: ScalarTy::Int(IntTy::ULLONG) }, IntTy::new(self.dm.long_bits(), false));
        let src = MemSource::Copy { src: s, overlap_ok: true };
        let text = self.text(self.stmt_sp);
        self.emit(
            EdgeOp::MemBytes { function: "struct assignment".into(), lhs: None, dst: d, src: Box::new(src), n },
            self.stmt_sp,
            text,
        )
    }

    /// Initial values of the leaves of a struct of type `ty` from a braced initializer (or a
    /// struct expression), by leaf path; leaves not listed are zero.
    pub(super) fn struct_init(
        &mut self,
        ty: &Ty,
        init: &Initializer,
        prefix: &str,
        out: &mut Vec<(String, Init)>,
    ) -> R<()> {
        // Unnamed bit-fields take no part in initialization (C11 6.7.9p9).
        let fields: Vec<Field> = self
            .front
            .structs
            .fields(ty)
            .ok_or_else(|| format!("initializer of {}", ty.describe(self.dm)))?
            .iter()
            .filter(|f| !f.name.is_empty())
            .cloned()
            .collect();
        let Initializer::List(items) = init else {
            return Err("struct initialized from an expression (not supported yet)".into());
        };
        let mut pos = 0usize;
        for it in items {
            if let Some(d) = it.node.designation.first() {
                if it.node.designation.len() > 1 {
                    return Err("nested designators in a struct initializer (not supported yet)".into());
                }
                let Designator::Member(m) = &d.node else {
                    return Err("array designator in a struct initializer".into());
                };
                pos = fields
                    .iter()
                    .position(|f| f.name == m.node.name)
                    .ok_or_else(|| format!("no member `{}` in {}", m.node.name, ty.describe(self.dm)))?;
            }
            let Some(f) = fields.get(pos) else {
                self.warnings.push("excess elements in struct initializer ignored".into());
                continue;
            };
            let path = format!("{prefix}.{}", f.name);
            match (&f.ty, &it.node.initializer.node) {
                (Ty::Struct(_), Initializer::List(_)) => {
                    self.struct_init(&f.ty, &it.node.initializer.node, &path, out)?
                }
                (Ty::Struct(_), Initializer::Expression(e)) if items.len() == 1 && self.const_eval(e) == Ok(0) => {
                    // `{0}`: everything zero.
                }
                (Ty::Struct(_), _) => {
                    return Err("struct member initialized without braces (not supported yet)".into());
                }
                (fty, i) => {
                    let v = self.initializer(fty, i)?;
                    out.push((path, v));
                }
            }
            pos += 1;
        }
        Ok(())
    }

    /// The writes of a struct declaration `struct S s [= init];` (all leaves in one step).
    pub(super) fn struct_decl_writes(&mut self, v: VarId, ty: &Ty, init: Option<&Initializer>) -> R<Vec<Write>> {
        let leaves = self.leaves_under(v, "");
        match init {
            None => Ok(leaves.into_iter().map(|(_, var, _)| Write::Declare { var, init: None }).collect()),
            Some(Initializer::Expression(e)) => {
                if let Expression::Call(_) = &e.node {
                    return Err("struct returned by a function (struct return values are not supported yet)".into());
                }
                if let Expression::CompoundLiteral(_) = &e.node {
                    let id = Initializer::Expression(Box::new(self.compound_literal(e)?));
                    return self.struct_decl_writes(v, ty, Some(&id));
                }
                let (sv, spath, sty) = match self.struct_path(e) {
                    Ok(x) => x,
                    Err(m) => match self.place(e) {
                        Ok(Either::Mem(p, sty)) if &sty == ty => return self.leaves_from_memory(leaves, &p, ty),
                        _ => return Err(m),
                    },
                };
                if &sty != ty {
                    return Err("initializer of another struct type".into());
                }
                let src = self.leaves_under(sv, &spath);
                self.copy_into_leaves(leaves, src)
            }
            Some(list) => {
                let mut vals = Vec::new();
                self.struct_init(ty, list, "", &mut vals)?;
                let mut writes = Vec::new();
                for (path, var, lty) in leaves {
                    let init = vals.iter().rev().find(|(p, _)| *p == path).map(|(_, i)| i.clone());
                    if init.is_some() && matches!(lty.to_ctype(self.dm), CType::Unsupported(_)) {
                        return Err(format!("initializer of member `{path}` of type {}", lty.describe(self.dm)).into());
                    }
                    writes.push(Write::Declare { var, init: Some(init.unwrap_or(Init::Zero)) });
                }
                Ok(writes)
            }
        }
    }

    pub(super) fn copy_into_leaves(
        &self,
        dst: Vec<(String, VarId, Ty)>,
        src: Vec<(String, VarId, Ty)>,
    ) -> R<Vec<Write>> {
        if dst.len() != src.len() {
            return Err("struct copy between differently flattened structs".into());
        }
        let mut writes = Vec::new();
        for ((p, dvar, ty), (sp_, svar, sty)) in dst.into_iter().zip(src) {
            if p != sp_ || ty != sty {
                return Err("struct copy between differently defined struct types (not supported)".into());
            }
            writes.push(match (Self::scalar_ty(&ty, self.dm), ty.to_ctype(self.dm)) {
                (Some(st), _) => write_var(dvar, leaf_value(svar, st)),
                (None, CType::Array { .. } | CType::FloatArray { .. }) => Write::Array { dst: dvar, src: svar },
                _ => return Err(format!("copy of a struct with member `{p}` of type {}", ty.describe(self.dm)).into()),
            });
        }
        Ok(writes)
    }

    /// The hidden global that holds the struct result of the current function (flattened; one
    /// per function, so a result is copied out when the call returns, before any other call).
    pub(super) fn result_var(&mut self, f: FuncId, ty: &Ty) -> R<VarId> {
        if let Some(&v) = self.front.result_vars.get(&f) {
            return Ok(v);
        }
        let name = format!("__result_{}", self.cfa.function(f).name);
        let whole = (0, self.cfa.source_len);
        let v = self.new_var(&name, ty, VarScope::Global, whole, true);
        self.flatten_struct_var(v, &name, ty, VarScope::Global, whole);
        if !self.front.struct_vars.contains_key(&v) {
            return Err(format!("struct result of type {} (not supported yet)", ty.describe(self.dm)).into());
        }
        self.front.result_vars.insert(f, v);
        Ok(v)
    }

    /// `return e;` of a struct: the writes of `e`'s leaves into the function's result variable.
    pub(super) fn struct_result_writes(&mut self, e: &Node<Expression>, ty: &Ty) -> R<Vec<Write>> {
        let f = self.f.as_ref().map(|f| f.id).ok_or("return outside a function")?;
        let rv = self.result_var(f, ty)?;
        let dst = self.leaves_under(rv, "");
        if let Expression::Call(_) = &e.node {
            return Err("return of a struct returned by a call (not supported yet)".into());
        }
        if self.is_struct_lvalue(e) {
            let (sv, spath, sty) = self.struct_path(e)?;
            if &sty != ty {
                return Err("return of another struct type".into());
            }
            let src = self.leaves_under(sv, &spath);
            return self.copy_into_leaves(dst, src);
        }
        match self.place(e)? {
            Either::Mem(p, sty) if &sty == ty => self.leaves_from_memory(dst, &p, ty),
            _ => Err("return of this struct expression (not supported yet)".into()),
        }
    }

    /// The target of a call whose struct result goes to `dst` (the leaves of a flattened
    /// struct, or a struct in memory): the writes from the callee's result variable.
    pub(super) fn struct_call_target(&mut self, c: &Node<CallExpression>, dst: StructDst) -> R<Target> {
        let name = self.call_name(c)?.to_string();
        let f =
            *self.front.func_ids.get(&name).ok_or_else(|| format!("struct result of `{name}`, which has no body"))?;
        let ret = self.front.sigs.get(&name).map(|s| s.ret.clone()).unwrap_or(Ty::Void);
        let rv = self.result_var(f, &ret)?;
        let src = self.leaves_under(rv, "");
        let writes = match dst {
            StructDst::Leaves(leaves, ty) if ty == ret => self.copy_into_leaves(leaves, src)?,
            StructDst::Mem(p, ty) if ty == ret => self.leaves_into_memory(&p, &ty, src)?,
            _ => return Err(format!("struct result of `{name}` stored into another type").into()),
        };
        Ok(Target::Struct(writes))
    }

    /// Byte offset of the member at `path` (`.in.x`) in a struct of type `ty` (`None`: a
    /// bit-field, or a layout that is not known).
    pub(super) fn member_offset(&self, ty: &Ty, path: &str) -> Option<u64> {
        let (mut off, mut cur) = (0u64, ty.clone());
        for name in path.split('.').filter(|n| !n.is_empty()) {
            let (o, t) = self.front.structs.member(&cur, name, self.dm)?;
            off += o;
            cur = t;
        }
        Some(off)
    }

    /// The leaf at `path` of a struct of type `ty` stored at `base`, as an address.
    pub(super) fn leaf_address(&self, base: &Expr, ty: &Ty, path: &str) -> R<Expr> {
        let off = self.member_offset(ty, path).ok_or_else(|| {
            format!("copy of member `{path}` of {} through memory (not supported yet)", ty.describe(self.dm))
        })?;
        Ok(Expr::Offset { base: Box::new(base.clone()), bytes: Box::new(conv(Expr::int(off as i64), IntTy::LLONG)) })
    }

    /// Loads of a struct of type `ty` stored at `src` into the leaves of a flattened struct
    /// variable (scalar leaves).
    pub(super) fn leaves_from_memory(&self, dst: Vec<(String, VarId, Ty)>, src: &Expr, ty: &Ty) -> R<Vec<Write>> {
        let mut writes = Vec::new();
        for (path, var, lty) in dst {
            let Some(st) = Self::scalar_ty(&lty, self.dm) else {
                return Err(format!("copy of member `{path}` of type {} from memory", lty.describe(self.dm)).into());
            };
            writes.push(write_var(var, load_value(self.leaf_address(src, ty, &path)?, st)));
        }
        Ok(writes)
    }

    /// Stores of the leaves of a flattened struct variable into a struct of type `ty` stored at
    /// `dst` (scalar leaves).
    pub(super) fn leaves_into_memory(&self, dst: &Expr, ty: &Ty, src: Vec<(String, VarId, Ty)>) -> R<Vec<Write>> {
        let mut writes = Vec::new();
        for (path, var, lty) in src {
            let Some(st) = Self::scalar_ty(&lty, self.dm) else {
                return Err(format!("copy of member `{path}` of type {} into memory", lty.describe(self.dm)).into());
            };
            writes.push(write_at(self.leaf_address(dst, ty, &path)?, leaf_value(var, st)));
        }
        Ok(writes)
    }
}
