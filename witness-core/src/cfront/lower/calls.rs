//! Calls: user functions, nondet functions, library models and builtins.

use super::*;

/// Names of the `__VERIFIER_nondet_*` functions and their result types.
pub fn nondet_type(name: &str, dm: DataModel) -> Option<R<IntTy>> {
    let suffix = name.strip_prefix("__VERIFIER_nondet_")?;
    let long = types::long_ty(dm, true);
    let ulong = types::long_ty(dm, false);
    Some(Ok(match suffix {
        "int" | "s32" | "int32" | "i32" => IntTy::INT,
        "uint" | "unsigned" | "unsigned_int" | "u32" | "uint32" => IntTy::UINT,
        "long" | "s64" => long,
        "ulong" | "unsigned_long" | "size_t" | "sector_t" => ulong,
        "longlong" | "long_long" | "int64" => IntTy::LLONG,
        "ulonglong" | "unsigned_long_long" | "u64" | "uint64" => IntTy::ULLONG,
        "char" | "s8" | "int8" => IntTy::CHAR,
        "uchar" | "unsigned_char" | "u8" | "uint8" => IntTy::UCHAR,
        "short" | "s16" | "int16" => IntTy::SHORT,
        "ushort" | "unsigned_short" | "u16" | "uint16" => IntTy::USHORT,
        "bool" | "_Bool" => IntTy::BOOL,
        // `typedef long long loff_t` in Linux and glibc: 64 bits in both data models.
        "loff_t" => IntTy::LLONG,
        "pointer" | "charp" | "pchar" | "longdouble" | "long_double" => {
            return Some(Err(
                format!("call of `{name}` (non-integer nondeterministic values are not supported yet)").into()
            ))
        }
        _ => return None,
    }))
}

/// `__VERIFIER_nondet_float` / `_double`: the floating type of the result (the declared return
/// type wins when the program declares the function with a floating type).
pub(super) fn float_nondet(name: &str, declared: Option<&Ty>) -> Option<FloatTy> {
    let suffix = name.strip_prefix("__VERIFIER_nondet_")?;
    if let Some(t) = declared {
        return t.float_ty();
    }
    match suffix {
        "float" => Some(FloatTy::F32),
        "double" => Some(FloatTy::F64),
        _ => None,
    }
}

/// Math library functions modelled exactly: name → (operation, type).
pub(super) fn math_function(name: &str) -> Option<(FMath, FloatTy)> {
    let name = name.strip_prefix("__builtin_").unwrap_or(name);
    let (base, fty) = match name.strip_suffix('f') {
        Some(b) if b != "modf" && b != "erf" => (b, FloatTy::F32),
        _ => (name, FloatTy::F64),
    };
    let f = match base {
        "fabs" => FMath::Fabs,
        "sqrt" => FMath::Sqrt,
        "floor" => FMath::Floor,
        "ceil" => FMath::Ceil,
        "trunc" => FMath::Trunc,
        "round" => FMath::Round,
        _ => return None,
    };
    Some((f, fty))
}

/// Libm functions evaluated on constant arguments (decision 59): name → (function, type).
pub(super) fn libm_function(name: &str) -> Option<(Libm, FloatTy)> {
    let name = name.strip_prefix("__builtin_").unwrap_or(name);
    if let Some(f) = Libm::from_name(name) {
        return Some((f, FloatTy::F64));
    }
    Libm::from_name(name.strip_suffix('f')?).map(|f| (f, FloatTy::F32))
}

/// Classification macros and the functions glibc's `<math.h>` expands them to.
pub(super) fn class_function(name: &str) -> Option<(FClass, Option<FloatTy>)> {
    Some(match name {
        "isnan" | "__builtin_isnan" => (FClass::IsNan, None),
        "__isnan" => (FClass::IsNan, Some(FloatTy::F64)),
        "__isnanf" => (FClass::IsNan, Some(FloatTy::F32)),
        "isinf" | "__builtin_isinf" | "__builtin_isinf_sign" => (FClass::IsInf, None),
        "__isinf" => (FClass::IsInf, Some(FloatTy::F64)),
        "__isinff" => (FClass::IsInf, Some(FloatTy::F32)),
        "isfinite" | "finite" | "__builtin_isfinite" => (FClass::IsFinite, None),
        "__finite" => (FClass::IsFinite, Some(FloatTy::F64)),
        "__finitef" => (FClass::IsFinite, Some(FloatTy::F32)),
        "isnormal" | "__builtin_isnormal" => (FClass::IsNormal, None),
        "signbit" | "__builtin_signbit" => (FClass::SignBit, None),
        "__signbit" => (FClass::SignBit, Some(FloatTy::F64)),
        "__signbitf" => (FClass::SignBit, Some(FloatTy::F32)),
        _ => return None,
    })
}

