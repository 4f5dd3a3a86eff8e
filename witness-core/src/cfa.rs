//! The control-flow automaton (CFA) of a C program and the small typed IR its edges carry.
//!
//! The C front end (`cfront`) builds a [`Cfa`]; the product exploration walks it and hands each
//! edge's [`EdgeOp`] to the semantics. Every type conversion C performs implicitly (integer
//! promotions, usual arithmetic conversions, conversion on assignment, to `_Bool`) is explicit
//! in the IR as [`Expr::Cast`], so the semantics never needs to know C's typing rules.
//!
//! This module holds data only: it never parses, never touches Z3 and never prints.

use petgraph::graph::{DiGraph, EdgeIndex, NodeIndex};
use serde::Serialize;

/// Data model of the task: sizes of `long` and pointers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum DataModel {
    /// `int`, `long` and pointers are 32 bit (SV-COMP "32bit").
    Ilp32,
    /// `long` and pointers are 64 bit (SV-COMP "64bit").
    Lp64,
}

impl DataModel {
    /// Width of `long` / `unsigned long` in bits.
    pub fn long_bits(self) -> u32 {
        match self {
            DataModel::Ilp32 => 32,
            DataModel::Lp64 => 64,
        }
    }
    /// Name as printed in reports.
    pub fn name(self) -> &'static str {
        match self {
            DataModel::Ilp32 => "ILP32",
            DataModel::Lp64 => "LP64",
        }
    }
}

/// An integer type after the data model is applied. `_Bool` has 8 bits and holds 0 or 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct IntTy {
    /// Width in bits: 8, 16, 32 or 64 for C's integer types; any width 1..=64 for a bit-field
    /// (`int a : 3` is a signed 3-bit integer; the front end promotes it to `int` before use).
    pub bits: u32,
    /// Two's complement signed (true) or unsigned.
    pub signed: bool,
    /// `_Bool`: conversion to it is `x != 0`, not truncation.
    pub is_bool: bool,
}

impl IntTy {
    pub const BOOL: IntTy = IntTy { bits: 8, signed: false, is_bool: true };
    pub const CHAR: IntTy = IntTy::new(8, true);
    pub const UCHAR: IntTy = IntTy::new(8, false);
    pub const SHORT: IntTy = IntTy::new(16, true);
    pub const USHORT: IntTy = IntTy::new(16, false);
    pub const INT: IntTy = IntTy::new(32, true);
    pub const UINT: IntTy = IntTy::new(32, false);
    pub const LLONG: IntTy = IntTy::new(64, true);
    pub const ULLONG: IntTy = IntTy::new(64, false);

    /// A non-`_Bool` integer type.
    pub const fn new(bits: u32, signed: bool) -> IntTy {
        IntTy { bits, signed, is_bool: false }
    }
    /// Bit mask of the type's width.
    pub fn mask(self) -> u64 {
        if self.bits >= 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        }
    }
    /// Smallest value as a sign-extended i128.
    pub fn min_value(self) -> i128 {
        if self.signed {
            -(1i128 << (self.bits - 1))
        } else {
            0
        }
    }
    /// Largest value.
    pub fn max_value(self) -> i128 {
        if self.is_bool {
            1
        } else if self.signed {
            (1i128 << (self.bits - 1)) - 1
        } else {
            (1i128 << self.bits) - 1
        }
    }
    /// C spelling, for messages (`unsigned int`, `long long`, …) in a data-model-neutral form.
    pub fn describe(self) -> String {
        if self.is_bool {
            return "_Bool".into();
        }
        format!("{}int{}", if self.signed { "" } else { "u" }, self.bits)
    }
}

/// An IEEE 754 binary floating-point type: `float` (binary32) or `double` (binary64). Arithmetic
/// rounds to nearest, ties to even (C's default rounding mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum FloatTy {
    F32,
    F64,
}

impl FloatTy {
    /// Width in bits.
    pub fn bits(self) -> u32 {
        match self {
            FloatTy::F32 => 32,
            FloatTy::F64 => 64,
        }
    }
    /// Exponent and significand widths as Z3 counts them (the significand includes the hidden bit).
    pub fn ebits_sbits(self) -> (u32, u32) {
        match self {
            FloatTy::F32 => (8, 24),
            FloatTy::F64 => (11, 53),
        }
    }
    /// C spelling.
    pub fn name(self) -> &'static str {
        match self {
            FloatTy::F32 => "float",
            FloatTy::F64 => "double",
        }
    }
    /// Bit pattern of `+0.0`.
    pub const fn zero_bits(self) -> u64 {
        0
    }
    /// Bit pattern of a value given as `f64` (rounded to nearest-even for `float`).
    pub fn bits_of(self, v: f64) -> u64 {
        match self {
            FloatTy::F32 => (v as f32).to_bits() as u64,
            FloatTy::F64 => v.to_bits(),
        }
    }
}

/// The type of a variable. Integers, floats and fixed-size integer arrays have semantics;
/// everything else is kept as [`CType::Unsupported`] so that a path *using* it ends in unknown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum CType {
    Void,
    Int(IntTy),
    Float(FloatTy),
    /// Fixed-size array, flattened: `dims` outermost first (`int a[4][3]` ⇒ `[4, 3]`).
    Array {
        elem: IntTy,
        dims: Vec<u64>,
    },
    /// Fixed-size array of `float`/`double`, flattened like [`CType::Array`].
    FloatArray {
        elem: FloatTy,
        dims: Vec<u64>,
    },
    /// A pointer variable (any pointee: the front end types pointer expressions); the value is
    /// an object (a variable instance, a heap block, a function, or null) and a byte offset.
    Ptr,
    /// An object stored as bytes (a union, an array of structs or pointers, or a struct whose
    /// address is taken, decision 49): every access is a typed load or store through its
    /// address, so members overlap byte-exactly (type punning).
    Bytes {
        size: u64,
        /// Sizes of the union's members, ascending (all start at byte 0): a store through one
        /// leaves the bytes past it unspecified (C11 6.2.6.1p7, decision 37). A struct has the
        /// one member `[size]` (it is an object, nothing is unspecified); empty for an array.
        members: Vec<u64>,
    },
    /// A type the semantics does not model yet (other pointers, struct, union, `long double`, VLA, …).
    Unsupported(String),
}

impl CType {
    /// Total number of scalar elements of an array type (1 for scalars).
    pub fn element_count(&self) -> u64 {
        match self {
            CType::Array { dims, .. } | CType::FloatArray { dims, .. } => dims.iter().product(),
            _ => 1,
        }
    }
}

