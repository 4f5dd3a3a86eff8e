//! Generated C programs (proptest strategies) and their rendering: the program text the
//! validator reads, in several equivalent styles, and the instrumented text gcc compiles.
//!
//! A program is a list of *logical lines*; the instrumented text marks each statement line with
//! `__wc_at(id);` and wraps each branch condition in `__wc_br(id, cond)`, so a native run prints
//! which logical lines it passed and which way each branch went. A rendering maps every logical
//! line to its physical line and column, so the same native run describes every style.

use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, Union};
use sha2::{Digest, Sha256};

/// The integer types of `__VERIFIER_nondet_*` inputs and temporaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntTy {
    Bool,
    Char,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    LongLong,
    ULongLong,
}

pub const ALL_TYPES: [IntTy; 11] = [
    IntTy::Bool,
    IntTy::Char,
    IntTy::UChar,
    IntTy::Short,
    IntTy::UShort,
    IntTy::Int,
    IntTy::UInt,
    IntTy::Long,
    IntTy::ULong,
    IntTy::LongLong,
    IntTy::ULongLong,
];

impl IntTy {
    pub fn c_name(self) -> &'static str {
        match self {
            IntTy::Bool => "_Bool",
            IntTy::Char => "char",
            IntTy::UChar => "unsigned char",
            IntTy::Short => "short",
            IntTy::UShort => "unsigned short",
            IntTy::Int => "int",
            IntTy::UInt => "unsigned int",
            IntTy::Long => "long",
            IntTy::ULong => "unsigned long",
            IntTy::LongLong => "long long",
            IntTy::ULongLong => "unsigned long long",
        }
    }
    /// The suffix of its `__VERIFIER_nondet_` function.
    pub fn nondet(self) -> &'static str {
        match self {
            IntTy::Bool => "bool",
            IntTy::Char => "char",
            IntTy::UChar => "uchar",
            IntTy::Short => "short",
            IntTy::UShort => "ushort",
            IntTy::Int => "int",
            IntTy::UInt => "uint",
            IntTy::Long => "long",
            IntTy::ULong => "ulong",
            IntTy::LongLong => "longlong",
            IntTy::ULongLong => "ulonglong",
        }
    }
    pub fn bits(self, lp64: bool) -> u32 {
        match self {
            IntTy::Bool => 1,
            IntTy::Char | IntTy::UChar => 8,
            IntTy::Short | IntTy::UShort => 16,
            IntTy::Int | IntTy::UInt => 32,
            IntTy::Long | IntTy::ULong => {
                if lp64 {
                    64
                } else {
                    32
                }
            }
            IntTy::LongLong | IntTy::ULongLong => 64,
        }
    }
    pub fn signed(self) -> bool {
        matches!(self, IntTy::Char | IntTy::Short | IntTy::Int | IntTy::Long | IntTy::LongLong)
    }
    pub fn min(self, lp64: bool) -> i128 {
        if self.signed() {
            -(1i128 << (self.bits(lp64) - 1))
        } else {
            0
        }
    }
    pub fn max(self, lp64: bool) -> i128 {
        if self.signed() {
            (1i128 << (self.bits(lp64) - 1)) - 1
        } else {
            (1i128 << self.bits(lp64)) - 1
        }
    }
    /// `v` converted to this type the way gcc does (modulo 2^bits; `_Bool`: nonzero is 1).
    pub fn wrap(self, v: i128, lp64: bool) -> i128 {
        if self == IntTy::Bool {
            return (v != 0) as i128;
        }
        let bits = self.bits(lp64);
        let m = 1i128 << bits;
        let mut r = v.rem_euclid(m);
        if self.signed() && r > self.max(lp64) {
            r -= m;
        }
        r
    }
    fn rank(self) -> u8 {
        match self {
            IntTy::Bool => 0,
            IntTy::Char | IntTy::UChar => 1,
            IntTy::Short | IntTy::UShort => 2,
            IntTy::Int | IntTy::UInt => 3,
            IntTy::Long | IntTy::ULong => 4,
            IntTy::LongLong | IntTy::ULongLong => 5,
        }
    }
    fn unsigned_of(self) -> IntTy {
        match self {
            IntTy::Int => IntTy::UInt,
            IntTy::Long => IntTy::ULong,
            IntTy::LongLong => IntTy::ULongLong,
            t => t,
        }
    }
    /// The integer promotion (every type narrower than `int` fits in `int`).
    pub fn promote(self) -> IntTy {
        if self.rank() < 3 {
            IntTy::Int
        } else {
            self
        }
    }
    /// The type of `a OP b` after the usual arithmetic conversions (C11 6.3.1.8).
    pub fn common(a: IntTy, b: IntTy, lp64: bool) -> IntTy {
        let (a, b) = (a.promote(), b.promote());
        if a == b {
            return a;
        }
        if a.signed() == b.signed() {
            return if a.rank() >= b.rank() { a } else { b };
        }
        let (s, u) = if a.signed() { (a, b) } else { (b, a) };
        if u.rank() >= s.rank() {
            u
        } else if s.bits(lp64) > u.bits(lp64) {
            s
        } else {
            s.unsigned_of()
        }
    }
    /// A C literal of value `v` (in range) of a type that compares equal to it.
    pub fn literal(self, v: i128, lp64: bool) -> String {
        if self.signed() {
            if self.bits(lp64) == 64 && v == self.min(lp64) {
                return "(-9223372036854775807LL - 1)".into();
            }
            if self.bits(lp64) == 64 {
                return format!("{v}LL");
            }
            return format!("{v}");
        }
        match self.bits(lp64) {
            64 => format!("{v}ULL"),
            32 => format!("{v}U"),
            _ => format!("{v}"),
        }
    }
}

