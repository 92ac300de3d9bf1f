"""Emit a part's OpenSCAD source: customizer variables on top, our modules, then the body.

Builders receive the kit's design with a symbolic view of the parameters: every float
field reads as a `ScadNum` named after its key (token.width_mm -> token_width_mm) and every
derived property as a named value computed in the file's hidden section. Only what a part
touches is declared, so the source of a part changes exactly when a parameter it depends
on changes. The rest of the design (a box layout, say) reads as computed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel
from solid2 import scad_render
from solid2.core.object_base import OpenSCADObject

from squadron_cad import __version__
from squadron_cad.constants import ENGINE_CREDIT
from squadron_cad.geometry.expr import ScadNum, format_literal, named
from squadron_cad.geometry.scad_lib import modules_used
from squadron_cad.kit import Design, Part
from squadron_cad.params import KitParamsBase

QUALITY_SETTINGS = {
    # $fa: degrees per facet on large arcs; $fs: longest facet on small ones (mm).
    "draft": {"$fa": 12, "$fs": 1.0},
    "final": {"$fa": 3, "$fs": 0.3},
}


@dataclass(frozen=True)
class InputVariable:
    name: str
    value: float
    section: str
    description: str
    low: float | None
    high: float | None
    unit: str


@dataclass
class VariableScope:
    """The variables one part's source declares, in first-use order."""

    inputs: dict[str, InputVariable] = field(default_factory=dict)
    derived: dict[str, ScadNum] = field(default_factory=dict)

    def use_input(self, variable: InputVariable) -> ScadNum:
        self.inputs.setdefault(variable.name, variable)
        return named(variable.name, variable.value)

    def use_derived(self, name: str, value: ScadNum) -> ScadNum:
        if name in self.inputs:
            raise ValueError(f"derived value {name} collides with a parameter")
        self.derived.setdefault(name, value)
        return named(name, float(value))


