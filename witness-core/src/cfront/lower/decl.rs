//! Declarations: types of declarators and parameters, attributes, enums, functions and
//! their headers, globals and constructors.

use super::*;

/// The name of a `mode` attribute's argument (`__attribute__((__mode__(__DI__)))` → `__DI__`).
pub(super) fn mode_attr(x: &Extension) -> Option<String> {
    let Extension::Attribute(a) = x else { return None };
    if gnu::bare_name(&a.name.node) != "mode" {
        return None;
    }
    match a.arguments.first().map(|e| &e.node) {
        Some(Expression::Identifier(i)) => Some(i.node.name.clone()),
        _ => Some(String::new()),
    }
}

/// An abstract declarator (of a type name) with its innermost abstract position named `ident`.
pub(super) fn name_abstract_declarator(d: &Declarator, ident: &Node<Identifier>) -> Option<Declarator> {
    let kind = match &d.kind.node {
        DeclaratorKind::Abstract => DeclaratorKind::Identifier(ident.clone()),
        DeclaratorKind::Declarator(inner) => {
            DeclaratorKind::Declarator(Box::new(Node::new(name_abstract_declarator(&inner.node, ident)?, inner.span)))
        }
        DeclaratorKind::Identifier(_) => return None,
    };
    Some(Declarator {
        kind: Node::new(kind, d.kind.span),
        derived: d.derived.clone(),
        extensions: d.extensions.clone(),
    })
}

/// A value of `v`'s type standing for a temporary (`VarId(0)`), to type a `?:` before branching.
pub(super) fn placeholder(v: &Expr) -> Expr {
    Expr::Var { var: VarId(0), ty: v.ty() }
}

pub(super) fn ident_of_declarator(d: &Declarator) -> Option<&str> {
    match &d.kind.node {
        DeclaratorKind::Identifier(i) => Some(&i.node.name),
        DeclaratorKind::Declarator(inner) => ident_of_declarator(&inner.node),
        DeclaratorKind::Abstract => None,
    }
}

/// The IR type of a function's result: `None` for `void`, `Err` for types without semantics.
pub(super) fn ret_scalar(ret: &Ty) -> Result<Option<ScalarTy>, ()> {
    match ret {
        Ty::Void => Ok(None),
        Ty::Int(t) => Ok(Some(ScalarTy::Int(*t))),
        Ty::Float(_) => ret.float_ty().map(|f| Some(ScalarTy::Float(f))).ok_or(()),
        Ty::Pointer(_) => Ok(Some(ScalarTy::Ptr)),
        _ => Err(()),
    }
}

/// Array parameters are pointers; function parameters are function pointers.
pub(super) fn adjust_param(t: Ty) -> Ty {
    match t {
        Ty::Array(e, _) => Ty::Pointer(e),
        Ty::Func(f) => Ty::Pointer(Box::new(Ty::Func(f))),
        t => t,
    }
}