/// The type of a scalar value: a function's return type, a `\result`, an array element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum ScalarTy {
    Int(IntTy),
    Float(FloatTy),
    /// A pointer (of the data model's width).
    Ptr,
}

impl ScalarTy {
    /// The integer type, for an integer.
    pub fn int(self) -> Option<IntTy> {
        match self {
            ScalarTy::Int(t) => Some(t),
            _ => None,
        }
    }
    /// The floating-point type, for a float.
    pub fn float(self) -> Option<FloatTy> {
        match self {
            ScalarTy::Float(f) => Some(f),
            _ => None,
        }
    }
    /// Width in bits.
    pub fn bits(self) -> u32 {
        match self {
            ScalarTy::Int(t) => t.bits,
            ScalarTy::Float(f) => f.bits(),
            ScalarTy::Ptr => 64,
        }
    }
}

/// Where the bytes of [`EdgeOp::MemBytes`] come from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub enum MemSource {
    /// `memset`: one byte value (`c` converted to `unsigned char`).
    Byte(Expr),
    /// `memcpy` (`overlap_ok: false`: overlapping objects are undefined behaviour) or `memmove`.
    Copy { src: Expr, overlap_ok: bool },
}

/// Something a call result is stored into.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub enum Target {
    /// A scalar result: stored into the place, converted to its type as by assignment.
    Scalar(Place),
    /// A struct result: copied, when the callee returns, from its hidden result variable by
    /// these writes (one step, as [`EdgeOp::AssignAll`]).
    Struct(Vec<Write>),
}

/// Index of a variable in [`Cfa::vars`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct VarId(pub u32);

/// Index of a function in [`Cfa::functions`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct FuncId(pub u32);

/// Where a variable lives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum VarScope {
    Global,
    /// Local variable or parameter of a function; each call gets a fresh copy.
    Local(FuncId),
}

/// A declared variable (globals, locals, parameters and front-end temporaries).
#[derive(Debug, Clone, Serialize)]
pub struct VarInfo {
    /// Name as written in the source (temporaries: `__tmp_N`, never valid C identifiers users write).
    pub name: String,
    pub ty: CType,
    pub scope: VarScope,
    /// Byte range `[start, end)` of the source in which the name is visible (block scope),
    /// used to resolve witness identifiers to the right one of several shadowing declarations.
    pub visible: (usize, usize),
    /// A front-end temporary: never visible to witness assumptions.
    pub temporary: bool,
    /// The object may not be modified (a string literal, C11 6.4.5p7): a store is undefined
    /// behaviour.
    pub read_only: bool,
    /// The program applies `&` to a variable of this name somewhere (a lexical, conservative
    /// test): the object may be read and written through pointers, by other threads too.
    pub address_taken: bool,
    /// For a bit-field member of a flattened struct variable: that variable and the number of
    /// the memory location the bit-field shares with its adjacent bit-fields (C11 3.14).
    pub bitfield_unit: Option<(VarId, u32)>,
}

/// Unary operators. Operand and result have the same type (after promotion by the front end),
/// except `LogNot`, whose result is `int`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum UnOp {
    Neg,
    BitNot,
    LogNot,
}

/// Binary operators. Arithmetic and bitwise operators have both operands converted to the
/// result type. Comparisons have both operands converted to a common type and yield `int`.
/// Shifts: the left operand has the result type, the right operand its own promoted type.
/// `LogAnd`/`LogOr` (only for side-effect-free operands) yield `int`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    LogAnd,
    LogOr,
}

impl BinOp {
    /// Comparison or logical operator (result type `int`, operands of another type).
    pub fn is_boolean(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::LogAnd | BinOp::LogOr
        )
    }
}

/// A side-effect-free, fully typed expression of any scalar type: an integer, a floating-point
/// value or a pointer (issue 33: one IR). Every operand is already converted to the type its
/// operation works in, so the semantics needs no C typing rules: the operation is chosen by the
/// operands' type (`ty()`). Pointer offsets count bytes; the front end scales `p + k` by the
/// pointee's size, so the semantics needs no pointee types (a dereference names the type it
/// reads).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub enum Expr {
    /// Constant: an integer's value masked to the type's width, or a float's IEEE bit pattern
    /// (never a pointer: see `Null`, `AddrOf`, `Func`).
    Const { bits: u64, ty: ScalarTy },
    /// Value of a scalar variable.
    Var { var: VarId, ty: ScalarTy },
    /// Element of an integer or floating-point array variable; `index` is the flattened element
    /// index (any integer type, interpreted by its own signedness), `len` the number of
    /// elements. Out-of-bounds access is undefined behaviour (the semantics ends such a path in
    /// unknown).
    Elem { var: VarId, index: Box<Expr>, len: u64, ty: ScalarTy },
    /// `*ptr` read as `ty` (`*pp` and `p->next` when `ty` is a pointer; null, dangling or
    /// out-of-bounds: undefined behaviour; an object of another type: unsupported).
    Deref { ptr: Box<Expr>, ty: ScalarTy },
    /// The null pointer.
    Null,
    /// The address of a function (`&f`, or `f` decayed).
    Func(FuncId),
    /// `&x`, `&a[i]`, `a` decayed, `&u` of a union: the address of byte `offset` (an integer,
    /// converted to `long long`) of variable `var` in the current frame (or a global).
    AddrOf { var: VarId, offset: Box<Expr> },
    /// `p + k` on a pointer `base` (`bytes` an integer, converted to `long long`, in bytes).
    Offset { base: Box<Expr>, bytes: Box<Expr> },
    /// `-a`, `~a`, `!a` on an integer of type `ty`; `-a` on a float of type `ty` (flips the sign
    /// bit). `!` yields `int`.
    Unary { op: UnOp, arg: Box<Expr>, ty: ScalarTy },
    /// A binary operator (see [`BinOp`]) whose result has type `ty`. The operands' type picks
    /// the semantics: integer (two's complement, with C's undefined cases), floating point
    /// (`+ - * /` rounded to nearest even; comparisons with a NaN operand are false except
    /// `!=`, IEEE 754 / C11 F.3), or pointer (only the six comparisons: `==`, `!=`, and the
    /// relational ones on pointers into one object; `if (p)` is `p != NULL`). Comparisons yield
    /// `int` 0 or 1.
    Binary { op: BinOp, lhs: Box<Expr>, rhs: Box<Expr>, ty: ScalarTy },
    /// Conversion of `arg` to `to`, by the pair of types: integer to integer (truncation / sign
    /// or zero extension; `_Bool`: `!= 0`); integer to float (C11 6.3.1.4 §2: rounded to
    /// nearest even); float to integer (truncation toward zero, undefined if the truncated
    /// value is not representable; to `_Bool`: `arg != 0`, always defined); float to float
    /// (widening exact, narrowing rounds); pointer to integer and integer to pointer (decision
    /// 51: an object's address is an opaque symbol per object plus the offset, and an object's
    /// address plus a constant converts back to that object's pointer; any other integer is an
    /// absolute address).
    Cast { arg: Box<Expr>, to: ScalarTy },
    /// `cond ? then : els` with side-effect-free branches (`cond` is an integer tested against
    /// zero); integer or floating-point branches of type `ty`.
    Ite { cond: Box<Expr>, then: Box<Expr>, els: Box<Expr>, ty: ScalarTy },
    /// `\result` of a witness assumption: the value the matched step returned, as `ty`.
    WitnessResult { ty: ScalarTy },
    /// Pointer difference `lhs - rhs` in elements of `size` bytes, of type `ty` (`ptrdiff_t`):
    /// both must point into (or one past) the same object, at a whole number of elements apart
    /// (C11 6.5.6p9), otherwise undefined behaviour.
    PtrDiff { lhs: Box<Expr>, rhs: Box<Expr>, size: u64, ty: IntTy },
    /// Classification of a floating-point value (`isnan`, …); yields `int` 0 or 1.
    FloatClass { class: FClass, arg: Box<Expr> },
    /// ACSL's `\valid(p)` (`write`) and `\valid_read(p)` in a witness expression (issue 34):
    /// `int` 1 when the `bytes` bytes at the pointer `ptr` lie inside a live object (one that may
    /// be written, for `\valid`), else 0.
    Valid { ptr: Box<Expr>, bytes: u64, write: bool },
    /// A math library function; all arguments have the result's (floating-point) type.
    Math { func: FMath, args: Vec<Expr> },
    /// A libm function (decision 59); all arguments have the result's type `fty`.
    Libm { func: Libm, args: Vec<Expr>, fty: FloatTy },
}

