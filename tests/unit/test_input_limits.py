"""Parameter files that would hang, exhaust memory or silently mislead are refused fast,
in one line naming the file (and the key and line where there is one)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

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
        [sys.executable, "-m", "squadron_cad", *args],
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
