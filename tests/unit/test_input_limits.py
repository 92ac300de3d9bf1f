"""Parameter files that would hang, exhaust memory or silently mislead are refused fast,
in one line naming the file (and the key and line where there is one)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import CLI_COMMAND

from squadron_cad.errors import InputError
from squadron_cad.resolve import parse_yaml_mapping, resolve

BILLION_LAUGHS = "\n".join(
    ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    + [f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]" for i in range(8)]
)
PEAK_PROBE = """
import resource, sys, time
from squadron_cad.resolve import parse_yaml_mapping, resolve
from squadron_cad.errors import InputError
def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
before = peak_mb()
started = time.perf_counter()
try:
    resolve([sys.argv[1]])
except InputError as error:
    print("refused:", error)
print("seconds", time.perf_counter() - started)
print("peak_growth_mb", peak_mb() - before)
"""


def cli(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*CLI_COMMAND, *args],
        input=stdin,
        capture_output=True,
        timeout=30,  # a hang fails the test instead of stalling the suite
        check=False,
    )


def assert_one_line_refusal(done: subprocess.CompletedProcess[bytes], needle: bytes) -> None:
    assert done.returncode == 2, done.stderr
    assert needle in done.stderr
    assert done.stderr.count(b"\n") == 1
    assert b"Traceback" not in done.stderr


def resolve_text(text: str) -> dict:
    return parse_yaml_mapping(text, "test.yaml")


def test_a_device_that_never_ends_is_refused_at_once() -> None:
    started = time.perf_counter()
    with pytest.raises(InputError, match="not a regular file"):
        resolve([Path("/dev/zero")])
    assert time.perf_counter() - started < 10  # a read of it would never end


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "params.yaml"
    os.mkfifo(fifo)
    started = time.perf_counter()
    done = cli("params", "--params", str(fifo))  # the timeout fails a hang
    assert_one_line_refusal(done, b"params.yaml is not a regular file")
    assert time.perf_counter() - started < 10


def test_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a regular file"):
        resolve([tmp_path])


def test_a_file_over_one_megabyte_is_refused_naming_its_size(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("# padding\n" * 210_000)
    with pytest.raises(InputError, match=r"big\.yaml is 2100000 bytes; .* at most 1 MB"):
        resolve([big])


def test_a_billion_laughs_is_refused_fast_and_small(tmp_path: Path) -> None:
    bomb = tmp_path / "laughs.yaml"
    bomb.write_text(BILLION_LAUGHS)
    done = subprocess.run(
        [sys.executable, "-c", PEAK_PROBE, str(bomb)], capture_output=True, text=True, timeout=60
    )
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert "anchors (&a) are not allowed" in lines["refused:"]
    assert "line 1" in lines["refused:"]
    assert float(lines["seconds"]) < 1.0
    assert float(lines["peak_growth_mb"]) < 100


def test_an_alias_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "alias.yaml"
    path.write_text("token:\n  width_mm: 26\nplane: *x\n")
    with pytest.raises(InputError, match=r"alias\.yaml.*line 3.*aliases \(\*x\)"):
        resolve([path])


def test_duplicate_keys_are_refused_naming_key_and_both_lines(tmp_path: Path) -> None:
    path = tmp_path / "twice.yaml"
    path.write_text("token:\n  width_mm: 26\n  height_mm: 4\n  width_mm: 30\n")
    with pytest.raises(InputError) as caught:
        resolve([path])
    assert str(caught.value) == (
        f"--params {path}: duplicate key 'width_mm' at line 4 (first at line 2)"
    )


def test_duplicate_keys_in_set_values_are_refused() -> None:
    with pytest.raises(InputError, match="duplicate key 'a'"):
        resolve(overrides=["dice.colours={a: 1, a: 2}"])


def test_params_from_standard_input() -> None:
    done = cli("params", "--json", "--params", "-", stdin=b"token:\n  width_mm: 28\n")
    assert done.returncode == 0, done.stderr
    assert b'"width_mm": 28.0' in done.stdout


def test_oversize_standard_input_is_refused_in_one_line() -> None:
    done = cli("params", "--params", "-", stdin=b"#" * (1024 * 1024 + 10))
    assert_one_line_refusal(done, b"standard input is over 1 MB")


def test_duplicate_keys_through_the_cli_are_one_line(tmp_path: Path) -> None:
    path = tmp_path / "mytin.yaml"
    path.write_text("box:\n  tin_clearance_mm: 0.5\n  tin_clearance_mm: 0.8\n")
    done = cli("params", "--params", str(path))
    assert_one_line_refusal(done, b"duplicate key 'tin_clearance_mm' at line 3 (first at line 2)")


def test_merge_keys_and_unhashable_keys_keep_their_own_rules() -> None:
    # An explicit key overriding a `<<:` merge is no duplicate; a list key stays malformed.
    assert resolve_text("<<: {a: 1}\na: 2\n") == {"a": 2}
    with pytest.raises(InputError, match="line 1, column 3: found unhashable key"):
        resolve_text("? [a, b]\n: 1\n")


def test_a_bad_key_from_standard_input_names_its_origin() -> None:
    done = cli("params", "--params", "-", stdin=b"token:\n  width_mm: -3\n")
    assert_one_line_refusal(done, b"(from standard input)")


# ---- values, as YAML 1.2's core schema reads them (issue 33, item 11) -------------------


LONG = "1" * 4301  # Python refuses to turn more than 4,300 digits into a number


def test_a_number_too_long_is_one_line_from_set_and_from_a_file(tmp_path: Path) -> None:
    assert_one_line_refusal(cli("params", "--set", f"players={LONG}"), b"4301 digits")
    path = tmp_path / "long.yaml"
    path.write_text(f"token:\n  height_mm: 4\nplayers: {LONG}\n")
    done = cli("params", "--params", str(path))
    assert_one_line_refusal(done, b"long.yaml: a whole number of 4301 digits at line 3")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1:30", "1:30"),  # YAML 1.1 read base 60: 90
        ("012", 12),  # 1.1: octal 10
        ("0o17", 15),
        ("0x1F", 31),
        ("1e3", 1000.0),
        ("yes", "yes"),  # 1.1: true
        ("on", "on"),
        ("2024-01-02", "2024-01-02"),  # 1.1: a date
        ("1_000", "1_000"),  # 1.1: 1000
        ("True", True),
        ("~", None),
    ],
)
def test_values_read_as_yaml_1_2_core(text: str, value: object) -> None:
    read = resolve_text(f"v: {text}\n")["v"]
    assert read == value
    assert type(read) is type(value)


def test_a_sexagesimal_count_is_refused_not_read_as_ninety(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"players = '1:30' \(from --set\): must be a whole"):
        resolve(overrides=["players=1:30"])
    path = tmp_path / "players.yaml"
    path.write_text("players: 1:30\n")
    with pytest.raises(InputError, match=r"players = '1:30' \(from players\.yaml\)"):
        resolve([path])


def test_a_number_given_for_text_is_that_text_as_written(tmp_path: Path) -> None:
    kit = resolve(overrides=["tin.name=2024", "box.title=0123"])
    assert (kit.tin.name, kit.box.title) == ("2024", "0123")
    path = tmp_path / "named.yaml"
    path.write_text("tin:\n  name: 2024\nbox:\n  title: 1.50\n")
    kit = resolve([path])
    assert (kit.tin.name, kit.box.title) == ("2024", "1.50")
    # an earlier layer's number is not taken for a later layer's
    assert resolve([path], ["box.title=7"]).box.title == "7"
    with pytest.raises(InputError, match="must be a whole number"):
        resolve(overrides=["players=two"])  # text for a number is still refused


def test_a_line_break_in_a_set_value_is_refused() -> None:
    """`30\nplayers: 4` set the width and silently dropped the line after the break."""
    done = cli("params", "--set", "token.width_mm=30\nplayers: 4")
    assert_one_line_refusal(done, b"--set token.width_mm: the value holds a line break")
    for value in ("30\rplayers: 4", "30\u2028players: 4", "30\x85players: 4"):
        with pytest.raises(InputError, match="holds a line break"):
            resolve(overrides=[f"token.width_mm={value}"])