class SymbolicParams:
    """Duck-types a parameter model, handing out named ScadNums instead of floats."""

    def __init__(self, model: BaseModel, scope: VariableScope, prefix: str = "") -> None:
        object.__setattr__(self, "_model", model)
        object.__setattr__(self, "_scope", scope)
        object.__setattr__(self, "_prefix", prefix)

    def __getattr__(self, name: str) -> Any:
        model = self._model
        fields = type(model).model_fields
        if name in fields:
            return self._field(name, getattr(model, name), fields[name])
        attribute = getattr(type(model), name, None)
        if isinstance(attribute, property):
            return self._derived(name, attribute)
        return getattr(model, name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("parameters are read-only")

    def _field(self, name: str, value: Any, info: Any) -> Any:
        if isinstance(value, BaseModel):
            return SymbolicParams(value, self._scope, f"{self._prefix}{name}_")
        if isinstance(value, float):  # strict models: floats are dimensions, ints structure
            low, high = _bounds(info)
            extra = info.json_schema_extra or {}
            variable = InputVariable(
                name=f"{self._prefix}{name}",
                value=value,
                section=self._prefix.rstrip("_") or "kit",
                description=info.description or "",
                low=low,
                high=high,
                unit=str(extra.get("unit", "")),
            )
            return self._scope.use_input(variable)
        return value

    def _derived(self, name: str, prop: property) -> Any:
        if prop.fget is None:  # as Python says of a property without a getter
            raise AttributeError(f"property {name!r} has no getter")
        result = prop.fget(self)
        if isinstance(result, ScadNum):
            return self._scope.use_derived(f"{self._prefix}{name}", result)
        return result


def _bounds(info: Any) -> tuple[float | None, float | None]:
    """The slider's ends; a strict limit (gt/lt) is marked by a tiny nudge, settled in _range."""
    low = high = None
    for constraint in info.metadata:
        if getattr(constraint, "ge", None) is not None:
            low = float(constraint.ge)
        if getattr(constraint, "gt", None) is not None:
            low = float(constraint.gt) + _STRICT
        if getattr(constraint, "le", None) is not None:
            high = float(constraint.le)
        if getattr(constraint, "lt", None) is not None:
            high = float(constraint.lt) - _STRICT
    return low, high


_STRICT = 1e-5  # below any slider step, above the rounding in _range


def symbolic(params: KitParamsBase, scope: VariableScope) -> KitParamsBase:
    """The view a builder receives; typed as KitParamsBase because it behaves as one."""
    return SymbolicParams(params, scope)  # type: ignore[return-value]


class SymbolicDesign:
    """A design whose `params` is a symbolic view; everything else reads through."""

    def __init__(self, design: Design, params: KitParamsBase) -> None:
        self._design = design
        self.params = params

    def __getattr__(self, name: str) -> Any:
        return getattr(self._design, name)


@dataclass(frozen=True)
class ScadSource:
    part: str
    text: str
    inputs: tuple[InputVariable, ...]


def emit(part: Part, design: Design, credit: str) -> ScadSource:
    """Run a part's pure builder on the symbolic view and write the whole file's text."""
    scope = VariableScope()
    params = design.params
    obj: OpenSCADObject = part.builder(SymbolicDesign(design, symbolic(params, scope)))
    body = scad_render(obj)
    library = "\n".join(module.source for module in modules_used(obj))
    text = "\n".join(
        [
            _banner(part.name, part.title, credit),
            _customizer_section(scope),
            _hidden_section(scope, params.quality),
            library,
            f"// ---- {part.name} ----",
            body,
        ]
    )
    return ScadSource(part=part.name, text=text, inputs=tuple(scope.inputs.values()))


def _banner(part: str, title: str, credit: str) -> str:
    return (
        f"// {part}.scad: {title}\n"
        f"// Generated by squadron_cad {__version__}. {credit}; {ENGINE_CREDIT}.\n"
        "// Tweak the values below in OpenSCAD's Customizer (Window > Customizer), or set\n"
        "// them in YAML and rebuild with `make stl` so the checks run too.\n"
    )


def _customizer_section(scope: VariableScope) -> str:
    lines: list[str] = []
    section = None
    sections = list(dict.fromkeys(v.section for v in scope.inputs.values()))
    ordered = sorted(scope.inputs.values(), key=lambda v: sections.index(v.section))
    for variable in ordered:
        if variable.section != section:
            section = variable.section
            lines.append(f"\n/* [{section.replace('_', ' ').title()}] */")
        unit = f" ({variable.unit})" if variable.unit else ""
        lines.append(f"// {variable.description}{unit}")
        lines.append(f"{variable.name} = {format_literal(variable.value)};{_range(variable)}")
    return "\n".join(lines) + "\n"


def _range(variable: InputVariable) -> str:
    """`// [min:step:max]`, with the default on a step and strict limits one step inside."""
    if variable.low is None or variable.high is None:
        return ""
    step = _slider_step(variable, variable.high)
    low = math.ceil(round(variable.low / step, 7)) * step
    high = math.floor(round(variable.high / step, 7)) * step
    return f" // [{_step_text(low, step)}:{_step_text(step, step)}:{_step_text(high, step)}]"


def _slider_step(variable: InputVariable, high: float) -> float:
    """Coarse enough to drag, fine enough that the default sits on a step."""
    step = 1.0 if variable.unit == "deg" else (0.05 if high <= 5 else 0.1)
    while abs(variable.value / step - round(variable.value / step)) > 1e-6 and step > 1e-4:
        step /= 10 if step in (1.0, 0.1, 0.01, 0.001) else 5
    return step


def _step_text(value: float, step: float) -> str:
    decimals = max(0, -math.floor(math.log10(step) + 1e-9))
    return format_literal(round(value, decimals + 1))


def _hidden_section(scope: VariableScope, quality: str) -> str:
    lines = ["/* [Hidden] */", "// Derived by the game's rules from the values above."]
    lines += [f"{name} = {value.expr};" for name, value in scope.derived.items()]
    lines += [f"{key} = {value};" for key, value in QUALITY_SETTINGS[quality].items()]
    return "\n".join(lines) + "\n"
