"""The customizer's library side, without a browser: form, params.yaml, refusals, files."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from helpers import run_cli

from squadron_cad.errors import InputError
from squadron_cad.fit.layout import held_by, pocket_label
from squadron_cad.kit import installed_kits, load_kit
from squadron_cad.resolve import resolve
from squadron_cad.web import BadRequest, api, downloads, vendor
from squadron_cad.web.form import form_fields
from squadron_cad.web.layout_svg import CHAR_EM, contents_line, layout_svg
from squadron_cad.web.opened import open_params

KITS = sorted(installed_kits())
ROOT = Path(__file__).resolve().parents[2]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_served_three_js_files_are_the_pinned_npm_package_byte_for_byte() -> None:
    lock = json.loads((ROOT / "package-lock.json").read_text())
    pinned = lock["packages"][f"node_modules/{vendor.PACKAGE}"]["version"]
    installed = json.loads((vendor.NODE_MODULES / "package.json").read_text())["version"]
    assert installed == pinned, "node_modules is not the locked three.js: run `make setup`"
    served = json.loads((ROOT / "package.json").read_text())["dependencies"][vendor.PACKAGE]
    assert served == pinned
    for rel in vendor.FILES:
        assert sha256(vendor.VENDOR / rel) == sha256(vendor.NODE_MODULES / rel), rel


def leaves(data: object, prefix: str = "") -> list[str]:
    if isinstance(data, dict) and data:
        return [k for key, v in data.items() for k in leaves(v, f"{prefix}{key}.")]
    return [prefix.rstrip(".")]


@pytest.mark.parametrize("kit", KITS)
def test_the_form_has_a_field_for_every_parameter_of_every_kit(kit: str) -> None:
    keys = {f.key for f in form_fields(load_kit(kit))}
    values = resolve(kit=kit).model_dump(mode="json")
    # a field may hold a whole mapping or list (dice by colour, the players' colours); an
    # optional section left out (a tray without its lid) has the fields of its keys
    missing = [
        k
        for k in leaves(values)
        if not any(k == f or k.startswith(f"{f}.") or f.startswith(f"{k}.") for f in keys)
    ]
    assert missing == []
    fields = {f.key: f for f in form_fields(load_kit(kit))}
    width = fields["tin.inner_width_mm"]
    assert (width.unit, width.minimum, width.maximum) == ("mm", 20, 400)
    assert width.label == "Inside width of the tin"
    assert width.featured


def state(kit: str, tin: str | None = None, **changes: str) -> api.PageState:
    return api.PageState.from_json({"kit": kit, "tin": tin, "changes": changes})


@pytest.mark.parametrize(
    ("kit", "tin", "changes"),
    [
        ("squadron-leader", "altoids", {"tin.inner_width_mm": "10"}),
        ("squadron-leader", None, {"players": "2.5"}),
        ("squadrons", None, {"tin.inner_depth_mm": "deep"}),
        ("space-planes", None, {"player_colours": '[{"name": "a b", "colour": "red"}]'}),
        ("squadron-leader", None, {"box.leave_out": '["teapot"]'}),
    ],
)
def test_a_refusal_is_the_clis_line_for_the_pages_params_yaml(
    kit: str, tin: str | None, changes: dict[str, str], tmp_path: Path
) -> None:
    page = state(kit, tin, **changes)
    answer = api.fit(page)
    file = tmp_path / api.PARAMS_NAME
    file.write_text(api.params_yaml(page))
    with pytest.raises(InputError) as said:
        resolve([file], tin=tin, kit=kit)
    assert answer["ok"] is False
    assert answer["error"] == str(said.value)
    assert answer["keys"], "the refusal is shown beside a field"


def test_the_pages_params_yaml_resolves_to_the_pages_parameters(tmp_path: Path) -> None:
    page = state(
        "squadron-leader",
        "altoids",
        **{"tin.inner_width_mm": "60", "players": "1", "quality": "draft"},
    )
    file = tmp_path / api.PARAMS_NAME
    file.write_text(api.params_yaml(page))
    assert resolve([file], tin="altoids", kit="squadron-leader") == api.resolved(page)
    assert api.resolved(page).tin.name == "altoids, changed by params.yaml"
    assert api.params_yaml(page).startswith(
        "# squadron-cad build --kit squadron-leader --tin altoids --params params.yaml\n"
    )


def test_a_fit_refusal_names_the_fields_it_speaks_of() -> None:
    answer = api.fit(state("squadron-leader", "altoids", **{"tin.inner_width_mm": "40"}))
    assert answer["stage"] == "fit"
    assert "tin.inner_width_mm" in answer["keys"]
    assert "more width" in answer["error"]


@pytest.mark.parametrize("kit", KITS)
def test_the_drawing_labels_every_pocket_and_names_every_piece(kit: str) -> None:
    params = resolve(kit=kit)
    game = load_kit(kit)
    layout = game.design(params).layout
    svg = layout_svg(layout, params, game)
    for placed in layout.placements:
        if not placed.on_top:
            assert f"<title>{placed.name.replace('_', ' ')} (" in svg
    assert svg.count('class="piece"') == sum(1 for q in layout.placements if not q.on_top)
    assert "(limits)" in svg


LABELLED = [(kit, None) for kit in KITS] + [("squadron-leader", "altoids")]


@pytest.mark.parametrize(("kit", "tin"), LABELLED)
def test_each_pockets_label_lies_inside_it_or_is_a_number_told_below(
    kit: str, tin: str | None
) -> None:
    """Squadrons' 'mission clip' label ran over its 9 x 4 mm pocket and the one beside it;
    Squadron Leader's dice, ruler and dials pockets said nothing of what they hold."""
    params = resolve(kit=kit, tin=tin)
    game = load_kit(kit)
    layout = game.design(params).layout
    root = ElementTree.fromstring(layout_svg(layout, params, game))
    texts = [
        (t.text or "", float(t.get("x", 0)), -float(t.get("y", 0)), float(t.get("font-size", 0)))
        for t in root.iter("{http://www.w3.org/2000/svg}text")
        if t.get("x") is not None
    ]
    names = [pocket.name for pocket in layout.pockets]
    for pocket in layout.pockets:
        if pocket.on_top:
            continue
        x0, y0, x1, y1 = pocket.bounds_2d
        inside = [t for t in texts if x0 < t[1] < x1 and y0 < t[2] < y1]
        for words, x, y, size in inside:  # within the pocket, across and up
            half = len(words) * CHAR_EM * size / 2
            assert x0 <= x - half, (pocket.name, words)
            assert x + half <= x1, (pocket.name, words)
            assert y0 <= y - size / 2, (pocket.name, words)
            assert y + size / 2 <= y1, (pocket.name, words)
        label = pocket_label(pocket.name, names)
        held = contents_line(game, held_by(layout, pocket))
        assert held, pocket.name
        shown = [t[0] for t in inside]
        if label in shown:
            continue
        assert len(shown) == 1, (pocket.name, shown)
        assert shown[0].isdigit(), (pocket.name, shown)
        assert f"{shown[0]}: {label}, {held}" in [t[0] for t in texts], pocket.name