impl<'a> Builder<'a> {
    /// Decision 57: every attribute in the text is looked at. Those without effect are
    /// ignored; `packed`/`aligned` make struct layouts unknown; `mode` is applied where
    /// declarators are lowered (any the AST does not show there makes every path unknown); any
    /// other makes every path unknown, naming it.
    pub(super) fn attributes(&mut self, tu: &TranslationUnit) {
        use lang_c::visit::Visit;
        /// Mode attributes on declarators; struct definitions (key, span); spans of
        /// declarations that are not typedefs.
        #[derive(Default)]
        struct Seen {
            modes: usize,
            structs: Vec<(String, Sp)>,
            plain_decls: Vec<Sp>,
            typedef_unions: Vec<(String, Sp)>,
        }
        impl<'ast> Visit<'ast> for Seen {
            fn visit_declarator(&mut self, d: &'ast Declarator, span: &'ast Span) {
                self.modes += d.extensions.iter().filter(|x| mode_attr(&x.node).is_some()).count();
                lang_c::visit::visit_declarator(self, d, span);
            }
            fn visit_struct_type(&mut self, st: &'ast StructType, span: &'ast Span) {
                if st.declarations.is_some() {
                    let kind = match st.kind.node {
                        StructKind::Struct => "struct",
                        StructKind::Union => "union",
                    };
                    let key = match &st.identifier {
                        Some(i) => format!("{kind} {}", i.node.name),
                        None => format!("{kind} <anonymous@{}>", span.start),
                    };
                    self.structs.push((key, sp(*span)));
                }
                lang_c::visit::visit_struct_type(self, st, span);
            }
            fn visit_declaration(&mut self, d: &'ast Declaration, span: &'ast Span) {
                let typedef = d.specifiers.iter().any(|s| {
                    matches!(&s.node, DeclarationSpecifier::StorageClass(c) if c.node == StorageClassSpecifier::Typedef)
                });
                if !typedef {
                    self.plain_decls.push(sp(*span));
                }
                // `typedef union { … } name __attribute__((transparent_union));` (glibc's form).
                for s in d.specifiers.iter().filter(|_| typedef) {
                    if let DeclarationSpecifier::TypeSpecifier(t) = &s.node {
                        if let TypeSpecifier::Struct(st) = &t.node {
                            if st.node.kind.node == StructKind::Union {
                                let key = match &st.node.identifier {
                                    Some(i) => format!("union {}", i.node.name),
                                    None => format!("union <anonymous@{}>", st.span.start),
                                };
                                self.typedef_unions.push((key, sp(*span)));
                            }
                        }
                    }
                }
                lang_c::visit::visit_declaration(self, d, span);
            }
        }
        let mut seen = Seen::default();
        seen.visit_translation_unit(tu);
        let text = &self.src.text;
        // A struct definition's attributes: inside it, or right after its closing brace.
        let struct_range = |(k, (a, b)): &(String, Sp)| {
            let mut end = *b;
            while let Some(rest) = text.get(end..) {
                let t = rest.trim_start();
                if !t.starts_with("__attribute") {
                    break;
                }
                let skip = rest.len() - t.len();
                let Some(close) = t.find("))") else { break };
                end += skip + close + 2;
            }
            (k.clone(), *a, end)
        };
        let structs: Vec<(String, usize, usize)> = seen.structs.iter().map(struct_range).collect();
        if self.src.pragma_pack.is_some() {
            let m = "`#pragma pack` changes gcc's struct layout, which is not modelled: sizes, member offsets and \
                     struct objects in memory are unknown"
                .to_string();
            self.warnings.push(m.clone());
            self.front.structs.layout_taint = Some(m);
        }
        if !self.src.int128_at.is_empty() {
            self.warnings.push(format!(
                "{} uses of `__int128`: 128-bit integers are not modelled (paths that use them are unknown)",
                self.src.int128_at.len()
            ));
        }
        let found = gnu::scan_attributes(&self.src.text);
        let ctor_attrs = found.iter().filter(|a| gnu::bare_name(&a.name) == "constructor").count();
        // Decisions 106 and 138: constructors are modelled when every `constructor` attribute
        // of the text is on a file-scope function in the AST and gcc's order is known.
        let ctors = ctors::constructors(tu, ctor_attrs, self.dm);
        match ctors {
            Ok(ctors) => {
                for (n, (key, def)) in ctors {
                    let def = def.and_then(|i| match &tu.0[i].node {
                        ExternalDeclaration::FunctionDefinition(fd) => Some((sp(fd.node.declarator.span), sp(fd.span))),
                        _ => None,
                    });
                    self.constructors.insert(n, (key, def));
                }
            }
            Err(m) => {
                if let Some(a) = found.iter().find(|a| gnu::bare_name(&a.name) == "constructor") {
                    self.global_failures.push(((a.offset, a.offset + a.len), m));
                }
            }
        }
        let mut modes = 0;
        for a in &found {
            let s = (a.offset, a.offset + a.len);
            if gnu::bare_name(&a.name) == "constructor" {
                // Modelled, or already reported with the reason.
                continue;
            }
            if gnu::bare_name(&a.name) == "transparent_union" {
                // Decision 137: on the union definition it is inside or follows (or between
                // `union` and its tag). Elsewhere it has no effect here: calls stay unsupported.
                let inner = structs
                    .iter()
                    .filter(|(_, x, y)| *x <= a.offset && a.offset < *y)
                    .min_by_key(|(_, x, y)| y - x)
                    .map(|(k, _, _)| k.clone())
                    .or_else(|| gnu::tag_after_attribute(text, a.offset))
                    .or_else(|| {
                        let on = seen.typedef_unions.iter().find(|(_, (x, y))| *x <= a.offset && a.offset < *y);
                        on.map(|(k, _)| k.clone())
                    });
                if let Some(k) = inner.filter(|k| k.starts_with("union ")) {
                    self.front.transparent_unions.insert(k);
                }
                continue;
            }
            match gnu::classify(&a.name) {
                AttrKind::Ignore => {}
                AttrKind::Layout => {
                    let m = format!(
                        "`__attribute__(({}))` changes gcc's layout, which is not modelled: sizes, member offsets \
                         and objects in memory of the struct types it applies to are unknown",
                        a.name
                    );
                    let inner = structs
                        .iter()
                        .filter(|(_, x, y)| *x <= a.offset && a.offset < *y)
                        .min_by_key(|(_, x, y)| y - x)
                        .map(|(k, _, _)| k.clone())
                        .or_else(|| gnu::tag_after_attribute(text, a.offset));
                    if let Some(key) = inner {
                        // Decision 57: that struct's layout (and that of every type containing it).
                        self.front.structs.tainted.entry(key.clone()).or_insert(m);
                    } else if seen.plain_decls.iter().any(|(x, y)| *x <= a.offset && a.offset < *y) {
                        // On a variable or function: addresses are abstract in the memory
                        // model, so its alignment has no visible effect.
                    } else if self.front.structs.layout_taint.is_none() {
                        // E.g. on a typedef, whose type may be a member somewhere: every layout.
                        self.warnings.push(m.clone());
                        self.front.structs.layout_taint = Some(m);
                    }
                }
                AttrKind::Mode => {
                    modes += 1;
                    if modes > seen.modes {
                        self.global_failures
                            .push((s, "`__attribute__((mode(...)))` in a position that is not modelled".into()));
                    }
                }
                AttrKind::Unmodelled => self
                    .global_failures
                    .push((s, format!("`__attribute__(({}))` (its effect is not modelled)", a.name))),
            }
        }
    }

    /// A declarator's `mode` attribute applied to its base type (an integer of that machine
    /// mode's width, same signedness).
    pub(super) fn apply_mode(&mut self, base: Ty, d: &Declarator) -> Ty {
        let Some(mode) = d.extensions.iter().find_map(|x| mode_attr(&x.node)) else { return base };
        match (&base, gnu::mode_bits(&mode, self.dm.long_bits())) {
            (Ty::Int(t), Some(bits)) if d.derived.is_empty() && !t.is_bool => Ty::Int(IntTy::new(bits, t.signed)),
            _ => Ty::Other(format!("`mode({mode})` attribute (not modelled)")),
        }
    }

    /// Why a struct's layout is not known, if an attribute is the reason.
    pub(super) fn layout_note(&self, ty: &Ty) -> String {
        match ty {
            Ty::Struct(k) => match self.front.structs.layout_taint.as_ref().or(self.front.structs.tainted.get(k)) {
                Some(m) => format!(": {m}"),
                None => String::new(),
            },
            _ => String::new(),
        }
    }

    /// `typeof(e)` / `__typeof__(e)`: the declared type of a variable, the type of a pointer
    /// expression, else the type of the expression's value (not evaluated).
    pub(super) fn typeof_expr(&mut self, e: &Node<Expression>) -> Ty {
        if let Expression::Identifier(i) = &e.node {
            if let Some(Sym::Var(_, t)) = self.lookup(&i.node.name) {
                return t.clone();
            }
        }
        if self.is_ptr_expr(e) {
            if let Some(t) = self.expr_ty(e) {
                return t;
            }
        }
        match self.pure(|b| b.rv_any(e)) {
            Ok(x) if x.int_ty().is_some() => Ty::Int(x.ity()),
            Ok(f) => Ty::Float(f.fty().name()),
            // A struct member, or a call (not evaluated): the declared type.
            Err(_) => match self.expr_ty(e) {
                Some(t @ Ty::Struct(_)) if matches!(e.node, Expression::Member(_)) => t,
                Some(t @ (Ty::Int(_) | Ty::Float(_) | Ty::Struct(_))) if matches!(e.node, Expression::Call(_)) => t,
                _ => Ty::Other(format!("typeof({})", self.text(sp(e.span)))),
            },
        }
    }