/// Floating-point classification predicates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum FClass {
    IsNan,
    IsInf,
    IsFinite,
    IsNormal,
    /// Sign bit set (also for `-0.0` and negative NaNs).
    SignBit,
}

/// Math library functions modelled exactly (IEEE 754 operations).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum FMath {
    /// `fabs`: clears the sign bit.
    Fabs,
    /// `sqrt`: correctly rounded (round to nearest even).
    Sqrt,
    /// Rounding to an integral value: `floor` (toward -inf), `ceil` (toward +inf), `trunc`
    /// (toward zero), `round` (to nearest, ties away from zero).
    Floor,
    Ceil,
    Trunc,
    Round,
}

/// `<math.h>` functions evaluated by the platform's libm on constant arguments (decision 59):
/// `Fmod` is exact; the others are known only within [`Libm::ULPS`] units in the last place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Libm {
    Fmod,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Atan2,
    Sinh,
    Cosh,
    Tanh,
    Exp,
    Exp2,
    Expm1,
    Log,
    Log2,
    Log10,
    Log1p,
    Pow,
    Hypot,
}

impl Libm {
    /// Margin of an inexact result, in units in the last place of the result's type: glibc
    /// documents errors of at most 2 ulp on x86-64 for these functions (libm-test-ulps), so two
    /// faithful-within-2-ulp implementations differ by at most 4.
    pub const ULPS: u32 = 4;

    /// The function of a C name (without the `f` suffix of the `float` variant).
    pub fn from_name(name: &str) -> Option<Libm> {
        use Libm::*;
        Some(match name {
            "fmod" => Fmod,
            "sin" => Sin,
            "cos" => Cos,
            "tan" => Tan,
            "asin" => Asin,
            "acos" => Acos,
            "atan" => Atan,
            "atan2" => Atan2,
            "sinh" => Sinh,
            "cosh" => Cosh,
            "tanh" => Tanh,
            "exp" => Exp,
            "exp2" => Exp2,
            "expm1" => Expm1,
            "log" => Log,
            "log2" => Log2,
            "log10" => Log10,
            "log1p" => Log1p,
            "pow" => Pow,
            "hypot" => Hypot,
            _ => return None,
        })
    }

    pub fn arity(self) -> usize {
        match self {
            Libm::Fmod | Libm::Atan2 | Libm::Pow | Libm::Hypot => 2,
            _ => 1,
        }
    }

    /// The result is exact (IEEE `fmod` is always representable).
    pub fn exact(self) -> bool {
        self == Libm::Fmod
    }

    pub fn name(self) -> String {
        format!("{self:?}").to_lowercase()
    }
}

impl Expr {
    /// The type of the expression's value.
    pub fn ty(&self) -> ScalarTy {
        match self {
            Expr::Const { ty, .. }
            | Expr::Var { ty, .. }
            | Expr::Elem { ty, .. }
            | Expr::Deref { ty, .. }
            | Expr::Unary { ty, .. }
            | Expr::Binary { ty, .. }
            | Expr::Ite { ty, .. }
            | Expr::WitnessResult { ty } => *ty,
            Expr::Cast { to, .. } => *to,
            Expr::Null | Expr::Func(_) | Expr::AddrOf { .. } | Expr::Offset { .. } => ScalarTy::Ptr,
            Expr::PtrDiff { ty, .. } => ScalarTy::Int(*ty),
            Expr::FloatClass { .. } | Expr::Valid { .. } => ScalarTy::Int(IntTy::INT),
            Expr::Math { args, .. } => args.first().map_or(ScalarTy::Float(FloatTy::F64), Expr::ty),
            Expr::Libm { fty, .. } => ScalarTy::Float(*fty),
        }
    }
    /// The type of an integer expression.
    pub fn int_ty(&self) -> Option<IntTy> {
        self.ty().int()
    }
    /// The type of a floating-point expression.
    pub fn float_ty(&self) -> Option<FloatTy> {
        self.ty().float()
    }
    /// The type of an expression the front end built as an integer (an internal invariant:
    /// a violation is a bug of the front end, not of the input).
    pub fn ity(&self) -> IntTy {
        self.int_ty().expect("the front end built this expression as an integer")
    }
    /// The type of an expression the front end built as a floating-point value (as [`Expr::ity`]).
    pub fn fty(&self) -> FloatTy {
        self.float_ty().expect("the front end built this expression as a floating-point value")
    }
    /// An integer constant of type `ty` (`bits` masked to its width).
    pub fn int_const(bits: u64, ty: IntTy) -> Expr {
        Expr::Const { bits: bits & ty.mask(), ty: ScalarTy::Int(ty) }
    }
    /// A floating-point constant given by its IEEE bit pattern.
    pub fn float_const(bits: u64, fty: FloatTy) -> Expr {
        Expr::Const { bits, ty: ScalarTy::Float(fty) }
    }
    /// An `int` constant.
    pub fn int(v: i64) -> Expr {
        Expr::int_const(v as u64, IntTy::INT)
    }
    /// The integer constant's bits and type.
    pub fn as_int_const(&self) -> Option<(u64, IntTy)> {
        match self {
            Expr::Const { bits, ty: ScalarTy::Int(t) } => Some((*bits, *t)),
            _ => None,
        }
    }
}

