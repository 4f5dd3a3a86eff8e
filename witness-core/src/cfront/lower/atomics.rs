//! gcc's atomic builtins (issue 52, decision 254): `__sync_*` and `__atomic_*` on an integer
//! object, each one step of its thread ([`EdgeOp::AssignAll`]: every value read in the state
//! before the step, then the writes in order), with gcc's semantics: the arithmetic wraps at the
//! object's width (no signed overflow), the value operands are converted to the object's type,
//! `__sync_*_compare_and_swap` and `__atomic_compare_exchange_n` compare and write in the same
//! step. Memory orders are not read (the validator's model is sequential consistency, for
//! every access); fences and `__sync_synchronize` are steps that change nothing. A weak
//! compare-exchange (which may fail spuriously) is not modelled.

use super::*;

/// The read-modify-write operation of a `fetch` builtin.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rmw {
    Add,
    Sub,
    And,
    Or,
    Xor,
    Nand,
}

/// What a builtin does.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `__sync_fetch_and_OP`, `__atomic_fetch_OP` (`new_value`: false) and `__sync_OP_and_fetch`,
    /// `__atomic_OP_fetch` (true).
    Fetch { op: Rmw, new_value: bool },
    /// `__sync_bool_compare_and_swap` (`boolean`) and `__sync_val_compare_and_swap`.
    SyncCas { boolean: bool },
    /// `__sync_lock_test_and_set`, `__atomic_exchange_n`: the old value, the new one stored.
    Exchange,
    /// `__sync_lock_release`: stores 0.
    Release,
    /// `__atomic_load_n`.
    Load,
    /// `__atomic_store_n`.
    Store,
    /// `__atomic_compare_exchange_n`.
    CompareExchange,
    /// `__sync_synchronize`, `__atomic_thread_fence`, `__atomic_signal_fence`.
    Fence,
}

/// The builtin `name` is, with the number of arguments it takes (memory orders included).
fn kind(name: &str) -> Option<(Kind, usize)> {
    let rmw = |s: &str| match s {
        "add" => Some(Rmw::Add),
        "sub" => Some(Rmw::Sub),
        "and" => Some(Rmw::And),
        "or" => Some(Rmw::Or),
        "xor" => Some(Rmw::Xor),
        "nand" => Some(Rmw::Nand),
        _ => None,
    };
    if let Some(rest) = name.strip_prefix("__sync_") {
        if let Some(op) = rest.strip_prefix("fetch_and_").and_then(rmw) {
            return Some((Kind::Fetch { op, new_value: false }, 2));
        }
        if let Some(op) = rest.strip_suffix("_and_fetch").and_then(rmw) {
            return Some((Kind::Fetch { op, new_value: true }, 2));
        }
        return match rest {
            "bool_compare_and_swap" => Some((Kind::SyncCas { boolean: true }, 3)),
            "val_compare_and_swap" => Some((Kind::SyncCas { boolean: false }, 3)),
            "lock_test_and_set" => Some((Kind::Exchange, 2)),
            "lock_release" => Some((Kind::Release, 1)),
            "synchronize" => Some((Kind::Fence, 0)),
            _ => None,
        };
    }
    let rest = name.strip_prefix("__atomic_")?;
    if let Some(op) = rest.strip_prefix("fetch_").and_then(rmw) {
        return Some((Kind::Fetch { op, new_value: false }, 3));
    }
    if let Some(op) = rest.strip_suffix("_fetch").and_then(rmw) {
        return Some((Kind::Fetch { op, new_value: true }, 3));
    }
    match rest {
        "load_n" => Some((Kind::Load, 2)),
        "store_n" => Some((Kind::Store, 3)),
        "exchange_n" => Some((Kind::Exchange, 3)),
        "compare_exchange_n" => Some((Kind::CompareExchange, 6)),
        "thread_fence" | "signal_fence" => Some((Kind::Fence, 1)),
        _ => None,
    }
}

impl<'a> Builder<'a> {
    /// Whether `name` is an atomic builtin the validator models (and the program does not
    /// define a function of that name).
    fn atomic_kind(&self, name: &str) -> Option<(Kind, usize)> {
        if self.front.func_ids.contains_key(name) {
            return None;
        }
        kind(name)
    }

    /// The object an atomic builtin's pointer argument points to, as a place of an integer type.
    fn atomic_object(&mut self, name: &str, p: &Node<Expression>) -> R<(Place, IntTy)> {
        let place = match &p.node {
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Address => {
                self.lv(&u.node.operand)?
            }
            _ => match self.ptr_expr(p)? {
                (ptr, Ty::Int(ty)) => Place::Deref { ptr, ty: ScalarTy::Int(ty) },
                _ => return Err(format!("`{name}` on an object that is not an integer (not modelled)").into()),
            },
        };
        match place.int_ty() {
            Some(t) if !t.is_bool => Ok((place, t)),
            _ => Err(format!("`{name}` on an object that is not an integer (not modelled)").into()),
        }
    }

    /// The result type of a call of an atomic builtin, or `None` if `name` is none.
    pub(super) fn atomic_result_type(&mut self, name: &str, c: &Node<CallExpression>) -> Option<R<ScalarTy>> {
        let (kind, _) = self.atomic_kind(name)?;
        Some((|| match kind {
            Kind::SyncCas { boolean: true } | Kind::CompareExchange => Ok(ScalarTy::Int(IntTy::BOOL)),
            Kind::Store | Kind::Release | Kind::Fence => Err(format!("value of the void builtin `{name}` used").into()),
            _ => {
                let p = c.node.arguments.first().ok_or_else(|| format!("`{name}` without arguments"))?;
                match self.ptr_expr(p)? {
                    (_, Ty::Int(t)) if !t.is_bool => Ok(ScalarTy::Int(t)),
                    _ => Err(format!("`{name}` on an object that is not an integer (not modelled)").into()),
                }
            }
        })())
    }