def test_only_listed_files_are_served(tmp_path: Path) -> None:
    kit = tmp_path / "kit"
    (kit / "stl").mkdir(parents=True)
    (kit / "stl" / "a.stl").write_bytes(b"solid a")
    (kit / "secret.txt").write_text("not ours")
    manifest = {"generator": "squadron_cad", "files": {"stl/a.stl": "x", "../escape": "y"}}
    (kit / "manifest.json").write_text(json.dumps(manifest))
    assert downloads.listed_path(kit, "stl/a.stl") == (kit / "stl" / "a.stl").resolve()
    for rel in ("secret.txt", "../escape", "stl/../secret.txt", "/etc/passwd", "stl/%2e%2e/x"):
        assert downloads.listed_path(kit, rel) is None, rel


@pytest.mark.parametrize(
    ("error", "shown"),
    [(BrokenPipeError, False), (ConnectionResetError, False), (ValueError, True)],
)
def test_a_page_gone_mid_answer_prints_no_traceback(
    tmp_path: Path, capsys, error: type[Exception], shown: bool
) -> None:
    """A tab closed while its answer was written broke the pipe: socketserver printed the
    traceback into the maker's terminal (seen under make bench-web)."""
    from squadron_cad.web.server import Customizer

    server = Customizer(0, tmp_path / "web", None)
    try:
        try:
            raise error("the page went away")
        except error:
            server.handle_error(None, ("127.0.0.1", 1))
    finally:
        server.close()
    assert ("Traceback" in capsys.readouterr().err) == shown


# A runner whose imports swallow a stop, as a library catching every exception does: the
# stop lands (SIGINT to itself) inside "load", which carries on; then its build arrives.
SWALLOWING_RUNNER = """
import os, signal, sys
from squadron_cad import prestarted

def load():
    try:
        os.kill(os.getpid(), signal.SIGINT)
    except BaseException:
        pass  # swallowed, as trimesh's optional imports do

prestarted.load = load
try:
    prestarted.main()
except KeyboardInterrupt:
    sys.exit(130)
"""