    /// `offsetof(T, m.n[k])` with gcc's layout.
    pub(super) fn offset_of(&mut self, o: &Node<OffsetOfExpression>) -> R<u64> {
        let mut ty = self.type_name(&o.node.type_name.node);
        let d = &o.node.designator.node;
        let mut off = 0u64;
        let why = || {
            "offsetof of a member whose offset is not known (bit-fields before it, or a layout changed by an attribute)"
                .to_string()
        };
        let (o1, t1) = self.front.structs.member(&ty, &d.base.node.name, self.dm).ok_or_else(why)?;
        off += o1;
        ty = t1;
        for m in &d.members {
            match &m.node {
                OffsetMember::Member(id) => {
                    let (o2, t2) = self.front.structs.member(&ty, &id.node.name, self.dm).ok_or_else(why)?;
                    off += o2;
                    ty = t2;
                }
                OffsetMember::Index(e) => {
                    let Ty::Array(elem, _) = &ty else { return Err("offsetof: index into a non-array".into()) };
                    let elem = (**elem).clone();
                    let k = self.const_eval(e)?;
                    let size = self.size_of(&elem).ok_or_else(why)?;
                    let k = u64::try_from(k).map_err(|_| "offsetof with a negative index".to_string())?;
                    off = k.checked_mul(size).and_then(|x| x.checked_add(off)).ok_or("offsetof overflows")?;
                    ty = elem;
                }
                OffsetMember::IndirectMember(_) => return Err("offsetof with `->` (not valid C)".into()),
            }
        }
        Ok(off)
    }

    pub(super) fn base_type(&mut self, specs: &[&TypeSpecifier]) -> Ty {
        let mut c = SpecCounter::default();
        let mut other: Option<Ty> = None;
        for s in specs {
            if c.add(s) {
                continue;
            }
            other = Some(match s {
                TypeSpecifier::Struct(st) => {
                    let kind = match st.node.kind.node {
                        StructKind::Struct => "struct",
                        StructKind::Union => "union",
                    };
                    let key = match &st.node.identifier {
                        Some(i) => format!("{kind} {}", i.node.name),
                        None => format!("{kind} <anonymous@{}>", st.span.start),
                    };
                    if let Some(decls) = &st.node.declarations {
                        self.register_struct(&key, decls);
                    }
                    Ty::Struct(key)
                }
                TypeSpecifier::Enum(en) => self.enum_type(en),
                TypeSpecifier::TypedefName(id) => match self.lookup(&id.node.name) {
                    Some(Sym::Typedef(t)) => t.clone(),
                    _ => Ty::Other(format!("unknown type `{}`", id.node.name)),
                },
                TypeSpecifier::TypeOf(t) => match &t.node {
                    TypeOf::Type(tn) => self.type_name(&tn.node),
                    TypeOf::Expression(e) => self.typeof_expr(e),
                },
                TypeSpecifier::Atomic(_) => Ty::Other("_Atomic type".into()),
                TypeSpecifier::TS18661Float(_) => Ty::Float("_FloatN"),
                _ => Ty::Other("unknown type".into()),
            });
        }
        match other {
            Some(t) => t,
            None => {
                if c.any() {
                    c.resolve(self.dm)
                } else {
                    Ty::Int(IntTy::INT)
                }
            }
        }
    }

    /// The type of an `enum` specifier (decision 100): a definition is registered (its
    /// constants and its tag, in the current scope); a reference finds its tag.
    pub(super) fn enum_type(&mut self, en: &Node<EnumType>) -> Ty {
        let tag = en.node.identifier.as_ref().map(|i| format!("enum {}", i.node.name));
        if en.node.enumerators.is_empty() {
            return match tag.as_deref().map(|t| (t, self.lookup(t))) {
                Some((_, Some(Sym::Typedef(t)))) => t.clone(),
                Some((t, _)) => Ty::Other(format!("incomplete type `{t}`")),
                None => Ty::Other("enum without enumerators".into()),
            };
        }
        let ty = self.register_enum(en);
        if let Some(tag) = tag {
            if self.scopes.len() == 1 {
                if let Ty::Int(t) = &ty {
                    if !self.cfa.enum_tags.contains(&(tag.clone(), *t)) {
                        self.cfa.enum_tags.push((tag.clone(), *t));
                    }
                }
            }
            self.bind(&tag, Sym::Typedef(ty.clone()));
        }
        ty
    }

    /// Binds the constants of an enumeration definition and returns its type, as gcc (C17
    /// mode, no `-fshort-enums`) chooses it: `unsigned int` when no value is negative and all
    /// fit, `int` when some is negative and all fit, else the 64-bit type of that signedness.
    /// A constant has type `int` when its value fits, else the enumeration's type; inside the
    /// definition such a constant has the type of its expression (or of the previous constant,
    /// for an implicit value). An attribute on the definition (`packed` makes gcc choose a
    /// smaller type) or a value that cannot be computed gives a type that is not modelled.
    pub(super) fn register_enum(&mut self, en: &Node<EnumType>) -> Ty {
        let mut why: Option<String> = self
            .enum_attribute(sp(en.span))
            .map(|a| format!("enum type with `__attribute__(({a}))` (gcc may choose a smaller type; not modelled)"));
        // (name, value, type inside the definition); `None`: not known.
        let mut consts: Vec<(String, Option<i128>)> = Vec::new();
        let mut prev: Option<(i128, IntTy)> = Some((-1, IntTy::INT));
        for e in &en.node.enumerators {
            let name = e.node.identifier.node.name.clone();
            let here: R<(i128, IntTy)> = match &e.node.expression {
                Some(x) => self
                    .pure(|b| b.rv(x))
                    .and_then(|x| types::fold(&x).ok_or_else(|| "not an integer constant expression".into()))
                    .map(|(bits, t)| (types::value_of(bits, t), t)),
                None => match prev {
                    Some((v, t)) if v < t.max_value() => Ok((v + 1, t)),
                    Some(_) => Err("overflow in enumeration values".into()),
                    None => Err("follows an enumerator whose value is not known".into()),
                },
            };
            match here {
                Ok((v, t)) => {
                    let t = if (i32::MIN as i128..=i32::MAX as i128).contains(&v) { IntTy::INT } else { t };
                    self.bind(&name, Sym::Value(Expr::Const { bits: v as u64 & t.mask(), ty: ScalarTy::Int(t) }));
                    consts.push((name, Some(v)));
                    prev = Some((v, t));
                }
                Err(m) => {
                    let m = format!("enumerator `{name}`: {m}");
                    self.warnings.push(m.clone());
                    self.bind(&name, Sym::Unsupported(m.clone()));
                    why.get_or_insert(m);
                    consts.push((name, None));
                    prev = None;
                }
            }
        }
        let known: Vec<i128> = consts.iter().filter_map(|(_, v)| *v).collect();
        let min = known.iter().copied().min().unwrap_or(0);
        let max = known.iter().copied().max().unwrap_or(0);
        let ety = if min >= 0 {
            if max <= u32::MAX as i128 {
                Some(IntTy::UINT)
            } else if max <= u64::MAX as i128 {
                Some(IntTy::ULLONG)
            } else {
                None
            }
        } else if min >= i32::MIN as i128 && max <= i32::MAX as i128 {
            Some(IntTy::INT)
        } else if min >= i64::MIN as i128 && max <= i64::MAX as i128 {
            Some(IntTy::LLONG)
        } else {
            None
        };
        let Some(ety) = ety else {
            let m = "enumeration values exceed the range of the largest integer type".to_string();
            for (name, _) in &consts {
                self.bind(name, Sym::Unsupported(m.clone()));
            }
            return Ty::Other(m);
        };
        // The constants' types once the enumeration is complete.
        for (name, v) in consts {
            let Some(v) = v else { continue };
            let t = if (i32::MIN as i128..=i32::MAX as i128).contains(&v) { IntTy::INT } else { ety };
            if self.scopes.len() == 1 {
                self.cfa.enum_constants.push((name.clone(), v as u64 & t.mask(), t));
            }
            self.bind(&name, Sym::Value(Expr::Const { bits: v as u64 & t.mask(), ty: ScalarTy::Int(t) }));
        }
        match why {
            Some(m) => Ty::Other(m),
            None => Ty::Int(ety),
        }
    }