/// The quiet comparison macros of `<math.h>` (C11 7.12.14) and the GCC builtins glibc expands
/// them to: false when an argument is a NaN, like the ordered comparison operators (their only
/// difference, the `FE_INVALID` flag, is not observable here; decision 103). `Some(Some(op))`
/// for a single comparison, `Some(None)` for `islessgreater` (`<` or `>`) and `isunordered`.
pub(super) fn quiet_comparison(name: &str) -> Option<Option<BinOp>> {
    Some(match name.strip_prefix("__builtin_").unwrap_or(name) {
        "isgreater" => Some(BinOp::Gt),
        "isgreaterequal" => Some(BinOp::Ge),
        "isless" => Some(BinOp::Lt),
        "islessequal" => Some(BinOp::Le),
        "islessgreater" | "isunordered" => None,
        _ => return None,
    })
}

/// Names of `<math.h>` functions returning floating values that are not modelled.
pub(super) fn is_math_name(name: &str) -> bool {
    const NAMES: &[&str] = &[
        "sin",
        "cos",
        "tan",
        "asin",
        "acos",
        "atan",
        "atan2",
        "sinh",
        "cosh",
        "tanh",
        "exp",
        "exp2",
        "expm1",
        "log",
        "log2",
        "log10",
        "log1p",
        "pow",
        "cbrt",
        "hypot",
        "fmod",
        "remainder",
        "fmin",
        "fmax",
        "fma",
        "rint",
        "nearbyint",
        "lrint",
        "lround",
        "modf",
        "frexp",
        "ldexp",
        "scalbn",
        "copysign",
        "nextafter",
        "erf",
        "erfc",
        "tgamma",
        "lgamma",
        "fdim",
        "logb",
        "ilogb",
    ];
    let base = name.strip_suffix('f').filter(|b| NAMES.contains(b)).unwrap_or(name);
    NAMES.contains(&base) || NAMES.contains(&name.strip_suffix('l').unwrap_or(name))
}

/// `NAN`, `INFINITY`, `HUGE_VAL` as `gcc -E` expands them: `__builtin_nan("")`, `__builtin_inff()`…
pub(super) fn float_builtin_constant(name: &str) -> Option<Expr> {
    let (fty, v) = match name {
        "__builtin_nanf" => (FloatTy::F32, f64::NAN),
        "__builtin_nan" => (FloatTy::F64, f64::NAN),
        "__builtin_inff" | "__builtin_huge_valf" => (FloatTy::F32, f64::INFINITY),
        "__builtin_inf" | "__builtin_huge_val" => (FloatTy::F64, f64::INFINITY),
        _ => return None,
    };
    Some(Expr::Const { bits: fty.bits_of(v), ty: ScalarTy::Float(fty) })
}

impl<'a> Builder<'a> {
    /// `__builtin_expect(e, c)` (and `__builtin_expect_with_probability`): the value of `e` as a
    /// `long`; `c` (a constant hint) is evaluated for its side effects only.
    pub(super) fn expect_builtin(&mut self, c: &Node<CallExpression>) -> R<Option<Expr>> {
        let Expression::Identifier(i) = &c.node.callee.node else { return Ok(None) };
        let name = i.node.name.as_str();
        if !matches!(name, "__builtin_expect" | "__builtin_expect_with_probability")
            || self.front.func_ids.contains_key(name)
        {
            return Ok(None);
        }
        let args = &c.node.arguments;
        if args.len() != if name == "__builtin_expect" { 2 } else { 3 } {
            return Err(format!("`{name}` with {} arguments", args.len()).into());
        }
        if args[1..].iter().any(|a| has_side_effects(&a.node)) {
            return Err(format!("`{name}` with a hint that has side effects (not supported)").into());
        }
        let v = if self.is_ptr_expr(&args[0]) {
            return Err(format!("`{name}` of a pointer (a pointer converted to a number is not supported)").into());
        } else {
            self.rv_any(&args[0])?
        };
        Ok(Some(v.into_int(IntTy::new(self.dm.long_bits(), true))))
    }

