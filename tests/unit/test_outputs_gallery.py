"""Documentation: the parameter table covers every field; stale gallery pictures are caught."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel

from squadron_cad.kit import Kit
from squadron_cad.outputs import gallery
from squadron_cad.params import KitParamsBase
from squadron_cad.resolve import resolve

DOCS = Path(__file__).resolve().parents[2] / "docs"


def leaf_keys(model: type[BaseModel], prefix: str = "") -> list[str]:
    keys = []
    for name, info in model.model_fields.items():
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            keys += leaf_keys(annotation, f"{prefix}{name}.")
        else:
            keys.append(f"{prefix}{name}")
    return keys


def test_parameter_table_lists_every_field_with_unit_and_range(toy_kit: Kit, defaults) -> None:
    text = gallery.parameters_markdown(defaults)
    for key in leaf_keys(toy_kit.params_model):
        assert f"| `{key}` |" in text, key
    assert "| `tile.width_mm` | 20 | mm | >= 5, <= 100 | Side of a square tile |" in text
    assert "| `quality` | draft |  | draft or final |" in text
    assert "| `groove_width_mm` | 2 | mm |" in text  # derived sizes are shown too


def write_index(folder: Path, sources: dict[str, str], settings: str) -> None:
    folder.mkdir(parents=True)
    (folder / "kit.png").write_bytes(b"png")
    index = {"sources": sources, "settings": settings, "images": ["kit.png"]}
    (folder / "index.json").write_text(json.dumps(index))


@pytest.fixture(scope="module")
def defaults(toy_params: KitParamsBase) -> KitParamsBase:
    return toy_params


def test_fresh_gallery_is_not_stale(tmp_path: Path, defaults: KitParamsBase) -> None:
    folder = tmp_path / "gallery"
    write_index(folder, gallery.source_hashes(defaults), gallery.settings_hash(defaults))
    assert gallery.gallery_stale(tmp_path, defaults) == []


def test_a_changed_part_source_makes_the_gallery_stale(tmp_path: Path, defaults) -> None:
    sources = gallery.source_hashes(defaults)
    sources["tile"] = "0" * 64
    write_index(tmp_path / "gallery", sources, gallery.settings_hash(defaults))
    reasons = gallery.gallery_stale(tmp_path, defaults)
    assert len(reasons) == 1
    assert reasons[0].startswith("tile")


def test_other_colours_or_missing_pictures_make_it_stale(tmp_path: Path, defaults) -> None:
    write_index(tmp_path / "gallery", gallery.source_hashes(defaults), "old settings")
    (tmp_path / "gallery" / "kit.png").unlink()
    reasons = gallery.gallery_stale(tmp_path, defaults)
    assert any("settings" in reason for reason in reasons)
    assert any("kit.png" in reason for reason in reasons)


def test_no_gallery_says_how_to_make_one(tmp_path: Path, defaults) -> None:
    assert "make docs" in gallery.gallery_stale(tmp_path, defaults)[0]


def test_source_hashes_follow_the_parameters(toy_kit: Kit, defaults) -> None:
    deep = resolve(overrides=["tile.mark_depth_mm=1.2"], kit=toy_kit.name)
    before, after = gallery.source_hashes(defaults), gallery.source_hashes(deep)
    assert before == gallery.source_hashes(resolve(kit=toy_kit.name))
    assert before["tile"] != after["tile"]
    assert before["tray"] == after["tray"]  # its pockets keep to the tiles' outline


def test_committed_docs_match_the_code() -> None:
    """Fails when a change to a part or a parameter was not followed by `make docs`."""
    reasons = gallery.docs_stale(DOCS)
    assert not reasons, "docs/ is out of date (run `make docs`): " + "; ".join(reasons)


def test_docs_overwrite_and_prune_only_what_they_wrote(tmp_path: Path) -> None:
    """`squadron-cad docs --docs FOLDER` in a folder of the maker's: pages and pictures it
    did not write are refused, never overwritten; a picture it drew for a view since
    removed is pruned, one of someone else's beside it is not."""
    from squadron_cad.errors import InputError

    assert gallery._ours(tmp_path) == []  # a new folder: nothing of anyone's
    (tmp_path / "parameters.md").write_text("# My notes\n")
    with pytest.raises(InputError, match=r"parameters\.md was not written by squadron-cad docs"):
        gallery._ours(tmp_path)
    (tmp_path / "parameters.md").unlink()
    pictures = tmp_path / "gallery"
    pictures.mkdir()
    (pictures / "holiday.png").write_bytes(b"mine")
    with pytest.raises(InputError, match="holds pictures squadron-cad docs did not draw"):
        gallery._ours(tmp_path)
    (pictures / "old_part.png").write_bytes(b"drawn")
    index = {"sources": {"kit": "x"}, "images": ["old_part.png"]}
    (pictures / "index.json").write_text(json.dumps(index))
    drawn_before = gallery._ours(tmp_path)
    gallery._prune(pictures, drawn_before, {"kit.png"})
    assert sorted(p.name for p in pictures.glob("*.png")) == ["holiday.png"]