/// An assignable place of a scalar type: a variable, an element of an array variable, or the
/// object a pointer points to. `ty` is the type of the value stored there: a store converts
/// the value to it. A pointer array is stored as bytes ([`CType::Bytes`]), so no `Elem` has
/// the type [`ScalarTy::Ptr`] (the front end never builds one; the semantics refuses it).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub enum Place {
    Var {
        var: VarId,
        ty: ScalarTy,
    },
    /// Element of an array variable (as [`Expr::Elem`]: flattened index, out of bounds is
    /// undefined behaviour).
    Elem {
        var: VarId,
        index: Expr,
        len: u64,
        ty: ScalarTy,
    },
    /// `*ptr = …`, `ptr[i] = …` (the index folded into `ptr`), `p->next = …`.
    Deref {
        ptr: Expr,
        ty: ScalarTy,
    },
}

impl Place {
    /// The type of the value stored at this place.
    pub fn ty(&self) -> ScalarTy {
        match self {
            Place::Var { ty, .. } | Place::Elem { ty, .. } | Place::Deref { ty, .. } => *ty,
        }
    }
    /// The integer type of an integer place.
    pub fn int_ty(&self) -> Option<IntTy> {
        self.ty().int()
    }
    /// The floating-point type of a floating-point place.
    pub fn float_ty(&self) -> Option<FloatTy> {
        self.ty().float()
    }
    /// The variable of a `Var` place.
    pub fn var(&self) -> Option<VarId> {
        match self {
            Place::Var { var, .. } => Some(*var),
            _ => None,
        }
    }
    /// The value stored at this place.
    pub fn read(&self) -> Expr {
        let ty = self.ty();
        match self {
            Place::Var { var, .. } => Expr::Var { var: *var, ty },
            Place::Elem { var, index, len, .. } => {
                Expr::Elem { var: *var, index: Box::new(index.clone()), len: *len, ty }
            }
            Place::Deref { ptr, .. } => Expr::Deref { ptr: Box::new(ptr.clone()), ty },
        }
    }
}

/// Initial value of a declared variable.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub enum Init {
    /// Scalar initializer of an integer, floating-point or pointer variable (already converted
    /// to the variable's type).
    Scalar(Expr),
    /// Array initializer: listed flat elements; all others are zero (C's rule).
    Array(Vec<(u64, Expr)>),
    /// Floating-point array initializer: listed flat elements; all others are `+0.0`.
    FloatArray(Vec<(u64, Expr)>),
    /// All zero (static storage without initializer).
    Zero,
    /// Initializer of an object stored as bytes (a union, an array of structs or pointers):
    /// scalar values at byte offsets, each already converted to its type, stored in order
    /// through its type; all other bytes are zero.
    Bytes(Vec<(u64, Expr)>),
}

/// One write of an [`EdgeOp::AssignAll`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub enum Write {
    /// As [`EdgeOp::Declare`].
    Declare { var: VarId, init: Option<Init> },
    /// As [`EdgeOp::Assign`].
    Scalar { lhs: Place, rhs: Expr },
    /// Copies every element of array `src` into array `dst` (same shape and element type).
    Array { dst: VarId, src: VarId },
}

/// What happens when the program reaches a call the violation is reported on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ErrorKind {
    /// `reach_error()`.
    ReachError,
    /// `__VERIFIER_error()`.
    VerifierError,
    /// The 2012 `ERROR:` label.
    ErrorLabel,
    /// A failed `assert` (`__assert_fail`), which in SV-COMP programs calls `reach_error`.
    AssertFail,
}

/// The start routine of a `pthread_create` (decision 248): a function the call names, or a
/// pointer to one (a variable, a table entry, a parameter), which the product resolves when the
/// thread is created, as it resolves a call through a pointer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Routine {
    Function(FuncId),
    Pointer(Box<Expr>),
}

impl Routine {
    /// The function, when the call names it.
    pub fn function(&self) -> Option<FuncId> {
        match self {
            Routine::Function(f) => Some(*f),
            Routine::Pointer(_) => None,
        }
    }
}

