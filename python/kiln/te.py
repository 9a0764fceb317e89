"""Compute definitions, as TVM's ``te``: placeholders, compute, reductions and
elementwise math. An operator defined here is a workload like any other: it
has a workload key, and the tuner and the database take it::

    from kiln import te

    X = te.placeholder((128, 256), "float32", name="X")
    W = te.placeholder((256, 64), "float32", name="W")
    k = te.reduce_axis((0, 256), name="k")
    Y = te.compute((128, 64), lambda i, j: te.sum(X[i, k] * W[k, j], axis=k), name="Y")
    Z = te.compute((128, 64), lambda i, j: Y[i, j] * te.sigmoid(Y[i, j]), name="Z")
    f = te.create_prim_func([X, W, Z], name="matmul_silu")

Python numbers take the type of the expression they meet (``x * 2`` of a
float32 ``x`` is float32); expressions of two types are a TypeError: say
which way with ``te.cast`` or ``x.astype(...)``.
"""
from ._kiln import te as _te

Tensor = _te.Tensor
abs = _te.abs
acos = _te.acos
acosh = _te.acosh
asin = _te.asin
asinh = _te.asinh
atan = _te.atan
atanh = _te.atanh
cast = _te.cast
ceil = _te.ceil
compute = _te.compute
const = _te.const
cos = _te.cos
cosh = _te.cosh
create_prim_func = _te.create_prim_func
erf = _te.erf
exp = _te.exp
floor = _te.floor
fma = _te.fma
log = _te.log
placeholder = _te.placeholder
pow = _te.pow
reduce_axis = _te.reduce_axis
round = _te.round
rsqrt = _te.rsqrt
select = _te.select
sigmoid = _te.sigmoid
sin = _te.sin
sinh = _te.sinh
sqrt = _te.sqrt
sum = _te.sum
tan = _te.tan
tanh = _te.tanh


def _extremum(name, reduce, pair, a, b, axis):
    if axis is not None:
        if b is not None:
            raise TypeError(f"te.{name} takes two expressions or one and axis=, not both")
        return reduce(a, axis)
    if b is None:
        raise TypeError(f"te.{name} takes two expressions, or one and axis=")
    return pair(a, b)


def max(a, b=None, *, axis=None):
    """The largest of ``a`` over reduction axes (``te.max(x, axis=k)``, at the
    root of a compute body), or of two expressions elementwise (``te.max(x, 0.0)``)."""
    return _extremum("max", _te._max_reduce, _te._max, a, b, axis)


def min(a, b=None, *, axis=None):
    """The smallest of ``a`` over reduction axes (``te.min(x, axis=k)``), or of
    two expressions elementwise (``te.min(x, 6.0)``)."""
    return _extremum("min", _te._min_reduce, _te._min, a, b, axis)
