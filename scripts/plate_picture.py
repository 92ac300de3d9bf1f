"""Draw a print plate's 3MF as the slicer would colour it: every volume in its material's
display colour, read back with lib3mf in strict mode, drawn by the previews machinery.

    python scripts/plate_picture.py out/plates/player1_red.3mf plate.png
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import trimesh

from squadron_cad.outputs.previews import PictureSettings, Placed, View, render_views
from squadron_cad.outputs.threemf import read_objects

CAMERA = "0,0,0,50,0,20,0"  # from the front, above: the marks on the tops show
LIFT_MM = 0.02  # the marks' volume drawn this much higher (touching faces flicker)


def plate_view(plate: Path, folder: Path) -> View:
    items = []
    for index, item in enumerate(read_objects(str(plate))):
        for part, volume in enumerate(item.volumes):
            stl = folder / f"{index}_{part}.stl"
            mesh = trimesh.Trimesh(volume.vertices, volume.faces, process=False)
            mesh.apply_translation([0.0, 0.0, LIFT_MM * part])  # no flicker where they touch
            mesh.export(stl)
            items.append(Placed(stl, volume.colour_hex.lower()))
    return View(plate.stem, tuple(items), camera=CAMERA)


def main(plate: str, picture: str) -> None:
    target = Path(picture)
    with tempfile.TemporaryDirectory(prefix="plate-picture-") as work:
        view = plate_view(Path(plate), Path(work))
        drawn = render_views([view], Path(work) / "png", PictureSettings(1600, 1000), jobs=1)
        target.write_bytes(drawn[0].path.read_bytes())
    print(target)


if __name__ == "__main__":
    main(*sys.argv[1:3])