/// The operation of one CFA edge.
#[derive(Debug, Clone, Serialize)]
pub enum EdgeOp {
    /// No effect (labels, gotos, joins, block ends). Not observable by the witness, except a
    /// `goto` statement, which carries its source span.
    Blank,
    /// Program start: enters `main` (observable: `enterFunction=main`).
    ProgramStart,
    /// A file-scope declaration of a variable (one edge per declarator, spanning the whole
    /// declaration), on the chain from [`Cfa::start`] to the `ProgramStart` edge, in file order,
    /// as in CPAchecker's and UAutomizer's CFAs. An observable step without effect: initial
    /// values of static storage are [`Cfa::global_inits`], set before the program starts.
    GlobalDeclaration,
    /// Declaration of a local; without initializer its value is nondeterministic (or zero for
    /// `static`, which the front end expresses as `Init::Zero`).
    Declare { var: VarId, init: Option<Init> },
    /// `lhs = rhs` (`rhs` already has the type of `lhs`: an integer, floating-point or pointer
    /// value).
    Assign { lhs: Place, rhs: Expr },
    /// Several writes performed as ONE step (a witness sees one state change): whole-struct
    /// operations on flattened struct variables — `s2 = s`, `struct S s = {1, 2};`, and the
    /// declaration `struct S s;` of all field variables at once. Every right-hand side of
    /// [`Write::Scalar`] and every [`Write::Array`] source is read in the state
    /// before the step, then the writes happen in order. [`Write::Declare`] initialisers are
    /// evaluated when their write happens (they only declare fresh variables, so this is
    /// indistinguishable from reading first except for a struct initializer reading its own
    /// uninitialised fields).
    AssignAll { writes: Vec<Write> },
    /// Branch: taken iff `cond != 0`. `source_truth` tells whether this is the branch where the
    /// condition *as written in the source* holds (`control=condition-true`).
    Assume { cond: Expr, source_truth: bool },
    /// `__VERIFIER_assume(cond)`: paths where it is false are discarded.
    BuiltinAssume { cond: Expr },
    /// Call of a function with a body: the product enters `callee` and resumes at the edge's
    /// target when it returns, storing the result into `lhs`. The front end already converted
    /// `args` to the parameter types (integer or floating); `lhs` may have a type other than
    /// the callee's return type (`char c = f();`, `int i = g();` with `double g()`): the
    /// result is converted to the lhs type as by assignment (float → int: UB out of range).
    Call { callee: FuncId, args: Vec<Expr>, lhs: Option<Target> },
    /// Call of an external function whose result is nondeterministic (`__VERIFIER_nondet_*`,
    /// and declared-only functions the front end deems side-effect free). The result is a
    /// nondeterministic value of `ty`, converted to `lhs.ty()` as by assignment when they differ
    /// (`unsigned x = __VERIFIER_nondet_int();` is one edge).
    NondetCall { function: String, lhs: Option<Place>, ty: IntTy },
    /// Inline assembly with output operands (decision 58): each place gets a fresh value of its
    /// type that is only *approximately* known (any value), so a confirmation through this
    /// step must hold for every value. `what` names the statement for reasons.
    Havoc { lhs: Vec<Place>, what: String },
    /// `__VERIFIER_nondet_float()` / `_double()`: a nondeterministic value of `fty` (any bit
    /// pattern: NaNs, infinities, signed zeros, subnormals), stored into the float lvalue `lhs`
    /// (converted to its type when they differ). A call step like `NondetCall`.
    FloatNondetCall { function: String, lhs: Option<Place>, fty: FloatTy },
    /// `return e;` (or the implicit return at `}`): leads to the function's exit location. A
    /// struct result is stored by `writes` into the function's hidden result variable (read
    /// before written, as [`EdgeOp::AssignAll`]), from which the caller's [`Target::Struct`]
    /// copies it.
    Return { value: Option<Expr>, writes: Vec<Write> },
    /// Call of an error function / reaching the `ERROR:` label. `code`: the argument of
    /// `__VERIFIER_error(N)` (RERS programs pass an error code), when there is one.
    Error { kind: ErrorKind, function: String, code: Option<Expr> },
    /// `malloc(size)`, `calloc(n, m)` (`size` = n·m, `zeroed`), `alloca(size)`: a fresh heap block
    /// of `size` bytes (`unsigned long`); allocation succeeds (SV-COMP convention). Uninitialised
    /// bytes are nondeterministic. The pointer goes to `lhs` (a call step like `NondetCall`).
    /// `stack` (`alloca`, a variable-length array): the block belongs to the calling frame and
    /// dies when it returns (decision 110).
    /// `overflow` (`calloc` only) is nonzero when n·m does not fit in `size_t`: then no block can
    /// hold the array and `calloc` returns a null pointer (C11 7.22.3.2, as glibc does), instead
    /// of a block of the wrapped size.
    Alloc { function: String, lhs: Option<Place>, size: Expr, zeroed: bool, overflow: Option<Expr>, stack: bool },
    /// `free(ptr)`: null is a no-op; anything but the start of a live heap block is undefined
    /// behaviour.
    Free { ptr: Expr },
    /// `realloc(ptr, size)`: a fresh block of `size` bytes (`unsigned long`) holding the first
    /// bytes of the old one, which is freed; a null `ptr` makes it `malloc`. Allocation
    /// succeeds; a size of 0 is unsupported (implementation-defined).
    Realloc { lhs: Option<Place>, ptr: Expr, size: Expr },
    /// `strlen(s)`, `strcmp(a, b)`, `strncmp(a, b, n)`, `memcmp(a, b, n)`, `strcpy(d, s)`: on
    /// strings whose bytes are known (otherwise unsupported). A comparison's result is only its
    /// sign (C11 7.24.4): a nondeterministic `int` of that sign, 0 for equal. `strcpy` returns
    /// `d`.
    StrFn { function: String, args: Vec<Expr>, n: Option<Expr>, lhs: Option<Target> },
    /// `memset(dst, c, n)`, `memcpy(dst, src, n)`, `memmove(dst, src, n)`: `n` (`unsigned long`)
    /// bytes stored one by one; the result, `dst`, goes to `lhs`.
    /// (`src` boxed: the rarest operation must not make every edge larger.)
    MemBytes { function: String, lhs: Option<Place>, dst: Expr, src: Box<MemSource>, n: Expr },
    /// Call through a function pointer: as [`EdgeOp::Call`] once the pointer is evaluated to a
    /// function with a body whose parameters match `args` (otherwise unsupported); a null or
    /// non-function pointer is undefined behaviour.
    CallPtr { fptr: Expr, args: Vec<Expr>, lhs: Option<Target> },
    /// `abort()`, `exit(n)`: the path ends without violation (`exit` first runs the handlers
    /// registered with `atexit`, decision 76).
    Terminate { function: String },
    /// `atexit(f)` (decision 76): `f` runs when the program ends by `exit` or a return from
    /// `main`, after the handlers registered later. The call returns 0 (registered).
    AtExit { handler: FuncId, lhs: Option<Place> },
    /// `pthread_create(handle, attr, routine, arg)` (issue 22): a new thread that will run
    /// `routine(arg)`; its id goes to `*handle` (a `pthread_t`), the call returns 0. `attr` is
    /// ignored (only a null attribute object is accepted by the front end).
    ThreadCreate {
        /// Boxed, as `arg`: the rarest operation must not make every edge larger.
        handle: Option<Box<Place>>,
        routine: Routine,
        arg: Option<Box<Expr>>,
        lhs: Option<Place>,
    },
    /// `pthread_join(thread, retval)`: enabled once the thread has ended; returns 0. `retval`
    /// must be null (the front end refuses others).
    ThreadJoin { thread: Expr, lhs: Option<Place> },
    /// `pthread_exit(v)`: the running thread ends (in `main` the other threads go on).
    ThreadExit,
    /// `pthread_self()`: the running thread's id.
    ThreadSelf { lhs: Option<Place> },
    /// A mutex operation on the mutex at `mutex` (`pthread_mutex_lock` is enabled only on a
    /// free mutex; the mutex's bytes are not read: a statically initialised mutex is free).
    Mutex { op: MutexOp, mutex: Expr, lhs: Option<Place> },
    /// `__VERIFIER_atomic_begin()` / `__VERIFIER_atomic_end()`: no other thread runs between
    /// them.
    Atomic { begin: bool },
    /// Something the semantics cannot handle yet; a path that executes it ends in unknown.
    Unsupported { what: String },
}

