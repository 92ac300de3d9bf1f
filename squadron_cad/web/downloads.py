"""What the page may download: only the files a build's own records list, as written.

A kit's manifest lists every file with its SHA-256; a paper edition or tolerance plate
inside the kit's folder has its ownership record. A path is looked up in those lists
(never joined onto the folder first), so `..`, encoded or not, names nothing.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

from squadron_cad.outfolder import read_ownership

MANIFEST = "manifest.json"
EXTRAS = ("paper", "tolerance")  # folders of their own inside the kit's folder
ZIP_TIME = (2026, 1, 1, 0, 0, 0)  # fixed: the same kit zips to the same bytes


def read_manifest(folder: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("files"), dict) else None


def listed_files(folder: Path) -> dict[str, str]:
    """rel path -> sha256 of every file the kit in `folder` and its extras list."""
    files: dict[str, str] = {}
    data = read_manifest(folder)
    if data is not None:
        files.update({str(rel): str(sha) for rel, sha in data["files"].items()})
        files[MANIFEST] = ""
    for extra in EXTRAS:
        owned = read_ownership(folder / extra)
        if owned is not None and owned.kind == extra:
            files.update({f"{extra}/{rel}": sha for rel, sha in owned.files.items()})
    return {rel: sha for rel, sha in files.items() if _plain(rel)}


def _plain(rel: str) -> bool:
    parts = rel.split("/")
    return bool(rel) and not rel.startswith("/") and all(p not in ("", ".", "..") for p in parts)


def listed_path(folder: Path, rel: str) -> Path | None:
    """The file `rel` names when a record lists it and it still lies inside `folder`."""
    return _inside(folder, rel) if rel in listed_files(folder) else None


def _inside(folder: Path, rel: str) -> Path | None:
    """The file at `rel` when it still lies inside `folder` (no link leads out of it)."""
    path = (folder / rel).resolve()
    if folder.resolve() not in path.parents or not path.is_file():
        return None
    return path


def kit_zip(folder: Path, name: str) -> bytes:
    """The kit's listed files in one ZIP under a folder named after the kit."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for rel in sorted(listed_files(folder)):  # the records read once, not per file
            path = _inside(folder, rel)
            if path is None:
                continue
            info = zipfile.ZipInfo(f"{name}/{rel}", ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, path.read_bytes())
    return buffer.getvalue()


def built(folder: Path) -> dict[str, Any]:
    """What the page shows of a built kit: its parts, plates, files and verdict."""
    data = read_manifest(folder)
    files = listed_files(folder)
    answer: dict[str, Any] = {"built": data is not None, "files": sorted(files)}
    if data is None:
        return answer
    failures = [
        c
        for part in data.get("parts", [])
        for c in part.get("checks", [])
        if c.get("severity") == "error"
    ] + [c for c in data.get("kit_checks", []) if c.get("severity") == "error"]
    answer.update(
        kit=data.get("kit", {}).get("name"),
        players=data.get("players"),
        parts=[
            {"name": p["name"], "file": p["file"], "count": p["count"], "title": p.get("title", "")}
            for p in data.get("parts", [])
        ],
        plates=[
            {
                "plate": p["plate"],
                "file": p["file"],
                "colour": p.get("colour"),
                "pieces": p.get("pieces"),
            }
            for p in data.get("plates", []) or []
        ],
        layout="layout.json" in files,
        failures=len(failures),
        checks=sum(len(p.get("checks", [])) for p in data.get("parts", []))
        + len(data.get("kit_checks", [])),
        summary=bom_summary(folder / "bom.md") if "bom.md" in files else [],
        build_seconds=data.get("build_seconds"),
    )
    return answer


_BOLD = re.compile(r"\*\*(.+?)\*\*")


def bom_summary(path: Path) -> list[str]:
    """The BOM's own sentences on filament and print time (per player set, in all)."""
    try:
        text = path.read_text()
    except OSError:
        return []
    said = []
    for line in text.splitlines():
        for sentence in re.split(r"(?<=\.) ", line):
            if sentence.startswith(("One player's set", "In all:")):
                said.append(_BOLD.sub(r"\1", sentence).replace("`", ""))
    return said