    /// Decision 58: inline assembly. Without outputs, a no-op (unless it may write memory);
    /// the output operands get fresh values in one `EdgeOp::Havoc` step, which the product
    /// treats as approximate (a confirmation must hold for every value).
    pub(super) fn asm(&mut self, a: &Node<AsmStatement>, ssp: Sp) -> R<()> {
        let text = self.text(ssp);
        let line_note = "inline assembly";
        let ext = match &a.node {
            AsmStatement::GnuBasic(t) => {
                let tmpl = string_bytes(&t.node)?;
                if tmpl.iter().all(|b| b.is_ascii_whitespace()) {
                    return Ok(());
                }
                return Err(format!(
                    "{line_note} `{text}` (basic asm with instructions may have any effect; not modelled)"
                )
                .into());
            }
            AsmStatement::GnuExtended(x) => x,
        };
        let tmpl = String::from_utf8_lossy(&string_bytes(&ext.template.node)?).into_owned();
        let mut clobbers = Vec::new();
        for c in &ext.clobbers {
            clobbers.push(String::from_utf8_lossy(&string_bytes(&c.node)?).into_owned());
        }
        if gnu::asm_writes_memory(&tmpl, &clobbers) {
            return Err(
                format!("{line_note} `{text}` with a \"memory\" clobber may write any memory (not modelled)").into()
            );
        }
        for o in ext.outputs.iter().chain(&ext.inputs) {
            if has_side_effects(&o.node.variable_name.node) {
                return Err(
                    format!("{line_note} `{text}` with an operand that has side effects (not supported)").into()
                );
            }
        }
        if ext.outputs.is_empty() {
            return Ok(());
        }
        let mut lhs = Vec::new();
        for o in &ext.outputs {
            let e = &o.node.variable_name;
            if self.is_ptr_expr(e) || self.float_lvalue(e)?.is_some() {
                return Err(format!("{line_note} `{text}` with an output that is not an integer (not modelled)").into());
            }
            lhs.push(self.lv(e)?);
        }
        self.emit(EdgeOp::Havoc { lhs, what: format!("{line_note} `{text}`") }, ssp, text.clone())?;
        self.warnings.push(format!(
            "inline assembly `{text}`: its outputs are havocked (any value); a confirmation must hold for every value"
        ));
        Ok(())
    }

    /// Math functions, classification macros and `NAN`/`INFINITY` builtins: side-effect-free
    /// expressions (no call step). `None` if `c` is none of them or the program defines it.
    pub(super) fn float_builtin(&mut self, c: &Node<CallExpression>) -> R<Option<Expr>> {
        let Expression::Identifier(i) = &c.node.callee.node else { return Ok(None) };
        let name = i.node.name.as_str();
        if self.front.func_ids.contains_key(name) {
            return Ok(None);
        }
        let args = &c.node.arguments;
        if let Some(k) = float_builtin_constant(name) {
            return Ok(Some(k));
        }
        if let Some((func, fty)) = math_function(name) {
            let [a] = &args[..] else {
                return Err(format!("`{name}` needs one argument").into());
            };
            let a = self.rv_any(a)?.into_float(fty);
            return Ok(Some(Expr::Math { func, args: vec![a] }));
        }
        if let Some((func, fty)) = libm_function(name) {
            if args.len() != func.arity() {
                return Err(format!("`{name}` needs {} argument(s)", func.arity()).into());
            }
            let mut vals = Vec::new();
            for a in args {
                vals.push(self.rv_any(a)?.into_float(fty));
            }
            return Ok(Some(Expr::Libm { func, args: vals, fty }));
        }
        if let Some((class, fty)) = class_function(name) {
            let [a] = &args[..] else {
                return Err(format!("`{name}` needs one argument").into());
            };
            let a = match (self.rv_any(a)?, fty) {
                (v, Some(t)) => v.into_float(t),
                (f, None) if f.float_ty().is_some() => f,
                (x, None) => x.into_float(FloatTy::F64),
            };
            return Ok(Some(Expr::FloatClass { class, arg: Box::new(a) }));
        }
        if let Some(op) = quiet_comparison(name) {
            let [a, b] = &args[..] else {
                return Err(format!("`{name}` needs two arguments").into());
            };
            let (a, b) = (self.rv_any(a)?, self.rv_any(b)?);
            if a.int_ty().is_some() && b.int_ty().is_some() {
                return Err(format!("`{name}` with integer arguments (invalid: gcc needs a floating argument)").into());
            }
            let (a, b) = types::float_operands(a, b);
            let cmp = |op| types::compare(op, a.clone(), b.clone());
            let nan = |x: &Expr| Expr::FloatClass { class: FClass::IsNan, arg: Box::new(x.clone()) };
            return Ok(Some(match op {
                Some(op) => cmp(op),
                None if name.ends_with("lessgreater") => types::binary(BinOp::LogOr, cmp(BinOp::Lt), cmp(BinOp::Gt)),
                None => types::binary(BinOp::LogOr, nan(&a), nan(&b)),
            }));
        }
        if is_math_name(name) {
            return Err(format!("call to the math function `{name}` (not modelled)").into());
        }
        Ok(None)
    }