def test_a_stop_swallowed_while_the_runner_imports_still_stops_the_build(
    tmp_path: Path,
) -> None:
    """The page's time limit at 0.5 s once found the kit written: its SIGINT had landed in
    the runner's imports and was lost, and the build ran to its end."""
    out = tmp_path / "out"
    job = json.dumps(["build", "--out", str(out), "--only", "plane_token", "--no-slice"])
    done = subprocess.run(
        [sys.executable, "-c", SWALLOWING_RUNNER],
        input=job + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 130, done.stderr
    assert not out.exists()


def test_the_runner_notes_a_stop_before_it_imports_any_library() -> None:
    """Importing the runner module (as `python -m` does, its packages first) loads no
    library and none of the CLI: a stop before main() installs its handler can land only
    in the standard library, which loses none."""
    probe = (
        "import sys, squadron_cad.prestarted\n"
        "print(*sorted(m for m in sys.modules if m.split('.')[0] in "
        "('squadron_cad', 'typer', 'click', 'rich', 'pydantic', 'trimesh', 'numpy')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    # its own package, and what notes a stop (the standard library's modules aside)
    assert done.stdout.split() == [
        "squadron_cad",
        "squadron_cad.interrupts",
        "squadron_cad.prestarted",
    ]


def test_a_kit_kept_failed_is_the_clis_keep_failed_for_a_kit_only(tmp_path: Path) -> None:
    from squadron_cad.web.builds import Job

    params = tmp_path / "params.yaml"
    kit = Job("kit", "space-planes", None, params, tmp_path / "out", keep_failed=True)
    assert kit.arguments()[-1] == "--keep-failed"
    assert "--keep-failed" not in Job("kit", "space-planes", None, params, tmp_path).arguments()
    paper = Job("paper", "space-planes", None, params, tmp_path / "out", keep_failed=True)
    assert "--keep-failed" not in paper.arguments()


# ---- a parameter file opened on the page ----------------------------------------------------


def opened(text: str, kit: str = "squadron-leader", tin: str = "", name: str = "my.yaml") -> dict:
    return open_params({"kit": kit, "tin": tin, "name": name, "text": text})


@pytest.mark.parametrize("kit", KITS)
def test_the_pages_params_yaml_opens_as_the_values_it_was_written_from(kit: str) -> None:
    """Every field of the form, each kind of value (numbers, lists, rows, YAML, true/false,
    text), written to the page's params.yaml and opened again: the same texts."""
    tin = api.available_tins(load_kit(kit))[0]
    every = api.flat_values(resolve(kit=kit, tin=tin), api.kit_fields(kit))
    answer = opened(api.params_yaml(state(kit, tin, **every)), kit="space-planes")
    assert answer["ok"], answer
    assert (answer["kit"], answer["tin"], answer["left_out"]) == (kit, tin, [])
    assert answer["values"] == every
    assert answer["changes"] == {}  # each is what the kit and tin give already


def test_a_file_of_every_parameter_opens_as_the_ones_it_changes(capsys) -> None:
    """`squadron-cad params` writes every value: the form marks only the one edited."""
    code, written, _ = run_cli(["params", "--tin", "altoids"], capsys)
    assert code == 0
    edited = written.replace("width_mm: 26", "width_mm: 30", 1)
    assert edited != written
    answer = opened(edited, tin="altoids")
    assert len(answer["values"]) > 100
    assert answer["changes"] == {"token.width_mm": "30"}


def test_a_file_without_the_pages_command_opens_on_the_pages_kit_and_tin() -> None:
    answer = opened("players: 2\ntoken:\n  widht_mm: 30\nsquadron: 1\n", tin="altoids")
    assert (answer["kit"], answer["tin"], answer["changes"]) == (
        "squadron-leader", "altoids", {"players": "2"}
    )  # fmt: skip
    assert answer["left_out"] == [
        "token.widht_mm (no parameter of Squadron Leader)",
        "squadron (no parameter of Squadron Leader)",
    ]


def test_a_command_naming_an_unknown_kit_or_tin_is_said_and_left_out() -> None:
    answer = opened("# squadron-cad build --kit squadronz --params p.yaml\nplayers: 2\n")
    assert answer["kit"] == "squadron-leader"
    assert answer["left_out"] == ["--kit squadronz (no such kit here)"]
    answer = opened("# squadron-cad build --kit squadrons --tin altoids --params p.yaml\n")
    assert (answer["kit"], answer["tin"]) == ("squadrons", "")
    assert answer["left_out"][0].startswith("--tin altoids (no such tin preset for Squadrons")


def test_a_file_the_resolver_refuses_is_its_one_line() -> None:
    assert opened("players: [2\n", name="bad.yaml") == {
        "ok": False,
        "error": "bad.yaml: malformed YAML at line 2, column 1: expected ',' or ']', "
        "but got '<stream end>'",
    }
    assert not opened("a: &x 1\nb: *x\n")["ok"]  # anchors, as `--params` refuses them
    with pytest.raises(BadRequest):
        open_params({"kit": "squadron-leader", "name": "x.yaml", "text": 3})
    with pytest.raises(BadRequest):
        open_params(["players: 2"])