    /// A `packed`, `aligned` or `mode` attribute inside an enumeration specifier's text or
    /// right after it (`enum __attribute__((packed)) E {…}`, `enum E {…} __attribute__((packed))`).
    pub(super) fn enum_attribute(&self, s: Sp) -> Option<String> {
        let text = &self.src.text;
        let mut end = s.1.min(text.len());
        while let Some(rest) = text.get(end..) {
            let t = rest.trim_start();
            if !t.starts_with("__attribute") {
                break;
            }
            let skip = rest.len() - t.len();
            let Some(close) = t.find("))") else { break };
            end += skip + close + 2;
        }
        let slice = text.get(s.0..end)?;
        gnu::scan_attributes(slice)
            .into_iter()
            .find(|a| matches!(gnu::classify(&a.name), AttrKind::Layout | AttrKind::Mode))
            .map(|a| a.name)
    }

    /// Evaluates an integer constant expression.
    pub(super) fn const_eval(&mut self, e: &Node<Expression>) -> R<i128> {
        let e = self.pure(|b| b.rv(e))?;
        types::fold_i128(&e).ok_or_else(|| "not an integer constant expression".into())
    }

    pub(super) fn pure<T>(&mut self, f: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        let old = self.pure_mode;
        self.pure_mode = true;
        let mut s = self.snap();
        let r = f(self);
        if r.is_ok() {
            // The only variables a pure expression makes are string literal objects, which
            // its value refers to: they stay.
            s.vars = self.cfa.vars.len();
            s.global_inits = self.cfa.global_inits.len();
        }
        self.rollback(&s);
        self.pure_mode = old;
        r
    }

    /// `T a[n];` with a size known only at run time: a pointer variable `a` to a fresh block of
    /// `n * sizeof(T)` bytes (as `alloca`), typed `T[]` so that it decays and indexes like the
    /// array while `sizeof a` and `&a` stay unsupported. Other shapes (several dimensions,
    /// arrays of arrays or pointers) are unsupported.
    pub(super) fn vla_decl(
        &mut self,
        name: &str,
        base: &Ty,
        d: &Declarator,
        dsp: Sp,
        visible: (usize, usize),
        f: FuncId,
    ) {
        let elem_ty = Ty::Array(Box::new(base.clone()), None);
        let v = self.new_var(name, &Ty::Pointer(Box::new(base.clone())), VarScope::Local(f), visible, false);
        let s = self.snap();
        self.stmt_sp = dsp;
        let r = (|| -> R<()> {
            let [dd] = &d.derived[..] else {
                return Err("variable-length array of several dimensions (not supported yet)".into());
            };
            let DerivedDeclarator::Array(a) = &dd.node else { return Err("variable-length array".into()) };
            let ArraySize::VariableExpression(e) = &a.node.size else {
                return Err("variable-length array of unspecified size".into());
            };
            let esize = match base {
                Ty::Int(_) | Ty::Float(_) | Ty::Pointer(_) | Ty::Struct(_) => self.front.structs.layout(base, self.dm),
                _ => None,
            }
            .map(|(s, _)| s)
            .filter(|s| *s > 0)
            .ok_or_else(|| format!("variable-length array of {} (not supported yet)", base.describe(self.dm)))?;
            let ulong = IntTy::new(self.dm.long_bits(), false);
            let n = conv(self.rv(e)?, ulong);
            let size = types::binary(BinOp::Mul, n, Expr::Const { bits: esize, ty: ScalarTy::Int(ulong) });
            let text = self.text(dsp);
            self.emit(
                EdgeOp::Alloc {
                    function: "alloca".into(),
                    lhs: Some(Place::Var { var: v, ty: ScalarTy::Ptr }),
                    size,
                    zeroed: false,
                    overflow: None,
                    stack: true,
                },
                dsp,
                text,
            )
        })();
        match r {
            Ok(()) => self.bind(name, Sym::Var(v, elem_ty)),
            Err(m) => {
                self.rollback(&s);
                self.emit_unsupported(dsp, m);
                self.bind(name, Sym::Var(v, Ty::Other("variable-length array".into())));
            }
        }
    }

    /// Applies a declarator to a base type; returns (name, type).
    pub(super) fn declarator_type(&mut self, base: Ty, d: &Declarator) -> (Option<String>, Ty) {
        let mut ty = self.apply_mode(base, d);
        let mut suffixes = Vec::new();
        for dd in &d.derived {
            match &dd.node {
                DerivedDeclarator::Pointer(_) | DerivedDeclarator::Block(_) => ty = Ty::Pointer(Box::new(ty)),
                other => suffixes.push(other),
            }
        }
        for dd in suffixes.into_iter().rev() {
            ty = match dd {
                DerivedDeclarator::Array(a) => {
                    let n = match &a.node.size {
                        ArraySize::Unknown => None,
                        ArraySize::VariableUnknown => {
                            ty = Ty::Other("variable-length array".into());
                            continue;
                        }
                        ArraySize::VariableExpression(e) | ArraySize::StaticExpression(e) => match self.const_eval(e) {
                            Ok(v) if (0..(1i128 << 40)).contains(&v) => Some(v as u64),
                            Ok(_) => {
                                ty = Ty::Other("array of invalid size".into());
                                continue;
                            }
                            Err(_) => {
                                ty = Ty::Other("variable-length array".into());
                                continue;
                            }
                        },
                    };
                    Ty::Array(Box::new(ty), n)
                }
                DerivedDeclarator::Function(fd) => {
                    let (params, variadic) = self.param_types(&fd.node);
                    Ty::Func(Box::new(FuncTy { ret: ty, params: Some(params), variadic }))
                }
                DerivedDeclarator::KRFunction(ids) => {
                    let params = if ids.is_empty() { None } else { Some(vec![Ty::Int(IntTy::INT); ids.len()]) };
                    Ty::Func(Box::new(FuncTy { ret: ty, params, variadic: false }))
                }
                _ => ty,
            };
        }
        match &d.kind.node {
            DeclaratorKind::Identifier(i) => (Some(i.node.name.clone()), ty),
            DeclaratorKind::Abstract => (None, ty),
            DeclaratorKind::Declarator(inner) => self.declarator_type(ty, &inner.node),
        }
    }