    /// The floating type of a `__VERIFIER_nondet_float/double` call.
    pub(super) fn float_nondet_call(&self, c: &Node<CallExpression>) -> Option<FloatTy> {
        let Expression::Identifier(i) = &c.node.callee.node else { return None };
        let name = i.node.name.as_str();
        if self.front.func_ids.contains_key(name) {
            return None;
        }
        float_nondet(name, self.front.sigs.get(name).map(|s| &s.ret))
    }

    /// A call of `__VERIFIER_nondet_float/double` storing into the float variable `var`.
    pub(super) fn call_float(&mut self, c: &Node<CallExpression>, lhs: Option<Place>, csp: Sp) -> R<()> {
        let name = self.call_name(c)?.to_string();
        let fty = self.float_nondet_call(c).ok_or_else(|| format!("call to `{name}` returning a float"))?;
        if self.pure_mode {
            return Err(format!("call to `{name}` where a side-effect-free expression is needed").into());
        }
        let text = self.text(csp);
        self.note_call(c.span);
        self.emit(EdgeOp::FloatNondetCall { function: name, lhs, fty }, csp, text)
    }

    pub(super) fn call_name<'b>(&self, c: &'b Node<CallExpression>) -> R<&'b str> {
        match &c.node.callee.node {
            Expression::Identifier(i) => Ok(&i.node.name),
            _ => Err(format!(
                "call through the expression `{}` (function pointers are not supported yet)",
                self.text(sp(c.node.callee.span))
            )
            .into()),
        }
    }

    /// The result type of a call of a `__VERIFIER_nondet_*` function: the integer type the
    /// program declares it with, else the built-in table by name (decision 105). `None`: not
    /// a nondet function (or one declared with a floating type, see `float_nondet`).
    pub(super) fn nondet_result(&self, name: &str) -> Option<R<IntTy>> {
        if !name.starts_with("__VERIFIER_nondet_") || self.front.func_ids.contains_key(name) {
            return nondet_type(name, self.dm);
        }
        match self.front.sigs.get(name).map(|s| &s.ret) {
            Some(Ty::Int(t)) => Some(Ok(*t)),
            Some(f @ Ty::Float(_)) if f.float_ty().is_some() => None,
            _ => nondet_type(name, self.dm),
        }
    }

    pub(super) fn call_result_type(&mut self, c: &Node<CallExpression>) -> R<ScalarTy> {
        if self.is_indirect_call(c) {
            let ret = match self.expr_ty(&c.node.callee) {
                Some(Ty::Func(f)) => f.ret.clone(),
                Some(Ty::Pointer(t)) => match *t {
                    Ty::Func(f) => f.ret.clone(),
                    _ => return Err("call through a pointer that is not a function pointer".into()),
                },
                _ => return Err("call through an expression of unknown type".into()),
            };
            return match ret_scalar(&ret) {
                Ok(Some(t)) => Ok(t),
                Ok(None) => Err("value of a void function used".into()),
                Err(()) => Err(format!("call returning {} (not supported yet)", ret.describe(self.dm)).into()),
            };
        }
        let name = self.call_name(c)?;
        if let Some(r) = self.nondet_result(name) {
            return r.map(ScalarTy::Int);
        }
        if let Some(r) = self.atomic_result_type(name, c) {
            return r;
        }
        match name {
            "reach_error" | "__VERIFIER_error" | "__assert_fail" | "abort" | "exit" | "__VERIFIER_assume" => {
                return Ok(ScalarTy::Int(IntTy::INT))
            }
            _ => {}
        }
        if OUTPUT_FUNCS.contains(&name) && !self.front.func_ids.contains_key(name) {
            return Ok(ScalarTy::Int(IntTy::INT));
        }
        match self.front.sigs.get(name).map(|s| &s.ret) {
            Some(Ty::Int(t)) => Ok(ScalarTy::Int(*t)),
            Some(f @ Ty::Float(_)) if f.float_ty().is_some() && self.front.func_ids.contains_key(name) => {
                Ok(ScalarTy::Float(f.float_ty().ok_or("float type")?))
            }
            Some(Ty::Void) => Err(format!("value of the void function `{name}` used").into()),
            Some(Ty::Pointer(_)) => Ok(ScalarTy::Ptr),
            Some(other) => {
                Err(format!("call to `{name}` returning {} (not supported yet)", other.describe(self.dm)).into())
            }
            None if self.front.func_ids.contains_key(name) => Ok(ScalarTy::Int(IntTy::INT)),
            None => Err(format!("call to undefined function `{name}`").into()),
        }
    }

    /// Stores an integer result computed by `op` (a call step storing into `Some(lhs)`) into a
    /// floating-point place: through an integer temporary, then a conversion step.
    pub(super) fn int_call_into_float(
        &mut self,
        flv: Place,
        fty: FloatTy,
        ty: IntTy,
        csp: Sp,
        op: impl FnOnce(Place) -> EdgeOp,
    ) -> R<()> {
        let text = self.text(csp);
        let tmp = self.new_temp(ty)?;
        self.emit(op(Place::Var { var: tmp, ty: ScalarTy::Int(ty) }), csp, text.clone())?;
        let rhs = Expr::Var { var: tmp, ty: ScalarTy::Int(ty) }.into_float(fty);
        self.emit(EdgeOp::Assign { lhs: flv, rhs }, csp, text)
    }

    /// Argument `i` of a call of the function `name` that the validator models (`__VERIFIER_error`,
    /// `__VERIFIER_assume`), converted as a call converts it: to the parameter type the program's
    /// prototype declares (issue 32 cause 16: with `void __VERIFIER_error(unsigned char)` the call
    /// `__VERIFIER_error(263)` passes 7). A prototype that differs from the competition's (`int`)
    /// is worth a warning, since the program then means something else by the call.
    fn declared_arg(&mut self, name: &str, i: usize, a: &Node<Expression>) -> R<Expr> {
        let v = self.rv_any(a)?;
        let declared = self.front.sigs.get(name).and_then(|s| s.params.as_ref()).and_then(|p| p.get(i)).cloned();
        match declared {
            Some(Ty::Int(t)) => {
                let warning = format!(
                    "`{name}` is declared with a parameter of type {}, not `int` as in the competition's prototype; its arguments are converted to that type, as in C",
                    Ty::Int(t).describe(self.dm)
                );
                if t != IntTy::INT && !self.warnings.contains(&warning) {
                    self.warnings.push(warning);
                }
                Ok(v.into_int(t))
            }
            None => Ok(v),
            Some(other) => {
                Err(format!("`{name}` declared with a parameter of type {} (not supported)", other.describe(self.dm))
                    .into())
            }
        }
    }

    /// Lowers a call; `lhs` receives the result. `csp` is the span of the step.
    pub(super) fn call(&mut self, c: &Node<CallExpression>, lhs: Option<Target>, csp: Sp) -> R<()> {
        if self.is_indirect_call(c) {
            return self.call_ptr(c, lhs, csp);
        }
        let name = self.call_name(c)?.to_string();
        if self.pure_mode {
            return Err(format!("call to `{name}` where a side-effect-free expression is needed").into());
        }
        if let Some(r) = self.heap_call(&name, c, &lhs, csp) {
            return r;
        }
        if let Some(r) = self.thread_call(&name, c, &lhs, csp) {
            return r;
        }
        if let Some(r) = self.atomic_call(&name, c, &lhs, csp) {
            return r;
        }
        let args = &c.node.arguments;
        let text = self.text(csp);
        if let Some(v) = self.expect_builtin(c)? {
            let op = match lhs {
                None => return Ok(()),
                Some(Target::Scalar(lv)) => match lv.ty() {
                    ScalarTy::Int(t) => EdgeOp::Assign { rhs: v.into_int(t), lhs: lv },
                    ScalarTy::Float(fty) => EdgeOp::Assign { rhs: v.into_float(fty), lhs: lv },
                    ScalarTy::Ptr => return Err(format!("result of `{name}` stored into a pointer or struct").into()),
                },
                Some(Target::Struct(_)) => {
                    return Err(format!("result of `{name}` stored into a pointer or struct").into())
                }
            };
            return self.emit(op, csp, text);
        }
        match name.as_str() {
            "reach_error" | "__VERIFIER_error" => {
                let kind = if name == "reach_error" { ErrorKind::ReachError } else { ErrorKind::VerifierError };
                // RERS: `__VERIFIER_error(N)` names the error code reached (issue 21); an
                // argument that cannot be lowered leaves the code unknown.
                let code = match &args[..] {
                    [a] if kind == ErrorKind::VerifierError => {
                        self.declared_arg(&name, 0, a).ok().map(|v| v.into_int(IntTy::INT))
                    }
                    _ => None,
                };
                return self.emit(EdgeOp::Error { kind, function: name, code }, csp, text);
            }
            "__assert_fail" | "__assert_perror_fail" | "__assert" => {
                return self.emit(EdgeOp::Error { kind: ErrorKind::AssertFail, function: name, code: None }, csp, text);
            }
            "abort" | "exit" | "_exit" | "_Exit" | "__VERIFIER_abort" => {
                return self.emit(EdgeOp::Terminate { function: name }, csp, text);
            }
            "atexit" if !self.front.func_ids.contains_key("atexit") => {
                // Decision 76: a handler named directly (`f` or `&f`).
                let handler = match &args[..] {
                    [a] => match &pointers::strip_casts(a).node {
                        Expression::Identifier(i) if self.lookup(&i.node.name).is_none() => {
                            self.front.func_ids.get(&i.node.name).copied()
                        }
                        Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Address => {
                            match &u.node.operand.node {
                                Expression::Identifier(i) if self.lookup(&i.node.name).is_none() => {
                                    self.front.func_ids.get(&i.node.name).copied()
                                }
                                _ => None,
                            }
                        }
                        _ => None,
                    },
                    _ => None,
                };
                let handler = handler.ok_or_else(|| {
                    format!("`atexit` with a handler other than a function defined in the program: `{text}`")
                })?;
                let lhs = match lhs {
                    None => None,
                    Some(Target::Scalar(lv)) if lv.int_ty().is_some() => Some(lv),
                    Some(_) => return Err(format!("result of `{name}` stored into a pointer or struct").into()),
                };
                return self.emit(EdgeOp::AtExit { handler, lhs }, csp, text);
            }
            "__VERIFIER_assume" => {
                let [a] = &args[..] else {
                    return Err("__VERIFIER_assume needs one argument".into());
                };
                let cond = self.declared_arg(&name, 0, a)?.truth();
                return self.emit(EdgeOp::BuiltinAssume { cond }, csp, text);
            }
            "assert" if !self.front.func_ids.contains_key("assert") => {
                let [a] = &args[..] else {
                    return Err("assert needs one argument".into());
                };
                let ok = self.new_node();
                let fail = self.new_node();
                self.branch(a, ok, fail, false)?;
                self.add_edge(
                    fail,
                    ok,
                    EdgeOp::Error { kind: ErrorKind::AssertFail, function: "assert".into(), code: None },
                    Some(csp),
                    text,
                );
                self.cur = ok;
                return Ok(());
            }
            _ => {}
        }
        if let Some(fty) = self.float_nondet_call(c) {
            // A floating nondeterministic value stored into an integer (or dropped).
            let lhs = match lhs {
                Some(Target::Scalar(flv)) if flv.float_ty().is_some() => return self.call_float(c, Some(flv), csp),
                lhs => lhs,
            };
            let tmp = self.new_float_temp(fty)?;
            self.call_float(c, Some(Place::Var { var: tmp, ty: ScalarTy::Float(fty) }), csp)?;
            match lhs {
                Some(Target::Scalar(lv)) if lv.ty() == ScalarTy::Ptr => {
                    return Err("a float stored into a pointer".into())
                }
                Some(Target::Scalar(lv)) => {
                    let rhs = Expr::Var { var: tmp, ty: ScalarTy::Float(fty) }.into_int(Self::int_ty(&lv));
                    self.emit(EdgeOp::Assign { lhs: lv, rhs }, csp, text)?;
                }
                Some(Target::Struct(_)) => return Err("a float stored into a struct".into()),
                None => {}
            }
            return Ok(());
        }
        if let Some(r) = self.nondet_result(&name) {
            let ty = r?;
            for a in args {
                if has_side_effects(&a.node) {
                    return Err(format!("argument with side effects in a call to `{name}` (not supported)").into());
                }
            }
            self.note_call(c.span);
            return match lhs {
                Some(Target::Scalar(lv)) => match lv.ty() {
                    ScalarTy::Float(fty) => self.int_call_into_float(lv, fty, ty, csp, |lv| EdgeOp::NondetCall {
                        function: name,
                        lhs: Some(lv),
                        ty,
                    }),
                    ScalarTy::Int(_) => self.emit(EdgeOp::NondetCall { function: name, lhs: Some(lv), ty }, csp, text),
                    // `p = (void *)__VERIFIER_nondet_int();`: the integer, then its conversion to a
                    // pointer (decision 51), as two steps of the statement.
                    ScalarTy::Ptr => {
                        let tmp = self.new_temp(ty)?;
                        let tmp_lv = Place::Var { var: tmp, ty: ScalarTy::Int(ty) };
                        let op = EdgeOp::NondetCall { function: name, lhs: Some(tmp_lv), ty };
                        self.emit(op, csp, text.clone())?;
                        let rhs = Expr::Cast {
                            arg: Box::new(Expr::Var { var: tmp, ty: ScalarTy::Int(ty) }),
                            to: ScalarTy::Ptr,
                        };
                        self.emit(EdgeOp::Assign { lhs: lv, rhs }, csp, text)
                    }
                },
                None => self.emit(EdgeOp::NondetCall { function: name, lhs: None, ty }, csp, text),
                Some(Target::Struct(_)) => Err(format!("struct result of `{name}` (not modelled)").into()),
            };
        }
        if let Some(&id) = self.front.func_ids.get(&name) {
            let ptys = self.front.func_param_tys[id.0 as usize].clone();
            let f = self.cfa.function(id).clone();
            if let Some(w) = &f.return_unsupported {
                return Err(format!("call to `{name}` returning {w} (not supported yet)").into());
            }
            if self.front.func_variadic[id.0 as usize] {
                return Err(format!("call to the variadic function `{name}` (not supported yet)").into());
            }
            let struct_result = self.front.result_vars.contains_key(&id);
            match &lhs {
                Some(Target::Struct(_)) if !struct_result => {
                    return Err(format!("`{name}` does not return a struct").into());
                }
                Some(Target::Struct(_)) => {}
                Some(_) if f.return_ty.is_none() => {
                    return Err(format!("value of the void function `{name}` used").into())
                }
                _ => {}
            }
            let vals = self.lower_args(&name, args, &ptys)?;
            self.note_call(c.span);
            return self.emit(EdgeOp::Call { callee: id, args: vals, lhs }, csp, text);
        }
        if OUTPUT_FUNCS.contains(&name.as_str()) {
            for a in args {
                if has_side_effects(&a.node) {
                    return Err(format!("argument with side effects in a call to `{name}` (not supported)").into());
                }
            }
            self.note_call(c.span);
            return match lhs {
                Some(Target::Scalar(lv)) => match lv.ty() {
                    ScalarTy::Float(fty) => self.int_call_into_float(lv, fty, IntTy::INT, csp, |lv| {
                        EdgeOp::NondetCall { function: name, lhs: Some(lv), ty: IntTy::INT }
                    }),
                    ScalarTy::Int(_) => {
                        self.emit(EdgeOp::NondetCall { function: name, lhs: Some(lv), ty: IntTy::INT }, csp, text)
                    }
                    ScalarTy::Ptr => Err(format!("pointer result of `{name}` (not modelled)").into()),
                },
                None => self.emit(EdgeOp::NondetCall { function: name, lhs: None, ty: IntTy::INT }, csp, text),
                Some(Target::Struct(_)) => Err(format!("struct result of `{name}` (not modelled)").into()),
            };
        }
        Err(format!("call to undefined function `{name}`").into())
    }
}
