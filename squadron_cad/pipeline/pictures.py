"""Pictures drawn again without a build: a kit's previews (a transaction like a build),
and the docs' gallery, parameter table and paper pages from the default kit."""

from __future__ import annotations

import os
from pathlib import Path

from squadron_cad.outfolder import hash_files, safe_output_folder, staged
from squadron_cad.outputs import gallery, manifest, previews
from squadron_cad.pipeline.options import BuildOptions
from squadron_cad.pipeline.refusals import is_picture, redraw_advice, refuse_changed_files
from squadron_cad.pipeline.transaction import build
from squadron_cad.render.atomic import write_json
from squadron_cad.render.backends import BackendChoice
from squadron_cad.resolve import resolve as resolve_defaults

DOCS_KIT_DIR = Path("out") / "docs-kit"  # the default kit the README gallery is drawn from
DOCS_PAPER_DIR = Path("out") / "docs-paper"  # its paper edition, for docs/paper


def refresh_docs(
    docs_dir: Path, jobs: int | None = None, backend: BackendChoice = "auto"
) -> list[Path]:
    """Build the default kit (cached) and redraw the README gallery and parameter table."""
    params = resolve_defaults()  # the default kit
    options = BuildOptions(
        out_dir=DOCS_KIT_DIR, jobs=jobs, slice=False, plates=False, previews=False, backend=backend
    )
    build(params, options)
    pictures = gallery.write_gallery(docs_dir, DOCS_KIT_DIR, params, jobs or os.cpu_count() or 1)
    return pictures + gallery.write_paper_pictures(docs_dir, params, DOCS_PAPER_DIR)


def refresh_previews(out_dir: Path, jobs: int | None = None) -> list[Path]:
    """Redraw the previews of the kit in out_dir, as a transaction like a build."""
    out = safe_output_folder(out_dir)
    data = manifest.require_kit(out)
    refuse_changed_files(out, data, is_picture, lambda _rel: redraw_advice(out))
    params = manifest.kit_params(data)
    names = [entry["name"] for entry in data["parts"]]
    with staged(out, "kit") as staging:
        staging.seed(rel for rel in data["files"] if rel != manifest.MANIFEST_NAME)
        pictures = previews.write_previews(staging.path, names, params, jobs or os.cpu_count() or 1)
        data["files"] = hash_files(staging.path, skip={manifest.MANIFEST_NAME})
        write_json(staging.path / manifest.MANIFEST_NAME, data)
        staging.commit()
    return [out / path.relative_to(staging.path) for path in pictures]