/// The property a program is generated for, and the kind of violation it hides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Viol {
    /// `if (x CMP c) reach_error();` (unreach-call).
    Reach,
    /// A signed `+ - *` of two inputs (no-overflow).
    Overflow,
    /// Heap out of bounds `q[x] = 1` (valid-memsafety, valid-deref).
    HeapOob,
    /// Read after `free` (valid-memsafety, valid-deref).
    UseAfterFree,
    /// `free` twice (valid-memsafety, valid-free).
    DoubleFree,
    /// A block freed only on one branch (valid-memsafety, valid-memtrack).
    Leak,
    /// Stack array out of bounds (valid-memsafety, valid-deref). Issue 19 cause 9.
    StackOob,
}

impl Viol {
    pub fn property_file(self) -> &'static str {
        match self {
            Viol::Reach => "CHECK( init(main()), LTL(G ! call(reach_error())) )\n",
            Viol::Overflow => "CHECK( init(main()), LTL(G ! overflow) )\n",
            _ => {
                "CHECK( init(main()), LTL(G valid-free) )\nCHECK( init(main()), LTL(G valid-deref) )\nCHECK( init(main()), \
                 LTL(G valid-memtrack) )\n"
            }
        }
    }
    pub fn property_name(self) -> &'static str {
        match self {
            Viol::Reach => "unreach-call",
            Viol::Overflow => "no-overflow",
            _ => "valid-memsafety",
        }
    }
    /// The YAML `specification` of a witness for it.
    pub fn yaml_spec(self) -> &'static str {
        match self {
            Viol::Reach => "G ! call(reach_error())",
            Viol::Overflow => "G ! overflow",
            Viol::HeapOob | Viol::UseAfterFree | Viol::StackOob => "G valid-deref",
            Viol::DoubleFree => "G valid-free",
            Viol::Leak => "G valid-memtrack",
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Viol::Reach => "reach",
            Viol::Overflow => "overflow",
            Viol::HeapOob => "heap-oob",
            Viol::UseAfterFree => "use-after-free",
            Viol::DoubleFree => "double-free",
            Viol::Leak => "leak",
            Viol::StackOob => "stack-oob",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl Cmp {
    fn c(self) -> &'static str {
        match self {
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
            Cmp::Eq => "==",
            Cmp::Ne => "!=",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    And,
    Or,
    Xor,
    /// Division by a constant 2..=9.
    Div(u8),
    /// Remainder by a constant 2..=9.
    Rem(u8),
}

/// One feature snippet of `main`'s body. Input indices are taken modulo the number of inputs.
#[derive(Debug, Clone)]
pub enum Item {
    /// `T t = 0; t = xa OP xb;` (T the type of `xa OP xb`): arithmetic of every width.
    Arith { a: usize, op: Op, b: usize },
    /// `if (xa CMP c) { acc = acc + 1; } else { acc = acc - 1; }`.
    Branch { a: usize, cmp: Cmp, c: i8 },
    /// `for (int i = 0; i < n; i++) { if (i == xa) { acc = acc + 2; } }`.
    Loop { n: u8, a: usize },
    /// A local array read at `xa & 3`.
    Array { a: usize, vals: [i8; 4] },
    /// A struct with fields of several widths.
    Struct { a: usize, b: usize },
    /// A pointer to a local, written through.
    Pointer { a: usize },
    /// An enum value from an input (masked, or the raw input with `raw`: issue 19 cause 10).
    Enum { a: usize, c: u8, raw: bool },
    /// A heap block (malloc, NULL check, write, read, free).
    Heap { a: usize, n: u8 },
    /// A call of a helper function with a branch.
    Call { a: usize, b: usize },
    /// `if (xa > MAX) { acc = acc + 7; }` (or `xa < MIN`), MAX and MIN the limits of `xa`'s type:
    /// a branch no run takes, by the value range of its operand (issue 51: the value-range
    /// rejection, decision 213, decides the witnesses that claim it).
    Range { a: usize, above: bool },
}

impl Item {
    pub fn feature(&self) -> &'static str {
        match self {
            Item::Arith { .. } => "arith",
            Item::Branch { .. } => "branch",
            Item::Loop { .. } => "loop",
            Item::Array { .. } => "array",
            Item::Struct { .. } => "struct",
            Item::Pointer { .. } => "pointer",
            Item::Enum { raw: false, .. } => "enum",
            Item::Enum { raw: true, .. } => "enum-raw",
            Item::Heap { .. } => "heap",
            Item::Call { .. } => "call",
            Item::Range { .. } => "range",
        }
    }
}

/// The violation's guard: `xa CMP c` (or none).
#[derive(Debug, Clone)]
pub struct Guard {
    pub a: usize,
    pub cmp: Cmp,
    pub c: i8,
    /// Compare `acc` instead of an input (reach only).
    pub on_acc: bool,
}

#[derive(Debug, Clone)]
pub struct Prog {
    pub lp64: bool,
    pub viol: Viol,
    pub inputs: Vec<IntTy>,
    pub items: Vec<Item>,
    pub guard: Guard,
    /// The two inputs and operator of an overflow violation.
    pub ov: (usize, Op, usize),
}

/// Which features and violations generation may use.
#[derive(Debug, Clone)]
pub struct Features {
    pub viols: Vec<Viol>,
    /// Item feature names allowed (see [`Item::feature`]).
    pub items: Vec<&'static str>,
}

impl Features {
    /// What the current validator handles without mismatch (the seeded round of `make test`):
    /// since issue 19's causes 9 (out-of-bounds indices under memsafety) and 10 (enum types)
    /// were fixed, every generated feature.
    pub fn sound() -> Features {
        Features {
            viols: vec![
                Viol::Reach,
                Viol::Overflow,
                Viol::HeapOob,
                Viol::UseAfterFree,
                Viol::DoubleFree,
                Viol::Leak,
                Viol::StackOob,
            ],
            items: vec![
                "arith", "branch", "loop", "array", "struct", "pointer", "enum", "enum-raw", "heap", "call", "range",
            ],
        }
    }
    /// Every feature (the same as [`Features::sound`] today; kept for features added before the
    /// validator handles them).
    pub fn all() -> Features {
        Features::sound()
    }
}

fn ty_strategy(viol: Viol) -> BoxedStrategy<IntTy> {
    let all = proptest::sample::select(ALL_TYPES.to_vec());
    if viol == Viol::Overflow {
        // Inputs that can overflow when added: bias toward the wide signed types.
        prop_oneof![3 => proptest::sample::select(vec![IntTy::Int, IntTy::Long, IntTy::LongLong]), 1 => all].boxed()
    } else {
        all.boxed()
    }
}

fn cmp_strategy() -> impl Strategy<Value = Cmp> {
    proptest::sample::select(vec![Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge, Cmp::Eq, Cmp::Ne])
}

fn op_strategy() -> impl Strategy<Value = Op> {
    prop_oneof![
        proptest::sample::select(vec![Op::Add, Op::Sub, Op::Mul, Op::And, Op::Or, Op::Xor]),
        (2u8..10).prop_map(Op::Div),
        (2u8..10).prop_map(Op::Rem),
    ]
}

fn item_strategy(allowed: &[&'static str]) -> BoxedStrategy<Item> {
    let idx = || 0usize..4;
    let mut arms: Vec<BoxedStrategy<Item>> = Vec::new();
    for &f in allowed {
        let s: BoxedStrategy<Item> = match f {
            "arith" => (idx(), op_strategy(), idx()).prop_map(|(a, op, b)| Item::Arith { a, op, b }).boxed(),
            "branch" => (idx(), cmp_strategy(), -4i8..5).prop_map(|(a, cmp, c)| Item::Branch { a, cmp, c }).boxed(),
            "loop" => (1u8..5, idx()).prop_map(|(n, a)| Item::Loop { n, a }).boxed(),
            "array" => (idx(), any::<[i8; 4]>()).prop_map(|(a, vals)| Item::Array { a, vals }).boxed(),
            "struct" => (idx(), idx()).prop_map(|(a, b)| Item::Struct { a, b }).boxed(),
            "pointer" => idx().prop_map(|a| Item::Pointer { a }).boxed(),
            "enum" => (idx(), 0u8..4).prop_map(|(a, c)| Item::Enum { a, c, raw: false }).boxed(),
            "enum-raw" => (idx(), 0u8..4).prop_map(|(a, c)| Item::Enum { a, c, raw: true }).boxed(),
            "heap" => (idx(), proptest::sample::select(vec![1u8, 2, 4])).prop_map(|(a, n)| Item::Heap { a, n }).boxed(),
            "call" => (idx(), idx()).prop_map(|(a, b)| Item::Call { a, b }).boxed(),
            "range" => (idx(), any::<bool>()).prop_map(|(a, above)| Item::Range { a, above }).boxed(),
            _ => continue,
        };
        // Branches no run takes twice as often as each other item: the value-range rejection
        // needs one in a program whose violation is an error call (issue 51).
        if f == "range" {
            arms.push(s.clone());
        }
        arms.push(s);
    }
    Union::new(arms).boxed()
}

/// Programs over `features`.
pub fn prog_strategy(features: &Features) -> BoxedStrategy<Prog> {
    let items = item_strategy(&features.items);
    // Reachability twice as often as each other violation: the value-range rejection (decision
    // 213), compared with the search since issue 51, applies to error calls only.
    let mut viols = features.viols.clone();
    if viols.contains(&Viol::Reach) {
        viols.push(Viol::Reach);
    }
    (proptest::sample::select(viols), any::<bool>())
        .prop_flat_map(move |(viol, lp64)| {
            (
                Just(viol),
                Just(lp64),
                proptest::collection::vec(ty_strategy(viol), 1..4),
                proptest::collection::vec(items.clone(), 0..5),
                (0usize..4, cmp_strategy(), -4i8..5, any::<bool>()),
                (0usize..4, proptest::sample::select(vec![Op::Add, Op::Sub, Op::Mul]), 0usize..4),
            )
        })
        .prop_map(|(viol, lp64, inputs, items, (a, cmp, c, on_acc), ov)| Prog {
            lp64,
            viol,
            inputs,
            items,
            guard: Guard { a, cmp, c, on_acc: on_acc && viol == Viol::Reach },
            ov,
        })
        .boxed()
}

/// What a logical line is, for the instrumentation and the witnesses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LKind {
    /// No statement starts here (`}`, `} else {`, declarations outside functions).
    Plain,
    /// A statement or declaration inside a function.
    Stmt,
    /// `T xk = __VERIFIER_nondet_T();` of input `k`.
    Nondet(usize),
    /// `if (cond) {`.
    If(String),
    /// `for (int i = 0; cond; i++) {` (cond and the two other clauses).
    For { init: String, cond: String, step: String },
    /// The function header of `main`.
    MainHeader,
}

#[derive(Debug, Clone)]
pub struct LLine {
    pub depth: usize,
    pub text: String,
    pub kind: LKind,
    /// The function this line is in (for YAML `function`).
    pub func: &'static str,
}

impl Prog {
    fn inp(&self, a: usize) -> usize {
        a % self.inputs.len()
    }
    fn x(&self, a: usize) -> String {
        format!("x{}", self.inp(a))
    }

    /// Names of the features and the violation, for the coverage table.
    pub fn features(&self) -> Vec<String> {
        let mut v: Vec<String> = self.items.iter().map(|i| i.feature().to_string()).collect();
        for t in &self.inputs {
            v.push(format!("input:{}", t.nondet()));
        }
        v.push(format!("violation:{}", self.viol.name()));
        v.push(if self.lp64 { "LP64".into() } else { "ILP32".into() });
        v.sort();
        v.dedup();
        v
    }

    /// The logical lines of the program.
    pub fn lines(&self) -> Vec<LLine> {
        let mut out = Vec::new();
        let push = |out: &mut Vec<LLine>, depth: usize, text: String, kind: LKind, func: &'static str| {
            out.push(LLine { depth, text, kind, func })
        };
        let heap = self.items.iter().any(|i| matches!(i, Item::Heap { .. }))
            || matches!(self.viol, Viol::HeapOob | Viol::UseAfterFree | Viol::DoubleFree | Viol::Leak);
        if heap {
            // Declared, not included: `#include` makes the validator run `gcc -E` and parse all
            // of <stdlib.h> for every case (a third of the soak's time).
            push(&mut out, 0, "extern void *malloc(unsigned long);".into(), LKind::Plain, "");
            push(&mut out, 0, "extern void free(void *);".into(), LKind::Plain, "");
        }
        if self.viol == Viol::Reach {
            push(&mut out, 0, "extern void reach_error(void);".into(), LKind::Plain, "");
        }
        let mut declared: Vec<IntTy> = Vec::new();
        for &t in &self.inputs {
            if !declared.contains(&t) {
                declared.push(t);
                push(
                    &mut out,
                    0,
                    format!("extern {} __VERIFIER_nondet_{}(void);", t.c_name(), t.nondet()),
                    LKind::Plain,
                    "",
                );
            }
        }
        if self.items.iter().any(|i| matches!(i, Item::Struct { .. })) {
            push(&mut out, 0, "struct rec { int f; unsigned char g; long long h; };".into(), LKind::Plain, "");
        }
        if self.items.iter().any(|i| matches!(i, Item::Enum { .. })) {
            push(&mut out, 0, "enum col { RED, GREEN, BLUE, GREY };".into(), LKind::Plain, "");
        }
        if self.items.iter().any(|i| matches!(i, Item::Call { .. })) {
            let f = "helper";
            push(&mut out, 0, "static int helper(int a, int b) {".into(), LKind::Plain, f);
            push(&mut out, 1, String::new(), LKind::If("a < b".into()), f);
            push(&mut out, 2, "return b - a;".into(), LKind::Stmt, f);
            push(&mut out, 1, "}".into(), LKind::Plain, f);
            push(&mut out, 1, "return a;".into(), LKind::Stmt, f);
            push(&mut out, 0, "}".into(), LKind::Plain, f);
        }
        let m = "main";
        push(&mut out, 0, "int main(void) {".into(), LKind::MainHeader, m);
        for (k, t) in self.inputs.iter().enumerate() {
            push(
                &mut out,
                1,
                format!("{} x{k} = __VERIFIER_nondet_{}();", t.c_name(), t.nondet()),
                LKind::Nondet(k),
                m,
            );
        }
        push(&mut out, 1, "int acc = 0;".into(), LKind::Stmt, m);
        for (n, item) in self.items.iter().enumerate() {
            match item {
                Item::Arith { a, op, b } => {
                    let (xa, xb) = (self.x(*a), self.x(*b));
                    // The result's own type: assigning to a narrower one lets gcc shorten the
                    // operation, and UBSan then misses an overflow C has (not what we test).
                    let (ta, tb) = (self.inputs[self.inp(*a)], self.inputs[self.inp(*b)]);
                    let ty = match op {
                        Op::Div(_) | Op::Rem(_) => ta.promote(),
                        _ => IntTy::common(ta, tb, self.lp64),
                    };
                    let e = match op {
                        Op::Add => format!("{xa} + {xb}"),
                        Op::Sub => format!("{xa} - {xb}"),
                        Op::Mul => format!("{xa} * {xb}"),
                        Op::And => format!("{xa} & {xb}"),
                        Op::Or => format!("{xa} | {xb}"),
                        Op::Xor => format!("{xa} ^ {xb}"),
                        Op::Div(c) => format!("{xa} / {c}"),
                        Op::Rem(c) => format!("{xa} % {c}"),
                    };
                    push(&mut out, 1, format!("{} t{n} = 0;", ty.c_name()), LKind::Stmt, m);
                    push(&mut out, 1, format!("t{n} = {e};"), LKind::Stmt, m);
                    push(&mut out, 1, String::new(), LKind::If(format!("t{n} > 0")), m);
                    push(&mut out, 2, "acc = acc + 1;".into(), LKind::Stmt, m);
                    push(&mut out, 1, "}".into(), LKind::Plain, m);
                }
                Item::Branch { a, cmp, c } => {
                    push(&mut out, 1, String::new(), LKind::If(format!("{} {} {c}", self.x(*a), cmp.c())), m);
                    push(&mut out, 2, "acc = acc + 1;".into(), LKind::Stmt, m);
                    push(&mut out, 1, "} else {".into(), LKind::Plain, m);
                    push(&mut out, 2, "acc = acc - 1;".into(), LKind::Stmt, m);
                    push(&mut out, 1, "}".into(), LKind::Plain, m);
                }
                Item::Loop { n: bound, a } => {
                    push(
                        &mut out,
                        1,
                        String::new(),
                        LKind::For {
                            init: format!("int i{n} = 0"),
                            cond: format!("i{n} < {bound}"),
                            step: format!("i{n}++"),
                        },
                        m,
                    );
                    push(&mut out, 2, String::new(), LKind::If(format!("i{n} == {}", self.x(*a))), m);
                    push(&mut out, 3, "acc = acc + 2;".into(), LKind::Stmt, m);
                    push(&mut out, 2, "}".into(), LKind::Plain, m);
                    push(&mut out, 1, "}".into(), LKind::Plain, m);
                }
                Item::Array { a, vals } => {
                    push(
                        &mut out,
                        1,
                        format!("int a{n}[4] = {{{}, {}, {}, {}}};", vals[0], vals[1], vals[2], vals[3]),
                        LKind::Stmt,
                        m,
                    );
                    push(&mut out, 1, format!("acc = acc + a{n}[{} & 3];", self.x(*a)), LKind::Stmt, m);
                }
                Item::Struct { a, b } => {
                    push(&mut out, 1, format!("struct rec s{n};"), LKind::Stmt, m);
                    push(&mut out, 1, format!("s{n}.f = {};", self.x(*a)), LKind::Stmt, m);
                    push(&mut out, 1, format!("s{n}.g = {};", self.x(*b)), LKind::Stmt, m);
                    push(&mut out, 1, format!("s{n}.h = s{n}.g;"), LKind::Stmt, m);
                    push(&mut out, 1, String::new(), LKind::If(format!("s{n}.f > s{n}.h")), m);
                    push(&mut out, 2, "acc = acc + 1;".into(), LKind::Stmt, m);
                    push(&mut out, 1, "}".into(), LKind::Plain, m);
                }
                Item::Pointer { a } => {
                    push(&mut out, 1, format!("int *p{n} = &acc;"), LKind::Stmt, m);
                    push(&mut out, 1, format!("*p{n} = *p{n} + ({} & 7);", self.x(*a)), LKind::Stmt, m);
                }
                Item::Enum { a, c, raw } => {
                    let v = if *raw { self.x(*a) } else { format!("({} & 3)", self.x(*a)) };
                    let names = ["RED", "GREEN", "BLUE", "GREY"];
                    push(&mut out, 1, format!("enum col e{n} = {v};"), LKind::Stmt, m);
                    let cond = if *raw {
                        format!("e{n} > {}", names[*c as usize % 4])
                    } else {
                        format!("e{n} == {}", names[*c as usize % 4])
                    };
                    push(&mut out, 1, String::new(), LKind::If(cond), m);
                    push(&mut out, 2, "acc = acc + 3;".into(), LKind::Stmt, m);
                    push(&mut out, 1, "}".into(), LKind::Plain, m);
                }
                Item::Heap { a, n: size } => {
                    push(&mut out, 1, format!("int *h{n} = malloc({size} * sizeof(int));"), LKind::Stmt, m);
                    push(&mut out, 1, String::new(), LKind::If(format!("h{n} == 0")), m);
                    push(&mut out, 2, "return 0;".into(), LKind::Stmt, m);
                    push(&mut out, 1, "}".into(), LKind::Plain, m);
                    let idx = format!("({} & {})", self.x(*a), size - 1);
                    push(&mut out, 1, format!("h{n}[{idx}] = 5;"), LKind::Stmt, m);
                    push(&mut out, 1, format!("acc = acc + h{n}[{idx}];"), LKind::Stmt, m);
                    push(&mut out, 1, format!("free(h{n});"), LKind::Stmt, m);
                }
                Item::Range { a, above } => {
                    let t = self.inputs[self.inp(*a)];
                    let suffix = |v: i128| {
                        let u = if t.signed() { "" } else { "U" };
                        if v > u32::MAX as i128 || v < i32::MIN as i128 {
                            format!("{u}LL")
                        } else {
                            u.to_string()
                        }
                    };
                    let cond = if *above {
                        let max = t.max(self.lp64);
                        format!("{} > {max}{}", self.x(*a), suffix(max))
                    } else if t.signed() {
                        // `-MAX - 1`: the minimum has no literal of its own type.
                        let max = t.max(self.lp64);
                        format!("{} < -{max}{} - 1", self.x(*a), suffix(max))
                    } else {
                        format!("{} < 0", self.x(*a))
                    };
                    push(&mut out, 1, String::new(), LKind::If(cond), m);
                    push(&mut out, 2, "acc = acc + 7;".into(), LKind::Stmt, m);
                    push(&mut out, 1, "}".into(), LKind::Plain, m);
                }
                Item::Call { a, b } => {
                    push(&mut out, 1, format!("acc = acc + helper({}, {});", self.x(*a), self.x(*b)), LKind::Stmt, m);
                }
            }
        }
        let g = &self.guard;
        let gv = if g.on_acc { "acc".to_string() } else { self.x(g.a) };
        let gcond = format!("{gv} {} {}", g.cmp.c(), g.c);
        match self.viol {
            Viol::Reach => {
                push(&mut out, 1, String::new(), LKind::If(gcond), m);
                push(&mut out, 2, "reach_error();".into(), LKind::Stmt, m);
                push(&mut out, 1, "}".into(), LKind::Plain, m);
            }
            Viol::Overflow => {
                let (a, op, b) = self.ov;
                let t = IntTy::common(self.inputs[self.inp(a)], self.inputs[self.inp(b)], self.lp64);
                let o = match op {
                    Op::Add => "+",
                    Op::Sub => "-",
                    _ => "*",
                };
                push(&mut out, 1, format!("{} o = 0;", t.c_name()), LKind::Stmt, m);
                push(&mut out, 1, String::new(), LKind::If(gcond), m);
                push(&mut out, 2, format!("o = {} {o} {};", self.x(a), self.x(b)), LKind::Stmt, m);
                push(&mut out, 1, "}".into(), LKind::Plain, m);
                push(&mut out, 1, "acc = acc + (o > 0);".into(), LKind::Stmt, m);
            }
            Viol::HeapOob | Viol::UseAfterFree | Viol::DoubleFree | Viol::Leak => {
                push(&mut out, 1, "int *q = malloc(4 * sizeof(int));".into(), LKind::Stmt, m);
                push(&mut out, 1, String::new(), LKind::If("q == 0".into()), m);
                push(&mut out, 2, "return 0;".into(), LKind::Stmt, m);
                push(&mut out, 1, "}".into(), LKind::Plain, m);
                push(&mut out, 1, "q[0] = acc;".into(), LKind::Stmt, m);
                match self.viol {
                    Viol::HeapOob => {
                        let xa = self.x(g.a);
                        push(&mut out, 1, String::new(), LKind::If(format!("{xa} >= 0")), m);
                        push(&mut out, 2, String::new(), LKind::If(format!("{xa} < 8")), m);
                        push(&mut out, 3, format!("q[{xa}] = 1;"), LKind::Stmt, m);
                        push(&mut out, 2, "}".into(), LKind::Plain, m);
                        push(&mut out, 1, "}".into(), LKind::Plain, m);
                        push(&mut out, 1, "free(q);".into(), LKind::Stmt, m);
                    }
                    Viol::UseAfterFree => {
                        push(&mut out, 1, "free(q);".into(), LKind::Stmt, m);
                        push(&mut out, 1, String::new(), LKind::If(gcond), m);
                        push(&mut out, 2, "acc = acc + q[0];".into(), LKind::Stmt, m);
                        push(&mut out, 1, "}".into(), LKind::Plain, m);
                    }
                    Viol::DoubleFree => {
                        push(&mut out, 1, String::new(), LKind::If(gcond), m);
                        push(&mut out, 2, "free(q);".into(), LKind::Stmt, m);
                        push(&mut out, 1, "}".into(), LKind::Plain, m);
                        push(&mut out, 1, "free(q);".into(), LKind::Stmt, m);
                    }
                    _ => {
                        push(&mut out, 1, String::new(), LKind::If(gcond), m);
                        push(&mut out, 2, "free(q);".into(), LKind::Stmt, m);
                        push(&mut out, 1, "}".into(), LKind::Plain, m);
                    }
                }
            }
            Viol::StackOob => {
                let xa = self.x(g.a);
                push(&mut out, 1, "int sa[4] = {0, 0, 0, 0};".into(), LKind::Stmt, m);
                push(&mut out, 1, String::new(), LKind::If(format!("{xa} >= 0")), m);
                push(&mut out, 2, String::new(), LKind::If(format!("{xa} < 8")), m);
                push(&mut out, 3, format!("sa[{xa}] = 1;"), LKind::Stmt, m);
                push(&mut out, 2, "}".into(), LKind::Plain, m);
                push(&mut out, 1, "}".into(), LKind::Plain, m);
                push(&mut out, 1, "acc = acc + sa[0];".into(), LKind::Stmt, m);
            }
        }
        push(&mut out, 1, "return 0;".into(), LKind::Stmt, m);
        push(&mut out, 0, "}".into(), LKind::Plain, m);
        out
    }

    /// Integer constants of the program: interesting inputs for the search.
    pub fn constants(&self) -> Vec<i128> {
        let mut v = vec![0, 1, -1, 2, 3, 4, 5, 7, 8];
        v.push(self.guard.c as i128);
        for i in &self.items {
            match i {
                Item::Branch { c, .. } => v.push(*c as i128),
                Item::Loop { n, .. } => v.push(*n as i128 - 1),
                _ => {}
            }
        }
        v
    }
}

