"""Numbers that remember their OpenSCAD expression.

A `ScadNum` is a float, so builders and checks compute with real values, and it also
carries the OpenSCAD expression that yields the same value from the customizer variables
at the top of the emitted file. solidpython2 writes a number with `str()`, so an emitted
file says `translate([template_length_mm, 0, 0])` instead of `translate([78.0, 0, 0])`,
and a `-D token_width_mm=30` override in OpenSCAD changes the part as YAML would.
"""

from __future__ import annotations

import math

Number = int | float

# Operator precedence in OpenSCAD expressions (higher binds tighter).
_ATOM = 100
_UNARY = 90
_PRODUCT = 80
_SUM = 70


def format_literal(value: float) -> str:
    """Shortest decimal that reads back to within 1e-9 mm, without exponent noise."""
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    text = f"{value:.10f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


class ScadNum(float):
    """A float with the OpenSCAD expression that computes it."""

    expr: str
    precedence: int

    def __new__(cls, value: Number, expr: str | None = None, precedence: int = _ATOM) -> ScadNum:
        number = float.__new__(cls, value)
        number.expr = expr if expr is not None else format_literal(float(value))
        number.precedence = precedence if expr is not None else _literal_precedence(value)
        return number

    def __str__(self) -> str:
        return self.expr

    __repr__ = __str__

    def __reduce__(self) -> tuple[type, tuple[float, str, int]]:
        return (ScadNum, (float(self), self.expr, self.precedence))

    # Arithmetic keeps both the value and the expression.
    def __add__(self, other: Number) -> ScadNum:
        return _binary(self, "+", other, _SUM, float(self) + float(other))

    def __radd__(self, other: Number) -> ScadNum:
        return _binary(other, "+", self, _SUM, float(other) + float(self))

    def __sub__(self, other: Number) -> ScadNum:
        return _binary(self, "-", other, _SUM, float(self) - float(other))

    def __rsub__(self, other: Number) -> ScadNum:
        return _binary(other, "-", self, _SUM, float(other) - float(self))

    def __mul__(self, other: Number) -> ScadNum:
        return _binary(self, "*", other, _PRODUCT, float(self) * float(other))

    def __rmul__(self, other: Number) -> ScadNum:
        return _binary(other, "*", self, _PRODUCT, float(other) * float(self))

    def __truediv__(self, other: Number) -> ScadNum:
        return _binary(self, "/", other, _PRODUCT, float(self) / float(other))

    def __rtruediv__(self, other: Number) -> ScadNum:
        return _binary(other, "/", self, _PRODUCT, float(other) / float(self))

    def __neg__(self) -> ScadNum:
        return ScadNum(-float(self), f"-{_wrap(self, _UNARY)}", _UNARY)

    def __pos__(self) -> ScadNum:
        return self

    def __abs__(self) -> ScadNum:
        return call("abs", abs(float(self)), self)


def _literal_precedence(value: Number) -> int:
    return _UNARY if float(value) < 0 else _ATOM


def as_scad(value: Number) -> ScadNum:
    return value if isinstance(value, ScadNum) else ScadNum(value)


def _wrap(operand: ScadNum, needed: int) -> str:
    return f"({operand.expr})" if operand.precedence < needed else operand.expr


def _is_literal(value: Number, target: float) -> bool:
    return not isinstance(value, ScadNum) and float(value) == target


def _binary(left: Number, op: str, right: Number, precedence: int, value: float) -> ScadNum:
    # Drop identities so emitted code stays readable: x * 1, x + 0, 0 + x.
    if op in "+-" and _is_literal(right, 0.0):
        return as_scad(left)
    if op == "+" and _is_literal(left, 0.0):
        return as_scad(right)
    if op in "*/" and _is_literal(right, 1.0):
        return as_scad(left)
    if op == "*" and _is_literal(left, 1.0):
        return as_scad(right)
    lhs, rhs = as_scad(left), as_scad(right)
    # Left operand binds at the same level; the right one must bind tighter for - and /.
    right_needed = precedence + 1 if op in "-/" else precedence
    text = f"{_wrap(lhs, precedence)} {op} {_wrap(rhs, right_needed)}"
    return ScadNum(value, text, precedence)


def call(function: str, value: float, *args: Number) -> ScadNum:
    """A call to an OpenSCAD function whose Python value is already known."""
    rendered = ", ".join(as_scad(a).expr for a in args)
    return ScadNum(value, f"{function}({rendered})", _ATOM)


# OpenSCAD's trigonometry works in degrees; these mirror it and keep the call readable
# in the emitted source (cos(22.5) rather than 0.9238795325).
def _trig(name: str, function, angle: Number) -> ScadNum | float:
    value = function(math.radians(angle))
    # A literal angle with an exact result (cos(0) = 1) needs no call in the source.
    if not isinstance(angle, ScadNum) and abs(value - round(value)) < 1e-12:
        return float(round(value))
    return call(name, value, angle)


def sin_deg(angle: Number) -> ScadNum | float:
    return _trig("sin", math.sin, angle)


def cos_deg(angle: Number) -> ScadNum | float:
    return _trig("cos", math.cos, angle)


def tan_deg(angle: Number) -> ScadNum | float:
    return _trig("tan", math.tan, angle)


def sqrt(value: Number) -> ScadNum:
    return call("sqrt", math.sqrt(value), value)


def atan2_deg(y: Number, x: Number) -> ScadNum:
    return call("atan2", math.degrees(math.atan2(y, x)), y, x)


def smax(*values: Number) -> ScadNum:
    return call("max", max(float(v) for v in values), *values)


def smin(*values: Number) -> ScadNum:
    return call("min", min(float(v) for v in values), *values)


def named(name: str, value: Number) -> ScadNum:
    """A reference to an OpenSCAD variable holding `value`."""
    return ScadNum(value, name, _ATOM)


PI = named("PI", math.pi)


def degrees(radians: Number) -> Number:
    """Radians to degrees, written with OpenSCAD's PI."""
    return radians * 180 / PI


def radians(degrees_value: Number) -> Number:
    return degrees_value * PI / 180
