"""One build's context: the kit, its parameters, their design and the build's options.

The command makes it once and passes it along the pipeline, so no stage of the pipeline
looks the kit up again from the parameters (the outputs' writers still do: kit_of).
Light (no meshing library): the design is derived on first use, and a kit found up to
date never derives it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from squadron_cad.kit import Design, Kit, kit_of
from squadron_cad.params import KitParamsBase
from squadron_cad.pipeline.options import BuildOptions, kit_build_key


@dataclass(frozen=True)
class BuildContext:
    kit: Kit
    params: KitParamsBase
    options: BuildOptions

    @classmethod
    def of(cls, params: KitParamsBase, options: BuildOptions) -> BuildContext:
        """The context of a build of these parameters (their kit found once, here)."""
        return cls(kit_of(params), params, options)

    @cached_property
    def design(self) -> Design:
        """Every size derived from the parameters, computed once (loads the kit's parts)."""
        return self.kit.design(self.params)

    @cached_property
    def build_key(self) -> str | None:
        """What the whole kit's files depend on (None: never taken as up to date)."""
        return kit_build_key(self.params, self.options)