/// How a program is laid out (the metamorphic variants).
#[derive(Debug, Clone, Default)]
pub struct Style {
    /// Spaces per level (0 means 2).
    pub indent: usize,
    /// `{` of `if`/`for` on a line of its own.
    pub allman: bool,
    /// Rename locals (`x0` → `v_x0`, …).
    pub rename: bool,
    /// Blank lines (`false`) or comment lines (`true`) inserted before these logical lines.
    pub inserts: Vec<(usize, bool)>,
    /// A `/* … */` comment put before the statement on these logical lines (columns shift).
    pub inline_comments: Vec<usize>,
}

/// A program text and where each logical line landed.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub text: String,
    /// Per logical line: 1-based physical line and 1-based column of its first character
    /// (the statement or branch keyword).
    pub pos: Vec<(u32, u32)>,
    pub sha256: String,
    pub rename: bool,
}

impl Rendered {
    /// A local's name in this rendering.
    pub fn name(&self, n: &str) -> String {
        if self.rename {
            format!("v_{n}")
        } else {
            n.to_string()
        }
    }
}

fn rename_text(s: &str) -> String {
    use std::sync::OnceLock;
    static RE: OnceLock<regex::Regex> = OnceLock::new();
    let re = RE.get_or_init(|| regex::Regex::new(r"\b([xtiaspeh][0-9]+|acc|q|o|sa)\b").unwrap());
    re.replace_all(s, "v_$1").into_owned()
}