impl EdgeOp {
    /// Calls `f` on every expression of the operation, subexpressions included (those of its places,
    /// initializers, writes and call targets too). Exhaustive by construction: a new operation or
    /// expression must say what it holds (decision 236's walk; any analysis may use it).
    pub fn for_each_expr(&self, f: &mut dyn FnMut(&Expr)) {
        fn expr(e: &Expr, f: &mut dyn FnMut(&Expr)) {
            f(e);
            match e {
                Expr::Const { .. } | Expr::Var { .. } | Expr::Null | Expr::Func(_) | Expr::WitnessResult { .. } => {}
                Expr::Elem { index: a, .. }
                | Expr::Deref { ptr: a, .. }
                | Expr::AddrOf { offset: a, .. }
                | Expr::Unary { arg: a, .. }
                | Expr::Cast { arg: a, .. }
                | Expr::FloatClass { arg: a, .. }
                | Expr::Valid { ptr: a, .. } => expr(a, f),
                Expr::Offset { base: a, bytes: b }
                | Expr::Binary { lhs: a, rhs: b, .. }
                | Expr::PtrDiff { lhs: a, rhs: b, .. } => {
                    expr(a, f);
                    expr(b, f);
                }
                Expr::Ite { cond, then, els, .. } => {
                    expr(cond, f);
                    expr(then, f);
                    expr(els, f);
                }
                Expr::Math { args, .. } | Expr::Libm { args, .. } => args.iter().for_each(|a| expr(a, f)),
            }
        }
        fn place(p: &Place, f: &mut dyn FnMut(&Expr)) {
            match p {
                Place::Var { .. } => {}
                Place::Elem { index, .. } => expr(index, f),
                Place::Deref { ptr, .. } => expr(ptr, f),
            }
        }
        fn init(i: &Init, f: &mut dyn FnMut(&Expr)) {
            match i {
                Init::Scalar(x) => expr(x, f),
                Init::Array(xs) | Init::FloatArray(xs) | Init::Bytes(xs) => xs.iter().for_each(|(_, x)| expr(x, f)),
                Init::Zero => {}
            }
        }
        fn writes(ws: &[Write], f: &mut dyn FnMut(&Expr)) {
            for w in ws {
                match w {
                    Write::Declare { init: i, .. } => i.iter().for_each(|i| init(i, f)),
                    Write::Scalar { lhs, rhs } => {
                        place(lhs, f);
                        expr(rhs, f);
                    }
                    Write::Array { .. } => {}
                }
            }
        }
        fn target(t: &Target, f: &mut dyn FnMut(&Expr)) {
            match t {
                Target::Scalar(p) => place(p, f),
                Target::Struct(ws) => writes(ws, f),
            }
        }
        match self {
            EdgeOp::Blank
            | EdgeOp::ProgramStart
            | EdgeOp::GlobalDeclaration
            | EdgeOp::Terminate { .. }
            | EdgeOp::ThreadExit
            | EdgeOp::Atomic { .. }
            | EdgeOp::Unsupported { .. } => {}
            EdgeOp::Declare { init: i, .. } => i.iter().for_each(|i| init(i, f)),
            EdgeOp::Assign { lhs, rhs } => {
                place(lhs, f);
                expr(rhs, f);
            }
            EdgeOp::AssignAll { writes: ws } => writes(ws, f),
            EdgeOp::Assume { cond, .. } | EdgeOp::BuiltinAssume { cond } => expr(cond, f),
            EdgeOp::Call { args, lhs, .. } => {
                args.iter().for_each(|a| expr(a, f));
                lhs.iter().for_each(|t| target(t, f));
            }
            EdgeOp::NondetCall { lhs, .. }
            | EdgeOp::FloatNondetCall { lhs, .. }
            | EdgeOp::AtExit { lhs, .. }
            | EdgeOp::ThreadSelf { lhs } => lhs.iter().for_each(|p| place(p, f)),
            EdgeOp::Havoc { lhs, .. } => lhs.iter().for_each(|p| place(p, f)),
            EdgeOp::Return { value, writes: ws } => {
                value.iter().for_each(|v| expr(v, f));
                writes(ws, f);
            }
            EdgeOp::Error { code, .. } => code.iter().for_each(|c| expr(c, f)),
            EdgeOp::Alloc { lhs, size, overflow, .. } => {
                lhs.iter().for_each(|p| place(p, f));
                expr(size, f);
                overflow.iter().for_each(|o| expr(o, f));
            }
            EdgeOp::Free { ptr } => expr(ptr, f),
            EdgeOp::Realloc { lhs, ptr, size } => {
                lhs.iter().for_each(|p| place(p, f));
                expr(ptr, f);
                expr(size, f);
            }
            EdgeOp::StrFn { args, n, lhs, .. } => {
                args.iter().for_each(|a| expr(a, f));
                n.iter().for_each(|n| expr(n, f));
                lhs.iter().for_each(|t| target(t, f));
            }
            EdgeOp::MemBytes { lhs, dst, src, n, .. } => {
                lhs.iter().for_each(|p| place(p, f));
                expr(dst, f);
                match src.as_ref() {
                    MemSource::Byte(x) | MemSource::Copy { src: x, .. } => expr(x, f),
                }
                expr(n, f);
            }
            EdgeOp::CallPtr { fptr, args, lhs } => {
                expr(fptr, f);
                args.iter().for_each(|a| expr(a, f));
                lhs.iter().for_each(|t| target(t, f));
            }
            EdgeOp::ThreadCreate { handle, routine, arg, lhs } => {
                if let Routine::Pointer(r) = routine {
                    expr(r, f);
                }
                handle.iter().for_each(|p| place(p, f));
                arg.iter().for_each(|a| expr(a, f));
                lhs.iter().for_each(|p| place(p, f));
            }
            EdgeOp::ThreadJoin { thread, lhs } => {
                expr(thread, f);
                lhs.iter().for_each(|p| place(p, f));
            }
            EdgeOp::Mutex { mutex, lhs, .. } => {
                expr(mutex, f);
                lhs.iter().for_each(|p| place(p, f));
            }
        }
    }
}

