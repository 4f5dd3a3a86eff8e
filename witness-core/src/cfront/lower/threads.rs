//! POSIX threads and atomic sections (issue 22): `pthread_create`, `pthread_join`,
//! `pthread_exit`, `pthread_self`, the mutex functions and `__VERIFIER_atomic_begin/end`, when
//! the program does not define them itself. Everything else of `<pthread.h>` stays a call of an
//! undefined function (unsupported, named).

use super::pointers::{is_zero_constant, strip_casts};
use super::*;
use crate::cfa::{MutexOp, Routine};

impl<'a> Builder<'a> {
    /// Lowers a call of a thread primitive, or `None` if `name` is none (or the program defines
    /// it).
    pub(super) fn thread_call(
        &mut self,
        name: &str,
        c: &Node<CallExpression>,
        lhs: &Option<Target>,
        csp: Sp,
    ) -> Option<R<()>> {
        if self.front.func_ids.contains_key(name) {
            return None;
        }
        let mutex = match name {
            "pthread_mutex_init" => Some(MutexOp::Init),
            "pthread_mutex_lock" => Some(MutexOp::Lock),
            "pthread_mutex_trylock" => Some(MutexOp::TryLock),
            "pthread_mutex_unlock" => Some(MutexOp::Unlock),
            "pthread_mutex_destroy" => Some(MutexOp::Destroy),
            _ => None,
        };
        let known = mutex.is_some()
            || matches!(
                name,
                "pthread_create"
                    | "pthread_join"
                    | "pthread_exit"
                    | "pthread_self"
                    | "__VERIFIER_atomic_begin"
                    | "__VERIFIER_atomic_end"
            );
        if !known {
            return None;
        }
        Some((|| {
            let args = &c.node.arguments;
            let text = self.text(csp);
            let int_lhs = |what: &str| -> R<Option<Place>> {
                match lhs {
                    None => Ok(None),
                    Some(Target::Scalar(lv)) if lv.int_ty().is_some() => Ok(Some(lv.clone())),
                    Some(_) => Err(format!("result of `{what}` stored into a pointer, float or struct").into()),
                }
            };
            let op = match (name, mutex) {
                (_, Some(op)) => {
                    let m = args.first().ok_or_else(|| format!("`{name}` without arguments"))?;
                    if op == MutexOp::Init && args.get(1).is_some_and(|a| !is_zero_constant(a)) {
                        return Err("`pthread_mutex_init` with mutex attributes (not supported yet)".into());
                    }
                    // Only the mutex's address matters (its bytes are never read), so a mutex
                    // variable of a type the front end does not model is fine.
                    let mutex = match self.addressed_var(m) {
                        Some(var) => Expr::AddrOf { var, offset: Box::new(Expr::int(0)) },
                        None => self.ptr_expr(m)?.0,
                    };
                    EdgeOp::Mutex { op, mutex, lhs: int_lhs(name)? }
                }
                ("pthread_create", _) => {
                    let [h, attr, routine, arg] = &args[..] else {
                        return Err("`pthread_create` needs four arguments".into());
                    };
                    if !is_zero_constant(attr) {
                        return Err("`pthread_create` with thread attributes (not supported yet)".into());
                    }
                    let handle = if is_zero_constant(h) {
                        None
                    } else {
                        match self.ptr_expr(h)? {
                            (ptr, Ty::Int(ty)) => Some(Box::new(Place::Deref { ptr, ty: ScalarTy::Int(ty) })),
                            _ => return Err("`pthread_create` with a handle that is not an integer `pthread_t`".into()),
                        }
                    };
                    let (routine, arg) = match self.named_function(routine) {
                        Some(routine) => {
                            let ptys = self.front.func_param_tys[routine.0 as usize].clone();
                            let arg = match &ptys[..] {
                                [] => None,
                                [Ty::Pointer(_)] => Some(Box::new(self.ptr_expr(arg)?.0)),
                                _ => {
                                    return Err(format!(
                                        "`pthread_create` of `{}`, whose parameters are not one pointer",
                                        self.cfa.function(routine).name
                                    )
                                    .into())
                                }
                            };
                            (Routine::Function(routine), arg)
                        }
                        // Decision 248: a start routine through a pointer (a variable, a table
                        // entry, a parameter), resolved when the thread is created.
                        None => {
                            let (fptr, t) = self.ptr_expr(routine)?;
                            let Ty::Func(sig) = t else {
                                return Err(format!(
                                    "`pthread_create` with a start routine that is not a function pointer: `{text}`"
                                )
                                .into());
                            };
                            if sig.variadic || !matches!(sig.params.as_deref(), Some([Ty::Pointer(_)])) {
                                return Err(format!(
                                    "`pthread_create` through a pointer to a function whose parameters are not one pointer: `{text}`"
                                )
                                .into());
                            }
                            (Routine::Pointer(Box::new(fptr)), Some(Box::new(self.ptr_expr(arg)?.0)))
                        }
                    };
                    EdgeOp::ThreadCreate { handle, routine, arg, lhs: int_lhs(name)? }
                }
                ("pthread_join", _) => {
                    let [t, ret] = &args[..] else { return Err("`pthread_join` needs two arguments".into()) };
                    if !is_zero_constant(ret) {
                        return Err("`pthread_join` that stores the thread's result (not supported yet)".into());
                    }
                    EdgeOp::ThreadJoin { thread: self.rv(t)?, lhs: int_lhs(name)? }
                }
                ("pthread_exit", _) => EdgeOp::ThreadExit,
                ("pthread_self", _) => EdgeOp::ThreadSelf { lhs: int_lhs(name)? },
                ("__VERIFIER_atomic_begin", _) => EdgeOp::Atomic { begin: true },
                _ => EdgeOp::Atomic { begin: false },
            };
            for a in args {
                if has_side_effects(&a.node) {
                    return Err(format!("argument with side effects in a call to `{name}` (not supported)").into());
                }
            }
            self.cfa.threads = true;
            self.note_call(c.span);
            self.emit(op, csp, text)
        })())
    }

    /// The variable `v` of `&v`.
    fn addressed_var(&self, e: &Node<Expression>) -> Option<VarId> {
        let Expression::UnaryOperator(u) = &strip_casts(e).node else { return None };
        if u.node.operator.node != UnaryOperator::Address {
            return None;
        }
        match &u.node.operand.node {
            Expression::Identifier(i) => match self.lookup(&i.node.name) {
                Some(Sym::Var(v, _)) => Some(*v),
                _ => None,
            },
            _ => None,
        }
    }

    /// A function defined in the program named by `e` (`f`, `&f`, `(void *(*)(void *)) f`).
    fn named_function(&self, e: &Node<Expression>) -> Option<FuncId> {
        match &strip_casts(e).node {
            Expression::Identifier(i) if self.lookup(&i.node.name).is_none() => {
                self.front.func_ids.get(&i.node.name).copied()
            }
            Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Address => {
                self.named_function(&u.node.operand)
            }
            _ => None,
        }
    }
}