/// The text the validator reads.
pub fn render(lines: &[LLine], style: &Style) -> Rendered {
    let width = if style.indent == 0 { 2 } else { style.indent };
    let mut text = String::new();
    let mut pos = Vec::with_capacity(lines.len());
    let mut phys = 0u32;
    let mut emit = |text: &mut String, s: &str| {
        text.push_str(s);
        text.push('\n');
        phys += 1;
        phys
    };
    for (id, l) in lines.iter().enumerate() {
        let ind = " ".repeat(width * l.depth);
        for &(at, comment) in &style.inserts {
            if at == id {
                if comment {
                    emit(&mut text, &format!("{ind}/* inserted comment {id} */"));
                } else {
                    emit(&mut text, "");
                }
            }
        }
        let mut prefix = ind.clone();
        if style.inline_comments.contains(&id) && l.kind != LKind::Plain && l.kind != LKind::MainHeader {
            prefix.push_str("/* c */ ");
        }
        let col = prefix.len() as u32 + 1;
        let body = match &l.kind {
            LKind::If(c) => format!("if ({c})"),
            LKind::For { init, cond, step } => format!("for ({init}; {cond}; {step})"),
            _ => l.text.clone(),
        };
        let body = if style.rename { rename_text(&body) } else { body };
        let line_no = match &l.kind {
            LKind::If(_) | LKind::For { .. } => {
                if style.allman {
                    let n = emit(&mut text, &format!("{prefix}{body}"));
                    emit(&mut text, &format!("{ind}{{"));
                    n
                } else {
                    emit(&mut text, &format!("{prefix}{body} {{"))
                }
            }
            LKind::Plain if style.allman && l.text == "} else {" => {
                let n = emit(&mut text, &format!("{ind}}}"));
                emit(&mut text, &format!("{ind}else"));
                emit(&mut text, &format!("{ind}{{"));
                n
            }
            _ => emit(&mut text, &format!("{prefix}{body}")),
        };
        pos.push((line_no, col));
    }
    let sha256 = Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
    Rendered { text, pos, sha256, rename: style.rename }
}