/// What an [`EdgeOp::Mutex`] does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum MutexOp {
    /// `pthread_mutex_init`: the mutex is free.
    Init,
    /// `pthread_mutex_lock`: waits until the mutex is free, then holds it.
    Lock,
    /// `pthread_mutex_trylock`: holds a free mutex and returns 0, else returns `EBUSY` (16).
    TryLock,
    /// `pthread_mutex_unlock`: frees the mutex.
    Unlock,
    /// `pthread_mutex_destroy`: no effect.
    Destroy,
}

/// Source range of an edge. Lines are 1-based physical lines; offsets are 0-based byte
/// offsets into the file as given, `end_offset` inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct SourceSpan {
    pub start_line: u32,
    pub end_line: u32,
    pub start_offset: usize,
    pub end_offset: usize,
}

/// How a source construct's branch was decided (for YAML `branching` waypoints).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum BranchOutcome {
    /// Two-way construct (`if`, loops, `?:`): the controlling expression is true / false.
    Bool(bool),
    /// `switch`: the `case` label with this value is taken.
    Case(i128),
    /// `switch`: a GNU `case lo ... hi` range is taken.
    CaseRange(i128, i128),
    /// `switch`: no `case` label matches.
    Default,
}

/// Marks an edge that decides a branch of a source construct: the step after which control
/// leaves the controlling expression towards the chosen successor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// Byte offset of the construct's keyword (`if`, `while`, `for`, `do`, `switch`) or `?`.
    pub construct: usize,
    pub outcome: BranchOutcome,
}

/// One edge of the CFA.
#[derive(Debug, Clone, Serialize)]
pub struct CfaEdge {
    pub op: EdgeOp,
    /// `None` for [`EdgeOp::Blank`] edges without a source location.
    pub span: Option<SourceSpan>,
    pub function: FuncId,
    /// Source text of the operation (for traces), possibly abbreviated.
    pub text: String,
    /// Set on the edges that decide a branch of a source construct.
    pub decision: Option<Decision>,
    /// `Call`/`NondetCall`: byte offset of the `)` closing the call's argument list.
    pub call_paren: Option<usize>,
    /// `Call`/`NondetCall`: byte offset of the call expression's first character (the callee's
    /// name), where ESBMC's `function_enter`/`function_return` locations point.
    pub call_start: Option<usize>,
}

/// A CFA location.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CfaNode {
    pub function: Option<FuncId>,
    /// Loop head: the location a loop's condition is evaluated at (entered from before the
    /// loop and by each back edge).
    pub loop_head: bool,
}

/// A function with a body.
#[derive(Debug, Clone, Serialize)]
pub struct FunctionInfo {
    pub name: String,
    pub params: Vec<VarId>,
    /// `None` for `void`.
    pub return_ty: Option<ScalarTy>,
    /// Return type is one the semantics does not model (pointer, struct, `long double`).
    pub return_unsupported: Option<String>,
    pub entry: NodeIndex,
    /// Every `Return` edge leads here; the product pops the frame at this location.
    pub exit: NodeIndex,
    /// Span of the function's declarator/opening (what `enterFunction` of `main` matches).
    pub span: SourceSpan,
}

/// Result type of a function known only by its declaration (e.g. `__VERIFIER_nondet_uint`).
#[derive(Debug, Clone, Serialize)]
pub struct ExternInfo {
    pub name: String,
    pub return_ty: Option<IntTy>,
}

/// The whole program.
#[derive(Debug, Clone, Serialize)]
pub struct Cfa {
    pub graph: DiGraph<CfaNode, CfaEdge>,
    /// Lines of calls that pass the results of several nondet calls in different arguments:
    /// C leaves their order unspecified; the CFA calls them left to right, gcc on x86 right to
    /// left (issue 19, cause 12).
    pub unordered_nondet: std::collections::BTreeSet<u32>,
    /// Lines of pointer differences whose elements are larger than a byte: C leaves a
    /// difference of pointers that are not a whole number of elements apart undefined, which
    /// no sanitizer of gcc checks (a native run of such a program concludes nothing; issue 51
    /// cause 3).
    pub scaled_ptr_diffs: std::collections::BTreeSet<u32>,
    pub functions: Vec<FunctionInfo>,
    pub externs: Vec<ExternInfo>,
    pub vars: Vec<VarInfo>,
    /// Global declarations with initializers, in source order; executed before `main`.
    pub global_inits: Vec<(VarId, Init)>,
    /// Program start location (before `main` is entered): a chain of `GlobalDeclaration`
    /// edges, one per file-scope variable declarator in file order, then `ProgramStart`.
    pub start: NodeIndex,
    pub main: FuncId,
    pub data_model: DataModel,
    /// Byte offsets of edge spans are exact offsets into the given file. False when the file
    /// had to be run through `gcc -E` (which rewrites white space): then witness offsets must
    /// not be used for matching, only lines.
    pub offsets_exact: bool,
    /// When not `offsets_exact` (`gcc -E`): per line (index line − 1), whether offsets on it are
    /// exact anyway (no macro expanded there; issue 19, cause 2).
    pub exact_lines: Vec<bool>,
    /// Length of the source in bytes, and the byte offset each line starts at.
    pub source_len: usize,
    pub line_starts: crate::lines::LineStarts,
    /// File-scope typedef names and their types (witness assumptions may cast to them).
    pub typedefs: Vec<(String, CType)>,
    /// Enumeration constants visible at file scope, for witness assumptions: name, value bits
    /// and type (`int` when the value fits, else the enumeration's type; decision 100).
    pub enum_constants: Vec<(String, u64, IntTy)>,
    /// Tags of the enumerations defined at file scope (`enum E`) and their integer types.
    pub enum_tags: Vec<(String, IntTy)>,
    /// Byte offset of the first character of each statement and block-item declaration, with
    /// the location at which control arrives at it.
    pub statement_starts: Vec<(usize, NodeIndex)>,
    /// Decision 255: the first character of a block-scope declaration's initializer (a full
    /// expression), with the first character of its declaration, for the declarations whose
    /// only initialized declarator it is: a waypoint there means the declaration's steps.
    pub initializer_starts: Vec<(usize, usize)>,
    /// Globals declared only `extern` (defined outside the program): their initial value is
    /// nondeterministic.
    pub external_globals: Vec<VarId>,
    /// Keyword offsets of branching constructs, each mapped to the construct's canonical offset
    /// (`Decision::construct`); `do … while` is listed under both keywords.
    pub branch_keywords: Vec<(usize, usize)>,
    /// The loop statements (`while`, `do`, `for`) by their first character, each with its loop
    /// head: where a loop invariant of the statement is checked (issue 32 cause 8: the first
    /// statement of a `do` body starts at the `do` loop's head, but its own head is another).
    pub loop_statements: Vec<(usize, NodeIndex)>,
    /// Decision 61: byte ranges of the given file holding the bodies (between `{` and `}`) of
    /// the functions `main` cannot reach, which were not parsed.
    pub skipped_bodies: Vec<(usize, usize)>,
    /// Decision 172: the names of those functions, sorted; they are not in `functions` (no
    /// empty shell is built for them), but the program defines them.
    pub skipped_functions: Vec<String>,
    /// Thread-local variables (`__thread`, `_Thread_local`; issue 22): one copy per thread.
    pub thread_locals: std::collections::BTreeSet<VarId>,
    /// The program starts threads (it has a [`EdgeOp::ThreadCreate`] edge): the product keeps
    /// a component per thread.
    pub threads: bool,
    /// The front end's own view of the program, for lowering witness expressions.
    #[serde(skip)]
    pub front: FrontEnd,
    /// Decision 251: the locations whose steps the instrumentation of transition invariants
    /// moved behind its snapshot steps, each with the location its own steps leave from now
    /// (empty in a program as the front end built it).
    #[serde(skip)]
    pub moved_steps: Vec<(NodeIndex, NodeIndex)>,
}