    pub(super) fn param_types(&mut self, fd: &FunctionDeclarator) -> (Vec<Ty>, bool) {
        let mut out = Vec::new();
        for p in &fd.parameters {
            let (_, t) = self.param_decl(&p.node);
            out.push(t);
        }
        if out.len() == 1 && out[0] == Ty::Void {
            out.clear();
        }
        (out, matches!(fd.ellipsis, Ellipsis::Some))
    }

    pub(super) fn param_decl(&mut self, p: &ParameterDeclaration) -> (Option<String>, Ty) {
        let specs: Vec<&TypeSpecifier> = p
            .specifiers
            .iter()
            .filter_map(|s| match &s.node {
                DeclarationSpecifier::TypeSpecifier(t) => Some(&t.node),
                _ => None,
            })
            .collect();
        let base = self.base_type(&specs);
        let (name, t) = match &p.declarator {
            Some(d) => self.declarator_type(base, &d.node),
            None => (None, base),
        };
        (name, adjust_param(t))
    }

    pub fn type_name(&mut self, tn: &TypeName) -> Ty {
        let specs: Vec<&TypeSpecifier> = tn
            .specifiers
            .iter()
            .filter_map(|s| match &s.node {
                SpecifierQualifier::TypeSpecifier(t) => Some(&t.node),
                _ => None,
            })
            .collect();
        let base = self.base_type(&specs);
        match &tn.declarator {
            Some(d) => self.declarator_type(base, &d.node).1,
            None => base,
        }
    }

    pub fn translation_unit(&mut self, tu: &'a TranslationUnit) -> R<()> {
        let mut names = AddressedNames::default();
        lang_c::visit::Visit::visit_translation_unit(&mut names, tu);
        self.addressed = names.0;
        self.attributes(tu);
        // Pass 1: file-scope declarations and function signatures.
        let mut bodies = Vec::new();
        for ed in &tu.0 {
            match &ed.node {
                ExternalDeclaration::Declaration(d) => self.declaration(d, true, self.src.text.len()),
                ExternalDeclaration::StaticAssert(_) => {}
                ExternalDeclaration::FunctionDefinition(fd) => {
                    if let Some(id) = self.function_header(fd) {
                        bodies.push((id, fd));
                    }
                }
            }
        }
        // `extern` globals never defined in this program live elsewhere: their initial value is
        // unknown (nondeterministic), not zero.
        for v in self.globals_declared.clone() {
            if !self.globals_defined.contains(&v) {
                self.cfa.external_globals.push(v);
                let fields: Vec<VarId> = self
                    .front
                    .struct_vars
                    .get(&v)
                    .map(|f| f.iter().map(|(_, id, _)| *id).collect())
                    .unwrap_or_default();
                self.cfa.external_globals.extend(fields);
            }
        }
        let main = *self.front.func_ids.get("main").ok_or("no function `main` is defined")?;
        self.cfa.main = main;
        // Pass 2: bodies.
        for (id, fd) in bodies {
            self.function_body(id, fd);
        }
        // Program start: the global declarations in file order, then `main` is entered.
        let m = self.cfa.function(main);
        let (entry, span) = (m.entry, m.span);
        let mut start = self.cfa.start;
        for (decl, text) in std::mem::take(&mut self.global_steps) {
            let next = self.cfa.graph.add_node(CfaNode::default());
            self.cfa.graph.add_edge(
                start,
                next,
                CfaEdge {
                    op: EdgeOp::GlobalDeclaration,
                    span: Some(decl),
                    function: main,
                    text,
                    decision: None,
                    call_paren: None,
                    call_start: None,
                },
            );
            start = next;
        }
        self.cfa.graph.add_edge(
            start,
            entry,
            CfaEdge {
                op: EdgeOp::ProgramStart,
                span: Some(span),
                function: main,
                text: "main()".into(),
                decision: None,
                call_paren: None,
                call_start: None,
            },
        );
        Ok(())
    }