/// The text gcc compiles: markers on every statement line, branch conditions wrapped, `main`
/// renamed for the fork server.
pub fn instrument(lines: &[LLine]) -> String {
    let mut s = String::from("void __wc_at(int);\nint __wc_br(int, int);\n");
    for (id, l) in lines.iter().enumerate() {
        let ind = "  ".repeat(l.depth);
        match &l.kind {
            LKind::Plain => s.push_str(&format!("{ind}{}\n", l.text)),
            LKind::MainHeader => s.push_str("int __wc_main(void) {\n"),
            LKind::Stmt | LKind::Nondet(_) => s.push_str(&format!("{ind}__wc_at({id}); {}\n", l.text)),
            LKind::If(c) => s.push_str(&format!("{ind}__wc_at({id}); if (__wc_br({id}, {c})) {{\n")),
            LKind::For { init, cond, step } => {
                s.push_str(&format!("{ind}__wc_at({id}); for ({init}; __wc_br({id}, {cond}); {step}) {{\n"))
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usual_arithmetic_conversions_follow_gcc() {
        assert_eq!(IntTy::common(IntTy::Char, IntTy::UShort, false), IntTy::Int);
        assert_eq!(IntTy::common(IntTy::Int, IntTy::UInt, true), IntTy::UInt);
        // long cannot hold every unsigned int under ILP32, can under LP64.
        assert_eq!(IntTy::common(IntTy::Long, IntTy::UInt, false), IntTy::ULong);
        assert_eq!(IntTy::common(IntTy::Long, IntTy::UInt, true), IntTy::Long);
        assert_eq!(IntTy::common(IntTy::LongLong, IntTy::ULong, false), IntTy::LongLong);
        assert_eq!(IntTy::common(IntTy::LongLong, IntTy::ULong, true), IntTy::ULongLong);
    }

    #[test]
    fn wrap_and_literals() {
        assert_eq!(IntTy::Char.wrap(200, true), -56);
        assert_eq!(IntTy::UInt.wrap(-1, false), 4294967295);
        assert_eq!(IntTy::Bool.wrap(7, false), 1);
        assert_eq!(IntTy::LongLong.literal(IntTy::LongLong.min(true), true), "(-9223372036854775807LL - 1)");
        assert_eq!(IntTy::ULong.literal(5, false), "5U");
    }

    #[test]
    fn renderings_keep_every_logical_line_findable() {
        let prog = Prog {
            lp64: false,
            viol: Viol::Reach,
            inputs: vec![IntTy::Int],
            items: vec![Item::Branch { a: 0, cmp: Cmp::Lt, c: 2 }, Item::Loop { n: 2, a: 0 }],
            guard: Guard { a: 0, cmp: Cmp::Eq, c: 3, on_acc: false },
            ov: (0, Op::Add, 0),
        };
        let lines = prog.lines();
        let style = Style {
            indent: 4,
            allman: true,
            rename: true,
            inserts: vec![(3, true), (7, false)],
            inline_comments: vec![lines.iter().position(|l| l.kind == LKind::Stmt).unwrap()],
        };
        let r = render(&lines, &style);
        let text: Vec<&str> = r.text.lines().collect();
        for (id, l) in lines.iter().enumerate() {
            let (line, col) = r.pos[id];
            let at = &text[line as usize - 1][col as usize - 1..];
            match &l.kind {
                LKind::If(_) => assert!(at.starts_with("if ("), "{at}"),
                LKind::For { .. } => assert!(at.starts_with("for ("), "{at}"),
                LKind::Nondet(_) => assert!(at.starts_with("int v_x0 = "), "{at}"),
                _ => {}
            }
        }
        assert!(r.text.contains("/* inserted comment 3 */") && r.text.contains("/* c */ "));
        // The instrumented text marks every statement and branch with its logical id.
        let instr = instrument(&lines);
        for (id, l) in lines.iter().enumerate() {
            if matches!(l.kind, LKind::Stmt | LKind::Nondet(_) | LKind::If(_) | LKind::For { .. }) {
                assert!(instr.contains(&format!("__wc_at({id});")));
            }
        }
    }
}