/// The front end's own view of the program (the C type of each variable, struct definitions,
/// typedefs, function signatures), kept so that witness expressions are lowered by the code that
/// lowered the program (issue 33). Opaque below the front end, which owns its type and reads it
/// back; not serialized.
#[derive(Clone, Default)]
pub struct FrontEnd(Option<std::sync::Arc<dyn std::any::Any + Send + Sync>>);

impl FrontEnd {
    pub(crate) fn new<T: std::any::Any + Send + Sync>(front: T) -> Self {
        FrontEnd(Some(std::sync::Arc::new(front)))
    }

    /// The front end's value, if it is of type `T`.
    pub(crate) fn get<T: std::any::Any>(&self) -> Option<&T> {
        self.0.as_deref()?.downcast_ref()
    }
}

impl std::fmt::Debug for FrontEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "FrontEnd(..)" } else { "FrontEnd(none)" })
    }
}

/// Offsets (in the given file) of the places inside removed bodies, by kind, found by a
/// lexical scan (comments and literals skipped).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SkippedPlaces {
    /// First characters of statements (after `{`, `;` or `}`).
    pub statements: Vec<usize>,
    /// Branching keywords and `?`.
    pub branches: Vec<usize>,
    /// Names followed by `(` (calls).
    pub calls: Vec<usize>,
    /// Calls of `reach_error` or `__VERIFIER_error`.
    pub errors: Vec<usize>,
}

impl Cfa {
    /// Are offsets and columns on `line` (1-based) those of the given file?
    pub fn line_exact(&self, line: u32) -> bool {
        self.offsets_exact || (line > 0 && self.exact_lines.get(line as usize - 1).copied().unwrap_or(false))
    }

    pub fn function(&self, id: FuncId) -> &FunctionInfo {
        &self.functions[id.0 as usize]
    }
    /// The location the program's own steps out of `n` leave from: `n`, unless the
    /// instrumentation of transition invariants put snapshot steps before them (decision 251).
    pub fn own_steps(&self, n: NodeIndex) -> NodeIndex {
        self.moved_steps.iter().find(|(m, _)| *m == n).map_or(n, |(_, to)| *to)
    }

    pub fn var(&self, id: VarId) -> &VarInfo {
        &self.vars[id.0 as usize]
    }
    pub fn edge(&self, e: EdgeIndex) -> &CfaEdge {
        &self.graph[e]
    }
    pub fn function_by_name(&self, name: &str) -> Option<FuncId> {
        self.functions.iter().position(|f| f.name == name).map(|i| FuncId(i as u32))
    }
    /// The function a witness names: by its name, or by the name CPAchecker gives the copy of a
    /// function it makes for each thread that runs it (`t_fun__cloned_function__1`, issue 34): the
    /// function copied, when the program has no function of the copy's own name. A copy has the
    /// locals of the function it copies; the thread a step runs in is the step's own.
    pub fn witness_function(&self, name: &str) -> Option<FuncId> {
        self.function_by_name(name).or_else(|| {
            let (copied, n) = name.rsplit_once("__cloned_function__")?;
            let numbered = !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
            numbered.then(|| self.function_by_name(copied))?
        })
    }
    /// The program defines a function of this name: one in the CFA, or one whose definition
    /// was not parsed because `main` cannot reach it (decision 172).
    pub fn defines(&self, name: &str) -> bool {
        self.function_by_name(name).is_some()
            || self.skipped_functions.binary_search_by(|n| n.as_str().cmp(name)).is_ok()
    }
    /// Number of lines of the file (a final newline does not start another line).
    pub fn line_count(&self) -> u64 {
        let n = self.line_starts.len();
        if n > 1 && self.line_starts.at(n - 1) >= self.source_len {
            n as u64 - 1
        } else {
            n as u64
        }
    }
    /// Locations reachable from `loc` through blank (unobservable) edges, `loc` included.
    pub fn blank_closure(&self, loc: NodeIndex) -> Vec<NodeIndex> {
        let mut seen = std::collections::HashSet::new();
        let mut todo = vec![loc];
        let mut out = Vec::new();
        while let Some(l) = todo.pop() {
            if !seen.insert(l) {
                continue;
            }
            out.push(l);
            for e in self.graph.edges_directed(l, petgraph::Direction::Outgoing) {
                if matches!(e.weight().op, EdgeOp::Blank) {
                    todo.push(petgraph::visit::EdgeRef::target(&e));
                }
            }
        }
        out
    }
    /// 1-based line of a byte offset.
    pub fn line_of_offset(&self, offset: usize) -> u32 {
        self.line_starts.count_to(offset) as u32
    }
}

#[cfg(test)]
mod size_tests {
    /// The CFA stores every edge's operation and expression by value and the search clones
    /// them; one `Expr` for three kinds (decision 195) left them no larger than the three
    /// families were (`Expr` 40 bytes, `EdgeOp` 192 before: `MemBytes` grew by two pointer
    /// operands, so its byte source is boxed).
    #[test]
    fn ir_nodes_stay_small() {
        assert!(std::mem::size_of::<super::Expr>() <= 40);
        assert!(std::mem::size_of::<super::EdgeOp>() <= 192);
    }
}