    /// Lowers a call of an atomic builtin to one step, or `None` if `name` is none.
    pub(super) fn atomic_call(
        &mut self,
        name: &str,
        c: &Node<CallExpression>,
        lhs: &Option<Target>,
        csp: Sp,
    ) -> Option<R<()>> {
        let (kind, arity) = self.atomic_kind(name)?;
        Some((|| {
            let args = &c.node.arguments;
            if args.len() != arity {
                return Err(format!("`{name}` with {} arguments ({arity} expected)", args.len()).into());
            }
            if let Some(a) = args.iter().find(|a| has_side_effects(&a.node)) {
                return Err(format!(
                    "argument `{}` with side effects in a call to `{name}` (not supported)",
                    self.text(sp(a.span))
                )
                .into());
            }
            let text = self.text(csp);
            let mut writes = Vec::new();
            let result = match kind {
                Kind::Fence => None,
                _ => {
                    let (obj, t) = self.atomic_object(name, &args[0])?;
                    let old = obj.read();
                    let value = |b: &mut Self, i: usize| -> R<Expr> { Ok(b.rv_any(&args[i])?.into_int(t)) };
                    match kind {
                        Kind::Fetch { op, new_value } => {
                            let v = value(self, 1)?;
                            let new = wrapping(op, old.clone(), v, t);
                            writes.push(Write::Scalar { lhs: obj, rhs: new.clone() });
                            Some(if new_value { new } else { old })
                        }
                        Kind::SyncCas { boolean } => {
                            let (expected, desired) = (value(self, 1)?, value(self, 2)?);
                            let equal = types::binary(BinOp::Eq, old.clone(), expected);
                            let stored = types::ite_any(equal.clone(), desired, old.clone());
                            writes.push(Write::Scalar { lhs: obj, rhs: stored });
                            Some(if boolean { equal } else { old })
                        }
                        Kind::Exchange => {
                            let v = value(self, 1)?;
                            writes.push(Write::Scalar { lhs: obj, rhs: v });
                            Some(old)
                        }
                        Kind::Release => {
                            writes.push(Write::Scalar { lhs: obj, rhs: Expr::int(0).into_int(t) });
                            None
                        }
                        Kind::Load => Some(old),
                        Kind::Store => {
                            let v = value(self, 1)?;
                            writes.push(Write::Scalar { lhs: obj, rhs: v });
                            None
                        }
                        Kind::CompareExchange => {
                            match types::fold_i128(&self.rv_any(&args[3])?) {
                                Some(0) => {}
                                Some(_) => {
                                    return Err(
                                        format!("weak `{name}`, which may fail spuriously (not modelled)").into()
                                    )
                                }
                                None => {
                                    return Err(format!(
                                        "`{name}` whose `weak` argument is not a constant (not modelled)"
                                    )
                                    .into())
                                }
                            }
                            let (exp, et) = self.atomic_object(name, &args[1])?;
                            if et != t {
                                return Err(format!(
                                    "`{name}` whose expected value has another type than the object (not modelled)"
                                )
                                .into());
                            }
                            let desired = value(self, 2)?;
                            let equal = types::binary(BinOp::Eq, old.clone(), exp.read());
                            // `*expected` first: when both pointers name one object the values
                            // are equal and the object ends up with the desired value.
                            let kept = types::ite_any(equal.clone(), exp.read(), old.clone());
                            writes.push(Write::Scalar { lhs: exp, rhs: kept });
                            writes.push(Write::Scalar { lhs: obj, rhs: types::ite_any(equal.clone(), desired, old) });
                            Some(equal)
                        }
                        Kind::Fence => None,
                    }
                }
            };
            match (lhs, result) {
                (None, _) => {}
                (Some(_), None) => return Err(format!("value of the void builtin `{name}` used").into()),
                (Some(Target::Scalar(lv)), Some(r)) => {
                    let rhs = match lv.ty() {
                        ScalarTy::Int(to) => r.into_int(to),
                        ScalarTy::Float(to) => r.into_float(to),
                        ScalarTy::Ptr => {
                            return Err(format!("result of `{name}` stored into a pointer (not supported)").into())
                        }
                    };
                    // After the object's write: `x = __sync_fetch_and_add(&x, 1)` stores the old value.
                    writes.push(Write::Scalar { lhs: lv.clone(), rhs });
                }
                (Some(Target::Struct(_)), Some(_)) => {
                    return Err(format!("result of `{name}` stored into a struct").into())
                }
            }
            self.note_call(c.span);
            self.emit(EdgeOp::AssignAll { writes }, csp, text)
        })())
    }
}

/// `old op v` at the width of `t`, wrapping (gcc: as if the operands were unsigned), as `t`.
fn wrapping(op: Rmw, old: Expr, v: Expr, t: IntTy) -> Expr {
    let u = IntTy::new(t.bits, false);
    let (a, b) = (old.into_int(u), v.into_int(u));
    let r = match op {
        Rmw::Add => types::binary(BinOp::Add, a, b),
        Rmw::Sub => types::binary(BinOp::Sub, a, b),
        Rmw::And => types::binary(BinOp::BitAnd, a, b),
        Rmw::Or => types::binary(BinOp::BitOr, a, b),
        Rmw::Xor => types::binary(BinOp::BitXor, a, b),
        Rmw::Nand => types::unary(UnOp::BitNot, types::binary(BinOp::BitAnd, a, b)),
    };
    r.into_int(t)
}