    pub(super) fn function_header(&mut self, fd: &Node<FunctionDefinition>) -> Option<FuncId> {
        let d = &fd.node.declarator.node;
        let name = ident_of_declarator(d)?.to_string();
        if self.front.func_ids.contains_key(&name) {
            self.warnings.push(format!("function `{name}` defined more than once; using the first definition"));
            return None;
        }
        let specs: Vec<&TypeSpecifier> = fd
            .node
            .specifiers
            .iter()
            .filter_map(|s| match &s.node {
                DeclarationSpecifier::TypeSpecifier(t) => Some(&t.node),
                _ => None,
            })
            .collect();
        let base = self.base_type(&specs);
        // Return type: apply all derived declarators except the function one.
        let (_, fty) = self.declarator_type(base, d);
        let (ret, mut ptys, variadic) = match fty {
            Ty::Func(f) => (f.ret, f.params.unwrap_or_default(), f.variadic),
            _ => return None,
        };
        let id = FuncId(self.cfa.functions.len() as u32);
        // Parameter names.
        let mut names: Vec<Option<String>> = Vec::new();
        for dd in &d.derived {
            match &dd.node {
                DerivedDeclarator::Function(f) => {
                    names = f
                        .node
                        .parameters
                        .iter()
                        .map(|p| {
                            p.node.declarator.as_ref().and_then(|d| ident_of_declarator(&d.node)).map(String::from)
                        })
                        .collect();
                    if ptys.is_empty() {
                        names.clear();
                    }
                }
                DerivedDeclarator::KRFunction(ids) => {
                    names = ids.iter().map(|i| Some(i.node.name.clone())).collect();
                    ptys = vec![Ty::Int(IntTy::INT); ids.len()];
                    // K&R declarations.
                    for decl in &fd.node.declarations {
                        let specs: Vec<&TypeSpecifier> = decl
                            .node
                            .specifiers
                            .iter()
                            .filter_map(|s| match &s.node {
                                DeclarationSpecifier::TypeSpecifier(t) => Some(&t.node),
                                _ => None,
                            })
                            .collect();
                        let base = self.base_type(&specs);
                        for id_ in &decl.node.declarators {
                            let (n, t) = self.declarator_type(base.clone(), &id_.node.declarator.node);
                            if let Some(pos) = names.iter().position(|x| x.is_some() && *x == n) {
                                ptys[pos] = adjust_param(t);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        let visible = self.orig_range(sp(fd.span));
        let mut params = Vec::new();
        let mut param_syms = Vec::new();
        for (i, t) in ptys.iter().enumerate() {
            let n = names.get(i).cloned().flatten().unwrap_or_else(|| format!("__param_{i}"));
            self.in_params = true;
            let v = self.new_var(&n, t, VarScope::Local(id), visible, false);
            self.in_params = false;
            // A struct parameter is flattened like a local; its scalar leaves are the function's
            // parameters, in order (calls pass the argument's leaves, see `lower_args`).
            self.flatten_struct_var(v, &n, t, VarScope::Local(id), visible);
            match self.front.struct_vars.get(&v) {
                Some(leaves) if leaves.iter().all(|(_, _, lt)| Self::scalar_ty(lt, self.dm).is_some()) => {
                    params.extend(leaves.iter().map(|(_, leaf, _)| *leaf))
                }
                _ => params.push(v),
            }
            param_syms.push((n, Sym::Var(v, t.clone())));
        }
        let entry = self.cfa.graph.add_node(CfaNode { function: Some(id), loop_head: false });
        let exit = self.cfa.graph.add_node(CfaNode { function: Some(id), loop_head: false });
        let (return_ty, return_unsupported) = match ret_scalar(&ret) {
            Ok(t) => (t, None),
            // A struct result goes through the function's result variable (`result_var`).
            Err(()) if matches!(&ret, Ty::Struct(k) if k.starts_with("struct ")) => (None, None),
            Err(()) => (None, Some(ret.describe(self.dm))),
        };
        // Span: from the start of the definition to the end of the declarator.
        let hdr = (fd.span.start, fd.node.declarator.span.end);
        let span = self.span_of(hdr).unwrap_or_default();
        self.cfa.functions.push(FunctionInfo {
            name: name.clone(),
            params,
            return_ty,
            return_unsupported,
            entry,
            exit,
            span,
        });
        self.front.func_param_tys.push(ptys.clone());
        self.front.func_variadic.push(variadic);
        self.front.func_ids.insert(name.clone(), id);
        self.front.sigs.insert(name, FuncTy { ret, params: Some(ptys), variadic });
        self.pending_params.push(param_syms);
        Some(id)
    }

    pub(super) fn function_body(&mut self, id: FuncId, fd: &Node<FunctionDefinition>) {
        let info = self.cfa.function(id).clone();
        let ret = self.front.sigs.get(&info.name).map(|s| s.ret.clone()).unwrap_or(Ty::Void);
        self.f = Some(FState {
            id,
            exit: info.exit,
            ret,
            labels: HashMap::new(),
            breaks: Vec::new(),
            conts: Vec::new(),
            cases: Vec::new(),
        });
        self.cur = info.entry;
        self.scopes.push(HashMap::new());
        let params = std::mem::take(&mut self.pending_params[id.0 as usize]);
        for (n, s) in params {
            self.bind(&n, s);
        }
        if id == self.cfa.main && !self.global_failures.is_empty() {
            let (s, m) = self.global_failures[0].clone();
            self.emit_unsupported(s, m);
        }
        if id == self.cfa.main {
            self.call_constructors(sp(fd.span));
        }
        let body = &fd.node.statement;
        self.stmt(body);
        // Implicit return at the closing brace.
        let end = body.span.end;
        let close = (end.saturating_sub(1), end);
        let exit = info.exit;
        let c = self.cur;
        self.add_edge(c, exit, EdgeOp::Return { value: None, writes: Vec::new() }, Some(close), "}".into());
        self.scopes.pop();
        self.f = None;
    }

    /// Decisions 106 and 138: the constructors run before `main`, in gcc's order (by priority,
    /// then in the order gcc creates their symbols), as calls at the entry of `main` (after
    /// static initialisation, before `main`'s first statement).
    pub(super) fn call_constructors(&mut self, main_sp: Sp) {
        let mut ctors: Vec<(ctors::CtorKey, FuncId, String, Sp, Sp)> = self
            .front
            .func_ids
            .iter()
            .filter_map(|(n, id)| {
                let (key, def) = self.constructors.get(n)?;
                let (s, whole) = (*def)?;
                Some((*key, *id, n.clone(), s, whole))
            })
            .collect();
        ctors.sort();
        if ctors.len() != self.constructors.len() {
            let m = "`__attribute__((constructor))` on a function the program does not define".to_string();
            self.emit_unsupported(main_sp, m);
            return;
        }
        for (_, id, name, s, whole) in ctors {
            let (a, b) = self.orig_range(whole);
            if self.cfa.skipped_bodies.iter().any(|(x, y)| a <= *x && *y <= b) {
                // Decision 61 removed its body (it should have been kept as a root).
                self.emit_unsupported(s, format!("the body of constructor `{name}` was not parsed"));
                return;
            }
            if !self.front.func_param_tys[id.0 as usize].is_empty() || self.front.func_variadic[id.0 as usize] {
                self.emit_unsupported(s, format!("constructor `{name}` with parameters (not modelled)"));
                return;
            }
            if id == self.cfa.main {
                self.emit_unsupported(s, "`main` declared a constructor (not modelled)");
                return;
            }
            let text = format!("{name}() (constructor, before main)");
            if let Err(m) = self.emit(EdgeOp::Call { callee: id, args: Vec::new(), lhs: None }, s, text) {
                self.emit_unsupported(s, m);
                return;
            }
        }
    }

    pub(super) fn declaration(&mut self, d: &Node<Declaration>, global: bool, block_end: usize) {
        let mut is_typedef = false;
        let mut is_extern = false;
        let mut is_static = false;
        // Issue 22: `_Thread_local`, or GNU's `__thread` (blanked before parsing).
        // A blanked `__thread` that begins the declaration lies before its span.
        let text = self.src.text.as_bytes();
        let mut thread_local = self.src.thread_at.iter().any(|&o| {
            (o >= d.span.start && o < d.span.end)
                || (o < d.span.start
                    && text.get(o..d.span.start).is_some_and(|b| b.iter().all(u8::is_ascii_whitespace)))
        });
        let mut specs = Vec::new();
        for s in &d.node.specifiers {
            match &s.node {
                DeclarationSpecifier::StorageClass(sc) => match sc.node {
                    StorageClassSpecifier::Typedef => is_typedef = true,
                    StorageClassSpecifier::Extern => is_extern = true,
                    StorageClassSpecifier::Static => is_static = true,
                    StorageClassSpecifier::ThreadLocal => {
                        is_static = true;
                        thread_local = true;
                    }
                    _ => {}
                },
                DeclarationSpecifier::TypeSpecifier(t) => specs.push(&t.node),
                _ => {}
            }
        }
        let dsp = sp(d.span);
        // Decision 255: the initializer of the only initialized declarator of a block-scope
        // declaration is a full expression whose steps are the declaration's.
        if !global && !is_typedef && !is_extern && !is_static {
            let mut inits = d.node.declarators.iter().filter_map(|i| i.node.initializer.as_ref());
            if let (Some(init), None) = (inits.next(), inits.next()) {
                if let Initializer::Expression(e) = &init.node {
                    let start = self.orig_range(sp(e.span)).0;
                    let decl = self.orig_range(dsp).0;
                    if start > decl {
                        self.cfa.initializer_starts.push((start, decl));
                    }
                }
            }
        }
        let base = self.base_type(&specs);
        let first_var = self.cfa.vars.len();
        self.declarators(d, is_typedef, is_extern, is_static, global, block_end, dsp, &base);
        if thread_local {
            let n = self.cfa.vars.len();
            self.cfa.thread_locals.extend((first_var..n).map(|i| VarId(i as u32)));
        }
    }

    /// The declarators of a declaration.
    #[allow(clippy::too_many_arguments)]
    fn declarators(
        &mut self,
        d: &Node<Declaration>,
        is_typedef: bool,
        is_extern: bool,
        is_static: bool,
        global: bool,
        block_end: usize,
        dsp: Sp,
        base: &Ty,
    ) {
        for idecl in &d.node.declarators {
            let (name, mut ty) = self.declarator_type(base.clone(), &idecl.node.declarator.node);
            let Some(name) = name else { continue };
            if is_typedef {
                if global {
                    self.cfa.typedefs.push((name.clone(), ty.to_ctype(self.dm)));
                    self.front.typedefs.push((name.clone(), ty.clone()));
                }
                self.bind(&name, Sym::Typedef(ty));
                continue;
            }
            if let Ty::Func(f) = &ty {
                let ret_ty = match &f.ret {
                    Ty::Int(t) => Some(*t),
                    _ => None,
                };
                if !self.cfa.externs.iter().any(|e| e.name == name) {
                    self.cfa.externs.push(ExternInfo { name: name.clone(), return_ty: ret_ty });
                }
                if !self.front.func_ids.contains_key(&name) {
                    self.front.sigs.insert(name.clone(), (**f).clone());
                }
                continue;
            }
            // Array size from the initializer.
            if let (Ty::Array(elem, None), Some(init)) = (&ty, &idecl.node.initializer) {
                if let Some(n) = self.infer_len(elem, &init.node) {
                    ty = Ty::Array(elem.clone(), Some(n));
                }
            }
            if global || is_extern && self.scopes.len() > 1 {
                // Decision 45: each file-scope variable declarator is a step (declarations
                // that `gcc -E` brought in from headers have no span in the file: none).
                if global {
                    if let Some(span) = self.span_of(dsp) {
                        let text = self.text(dsp);
                        self.global_steps.push((span, text));
                    }
                }
                self.global_var(&name, ty, idecl, dsp, is_extern);
                continue;
            }
            let f = match &self.f {
                Some(f) => f.id,
                None => continue,
            };
            let visible = self.orig_range((d.span.start, block_end));
            if is_static {
                let v = self.new_var(&name, &ty, VarScope::Global, visible, false);
                self.flatten_struct_var(v, &name, &ty, VarScope::Global, visible);
                self.bind(&name, Sym::Var(v, ty.clone()));
                if self.front.struct_vars.contains_key(&v) {
                    let init = idecl.node.initializer.as_ref().map(|i| &i.node);
                    let r = self.pure(|b| b.struct_decl_writes(v, &ty, init)).and_then(|w| self.push_global_writes(w));
                    if let Err(m) = r {
                        self.emit_unsupported(dsp, format!("initializer of static `{name}`: {m}"));
                    }
                    continue;
                }
                let init = match &idecl.node.initializer {
                    Some(i) => match self.pure(|b| b.initializer(&ty, &i.node)) {
                        Ok(x) => x,
                        Err(m) => {
                            self.emit_unsupported(dsp, format!("initializer of static `{name}`: {m}"));
                            Init::Zero
                        }
                    },
                    None => Init::Zero,
                };
                self.cfa.global_inits.push((v, init));
                continue;
            }
            if matches!(&ty, Ty::Other(w) if w == "variable-length array") {
                self.vla_decl(&name, base, &idecl.node.declarator.node, dsp, visible, f);
                continue;
            }
            let v = self.new_var(&name, &ty, VarScope::Local(f), visible, false);
            self.flatten_struct_var(v, &name, &ty, VarScope::Local(f), visible);
            let text = self.text(dsp);
            if self.front.struct_vars.contains_key(&v) {
                // All members are declared (and initialised) in one step.
                self.bind(&name, Sym::Var(v, ty.clone()));
                let s = self.snap();
                self.stmt_sp = dsp;
                let init = idecl.node.initializer.as_ref().map(|i| &i.node);
                let r = match init {
                    // `struct S s = f();`: the call's result goes to the leaves when it returns.
                    Some(Initializer::Expression(e)) if matches!(e.node, Expression::Call(_)) => {
                        let Expression::Call(c) = &e.node else { unreachable!() };
                        let leaves = self.leaves_under(v, "");
                        self.struct_call_target(c, StructDst::Leaves(leaves, ty.clone()))
                            .and_then(|target| self.call(c, Some(target), dsp))
                    }
                    _ => self
                        .struct_decl_writes(v, &ty, init)
                        .and_then(|writes| self.emit(EdgeOp::AssignAll { writes }, dsp, text.clone())),
                };
                if let Err(m) = r {
                    self.rollback(&s);
                    self.emit_unsupported(dsp, m);
                    self.bind(&name, Sym::Var(v, ty.clone()));
                }
                continue;
            }
            let Some(init) = &idecl.node.initializer else {
                self.bind(&name, Sym::Var(v, ty.clone()));
                let c = self.cur;
                let n = self.new_node();
                self.add_edge(c, n, EdgeOp::Declare { var: v, init: None }, Some(dsp), text);
                self.cur = n;
                continue;
            };
            // C11 6.2.1p7: the scope of the name begins just after its declarator, so the
            // initializer already sees it (`int z = ({ z = 3; });`; `int x = x;` reads the new,
            // indeterminate x, never an outer one).
            self.bind(&name, Sym::Var(v, ty.clone()));
            let s = self.snap();
            self.stmt_sp = dsp;
            let r = (|| -> R<()> {
                if let (Ty::Pointer(_), Initializer::Expression(e)) = (&ty, &init.node) {
                    return self.ptr_store_init(v, e, dsp);
                }
                if let (Ty::Int(t), Initializer::Expression(e)) = (&ty, &init.node) {
                    if let Expression::Call(c) = &e.node {
                        return self.call(c, Some(Target::Scalar(Place::Var { var: v, ty: ScalarTy::Int(*t) })), dsp);
                    }
                }
                if let (Some(fty), Initializer::Expression(e)) = (ty.float_ty(), &init.node) {
                    if let Expression::Call(c) = &e.node {
                        if self.float_nondet_call(c).is_some() {
                            return self.call_float(c, Some(Place::Var { var: v, ty: ScalarTy::Float(fty) }), dsp);
                        }
                        if self.call_name(c).is_ok_and(|n| self.front.func_ids.contains_key(n)) {
                            return self.call(
                                c,
                                Some(Target::Scalar(Place::Var { var: v, ty: ScalarTy::Float(fty) })),
                                dsp,
                            );
                        }
                    }
                }
                if let CType::Unsupported(what) = &self.cfa.var(v).ty {
                    return Err(format!("declaration of `{name}` of type {what} (not supported yet)").into());
                }
                let i = self.initializer(&ty, &init.node)?;
                self.emit(EdgeOp::Declare { var: v, init: Some(i) }, dsp, text.clone())
            })();
            if let Err(m) = r {
                self.rollback(&s);
                self.emit_unsupported(dsp, m);
                // The rollback may have dropped the binding's scope entry: bind again.
                self.bind(&name, Sym::Var(v, ty.clone()));
            }
        }
    }

    pub(super) fn global_var(&mut self, name: &str, ty: Ty, idecl: &Node<InitDeclarator>, dsp: Sp, is_extern: bool) {
        let existing = match self.scopes[0].get(name) {
            Some(Sym::Var(v, _)) => Some(*v),
            _ => None,
        };
        let v = match existing {
            Some(v) => {
                // A later complete type (e.g. array size) wins.
                if idecl.node.initializer.is_some() && !matches!(self.cfa.var(v).ty, CType::Bytes { .. }) {
                    self.cfa.vars[v.0 as usize].ty = ty.to_ctype(self.dm);
                    self.scopes[0].insert(name.to_string(), Sym::Var(v, ty.clone()));
                }
                v
            }
            None => {
                let v = self.new_var(name, &ty, VarScope::Global, (0, self.cfa.source_len), false);
                self.flatten_struct_var(v, name, &ty, VarScope::Global, (0, self.cfa.source_len));
                self.scopes[0].insert(name.to_string(), Sym::Var(v, ty.clone()));
                let idx = self.cfa.global_inits.len();
                self.cfa.global_inits.push((v, Init::Zero));
                self.global_init_index.insert(v, idx);
                v
            }
        };
        if self.scopes.len() > 1 {
            self.bind(name, Sym::Var(v, ty.clone()));
        }
        if !self.globals_declared.contains(&v) {
            self.globals_declared.push(v);
        }
        if !is_extern || idecl.node.initializer.is_some() {
            self.globals_defined.insert(v);
        }
        if self.front.struct_vars.contains_key(&v) {
            if let Some(init) = &idecl.node.initializer {
                let r = self
                    .pure(|b| b.struct_decl_writes(v, &ty, Some(&init.node)))
                    .and_then(|w| self.push_global_writes(w));
                if let Err(m) = r {
                    self.global_failures.push((dsp, format!("initializer of global `{name}`: {m}")));
                }
            }
            return;
        }
        if let Some(init) = &idecl.node.initializer {
            // The variable's own type: unions and arrays of structs are bytes, usable even though
            // their C type has no scalar model.
            let opaque = matches!(self.cfa.var(v).ty, CType::Unsupported(_));
            let made = self.cfa.global_inits.len();
            let r = match (&self.cfa.var(v).ty, ty.to_ctype(self.dm)) {
                (CType::Bytes { .. }, _) => self.pure(|b| b.initializer(&ty, &init.node)),
                (_, CType::Unsupported(w)) => {
                    Err(format!("initializer of global `{name}` of type {w} (not supported yet)").into())
                }
                _ => self.pure(|b| b.initializer(&ty, &init.node)),
            };
            match r {
                // Objects the initializer made (compound literals, decision 136; string
                // literals) are initialised first: the variable's value may be read from them.
                Ok(i) if self.cfa.global_inits.len() > made && self.global_init_index.contains_key(&v) => {
                    let idx = self.global_init_index[&v];
                    self.cfa.global_inits[idx].1 = Init::Zero;
                    self.global_init_index.insert(v, self.cfa.global_inits.len());
                    self.cfa.global_inits.push((v, i));
                }
                Ok(i) => {
                    if let Some(&idx) = self.global_init_index.get(&v) {
                        self.cfa.global_inits[idx].1 = i;
                    }
                }
                // A global that is never modelled only warns; one that is would start with
                // wrong values: every path that reaches `main` is unknown.
                Err(m) if opaque => self.warnings.push(m.to_string()),
                Err(m) => self.global_failures.push((dsp, format!("initializer of global `{name}`: {m}"))),
            }
        }
    }

    /// Static-storage struct initialisation: each leaf's initial value.
    pub(super) fn push_global_writes(&mut self, writes: Vec<Write>) -> R<()> {
        let mut inits = Vec::new();
        for w in writes {
            match w {
                Write::Declare { var, init } => inits.push((var, init.unwrap_or(Init::Zero))),
                _ => {
                    return Err(
                        "struct initializer of a static variable copies another struct (not supported yet)".into()
                    )
                }
            }
        }
        self.cfa.global_inits.extend(inits);
        Ok(())
    }
}
