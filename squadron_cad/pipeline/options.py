"""A build's options and its key: light, so an unchanged kit is known without the
meshing libraries."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from squadron_cad import uptodate
from squadron_cad.params import KitParamsBase

if TYPE_CHECKING:
    from squadron_cad.render.backends import BackendChoice


@dataclass(frozen=True)
class BuildOptions:
    out_dir: Path = Path("out")
    only: tuple[str, ...] = ()
    jobs: int | None = None
    use_cache: bool = True
    timeout_s: float = 600.0
    openscad: str | None = None
    backend: BackendChoice = "auto"  # auto: Manifold when it works here, else CGAL
    slice: bool = True  # PrusaSlicer figures, when it is installed
    plates: bool = True
    previews: bool = True
    keep_failed: bool = False  # swap in a kit whose checks fail (to look at it)
    cache_dir: Path | None = None  # a render cache shared by output folders (else out/.cache)


def build_options_key(options: BuildOptions) -> dict[str, bool | str]:
    """The options that change a whole kit's files (jobs and timeouts do not)."""
    return uptodate.options_key(options.previews, options.slice, options.plates, options.backend)


def kit_build_key(params: KitParamsBase, options: BuildOptions) -> str | None:
    """What a whole kit's files depend on (None for --only and --keep-failed builds, which
    are never taken as up to date)."""
    if options.only or options.keep_failed:
        return None
    return uptodate.build_key(
        params.model_dump_json(), build_options_key(options), options.openscad
    )
