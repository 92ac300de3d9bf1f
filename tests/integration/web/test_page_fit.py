"""The customizer's fit, driven in Debian's chromium against a real `squadron-cad serve`:
the layout, a refusal beside its field, the address, a phone's width (nothing built)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from helpers import CLI_COMMAND
from page_steps import KIT, edit, fitted, open_page

from squadron_cad.kit import load_kit
from squadron_cad.resolve import resolve

ALTOIDS = f"?kit={KIT}&tin=altoids"


def test_the_altoids_tin_shows_its_layout(page, server) -> None:
    open_page(page, server, "?kit=squadron-leader")
    before = page.evaluate("document.body.dataset.fitSeq")
    page.select_option("#tin", "altoids")
    fitted(page, before)
    params = resolve(tin="altoids", kit="squadron-leader")
    layout = load_kit("squadron-leader").design(params).layout
    drawn = page.locator("#layout svg polygon.piece")
    # every piece of the library's own layout is drawn, each named on hover
    assert drawn.count() == sum(1 for q in layout.placements if not q.on_top)
    titles = drawn.locator("title").all_text_contents()
    assert {t.split(" (")[0] for t in titles} == {
        q.name.replace("_", " ") for q in layout.placements if not q.on_top
    }
    assert "altoids" in page.text_content("#fit-text")
    assert f"length +{layout.margins['x']:.1f} mm" in page.text_content("#layout svg")
    assert "tin=altoids" in page.url
    assert page.is_enabled("#build")


def cli_refusal(server, query_params: str, tmp_path: Path, kit: str, tin: str) -> str:
    """The CLI's one line for the page's own params.yaml (downloaded as a maker would)."""
    import urllib.request

    with urllib.request.urlopen(f"{server.url}params.yaml?{query_params}") as answer:
        (tmp_path / "params.yaml").write_bytes(answer.read())
    done = subprocess.run(
        [*CLI_COMMAND, "fit", "--kit", kit, "--tin", tin,
         "--params", "params.yaml"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    return done.stderr.strip().removeprefix("squadron-cad: error: ")


def test_a_tin_too_small_is_refused_beside_its_field_then_fixed(page, server, tmp_path) -> None:
    open_page(page, server, ALTOIDS)
    edit(page, "tin.inner_width_mm", "10")  # how fast: bench/web_bench.py
    error = page.locator("#e-tin\\.inner_width_mm")
    assert error.is_visible()
    said = error.text_content()
    assert said == cli_refusal(
        server, "kit=squadron-leader&tin=altoids&tin.inner_width_mm=10", tmp_path,
        "squadron-leader", "altoids",
    )  # fmt: skip
    assert "tin.inner_width_mm" in said
    assert "at least 20" in said
    assert page.is_disabled("#build")
    # too small for the pieces, though a valid size: the fit's refusal, with its figures
    edit(page, "tin.inner_width_mm", "40")
    assert "more width" in error.text_content()
    assert page.is_disabled("#build")
    edit(page, "tin.inner_width_mm", "56")
    assert error.is_hidden()
    assert page.is_enabled("#build")


def test_the_address_restores_the_kit_the_tin_and_every_changed_value(page, server) -> None:
    open_page(page, server, "?kit=squadrons&tin=custom&players=1&base.size_mm=42")
    assert page.input_value("#kit") == "squadrons"
    assert page.input_value("#tin") == "custom"
    assert page.input_value('[name="players"]') == "1"
    assert page.input_value('[name="base.size_mm"]') == "42"
    assert "tin.inner_length_mm" not in page.url  # only what the maker changed
    edit(page, "tin.inner_depth_mm", "31")
    page.reload()
    page.wait_for_selector("body[data-ready='1']", timeout=20_000)
    assert page.input_value('[name="tin.inner_depth_mm"]') == "31"
    assert "31 mm inside" in page.text_content("#fit-text")
    assert page.locator("#address-note").is_hidden()
    # what the address names that the page does not know is left out, and said so (the
    # page asks nothing of it: a request refused would be a console error, failing this)
    open_page(page, server, "?kit=squadrons&tin=nope&players=3&tin.inner_lenght_mm=160")
    note = page.text_content("#address-note")
    assert "tin=nope (no such tin preset for Squadrons; its presets: custom" in note
    assert "tin.inner_lenght_mm (no parameter of Squadrons)" in note
    assert page.input_value("#tin") == ""
    assert page.input_value('[name="players"]') == "3"
    assert "nope" not in page.url
    assert "lenght" not in page.url
    assert "players=3" in page.url
    open_page(page, server, "?kit=squadronz&players=2")
    assert "kit=squadronz (no such kit here: " in page.text_content("#address-note")
    assert page.input_value("#kit") == KIT  # the server's first kit
    assert page.input_value('[name="players"]') == "2"


def test_a_phone_width_shows_the_layout_and_the_form(browser, server) -> None:
    from squadron_cad.web.browser import watched_page

    phone, seen = watched_page(browser, 390, 844)
    open_page(phone, server, "?kit=space-planes")
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide at 390: it scrolls sideways"
    assert phone.locator("#layout svg").bounding_box()["width"] > 300
    assert phone.is_visible("#build")
    # scrolled to the foot, the floating Build button covers none of the form
    phone.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    button = phone.locator("#build").bounding_box()
    form = phone.locator("#form-panel").bounding_box()
    assert form["y"] + form["height"] <= button["y"], (form, button)
    phone.context.close()
    assert not seen.errors


def test_a_params_yaml_opens_in_the_form(page, server, tmp_path) -> None:
    """A parameter file opened on the page: the kit and tin its first line names, its
    values in their fields, a key the kit has no field for named; then the page's own
    params.yaml of it resolves as the file would have."""
    opened = tmp_path / "mine.yaml"
    opened.write_text(
        "# squadron-cad build --kit squadrons --tin custom --params params.yaml\n"
        "players: 3\nbase:\n  size_mm: 42\n  sise_mm: 41\ntoken:\n  width_mm: 30\n"
    )
    open_page(page, server, ALTOIDS)
    before = page.evaluate("document.body.dataset.fitSeq")
    page.set_input_files("#params-file", str(opened))
    fitted(page, before)
    assert page.input_value("#kit") == "squadrons"
    assert page.input_value("#tin") == "custom"
    assert page.input_value('[name="players"]') == "3"
    assert page.input_value('[name="base.size_mm"]') == "42"
    assert page.text_content("#address-note") == (
        "Opened mine.yaml: 2 values, 2 of them changed from the kit's and tin's defaults. "
        "Left out: base.sise_mm (no parameter of Squadrons); token (no parameter of Squadrons)."
    )
    assert "players=3" in page.url
    assert "base.size_mm=42" in page.url
    saved = page.request.get(server.url + page.get_attribute("#params-link", "href").lstrip("/"))
    (tmp_path / "params.yaml").write_bytes(saved.body())
    from_page = resolve([tmp_path / "params.yaml"], kit="squadrons", tin="custom")
    wanted = resolve(overrides=["players=3", "base.size_mm=42"], kit="squadrons", tin="custom")
    assert from_page == wanted
    # a file the resolver refuses is said in its words, and the form stays as it was
    (tmp_path / "bad.yaml").write_text("players: [3\n")
    page.set_input_files("#params-file", str(tmp_path / "bad.yaml"))
    page.wait_for_selector("#address-note:has-text('malformed YAML')")
    assert page.text_content("#address-note").startswith("Could not open it: bad.yaml: malformed")
    assert page.input_value('[name="players"]') == "3"
    # a file dropped on the page opens too (the browser would leave the page for it)
    dropped = page.evaluate_handle(
        """() => { const files = new DataTransfer();
        files.items.add(new File(["players: 4\\n"], "dropped.yaml")); return files; }"""
    )
    before = page.evaluate("document.body.dataset.fitSeq")
    page.dispatch_event("#layout", "drop", {"dataTransfer": dropped})
    fitted(page, before)
    assert page.input_value('[name="players"]') == "4"
    assert page.text_content("#address-note").startswith("Opened dropped.yaml: 1 value, 1 of")
    before = page.evaluate("document.body.dataset.fitSeq")
    page.click("#reset")
    fitted(page, before)
    assert page.locator("#address-note").is_hidden()
    assert page.input_value('[name="players"]') == "2"
    assert page.url.startswith(server.url)
