"""Fuzzing Squadron Leader's parameters (its many cross-field rules): whatever a maker
types, the answer is parameters or one InputError line."""

from __future__ import annotations

from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from squadron_cad.errors import InputError
from squadron_cad.kits.squadron_leader import KIT
from squadron_cad.kits.squadron_leader.params import SquadronLeaderParams
from squadron_cad.resolve import resolve

DEFAULTS_FILE = KIT.defaults

DEFAULTS = yaml.safe_load(DEFAULTS_FILE.read_text())


def _leaf_keys(data: dict, prefix: str = "") -> list[str]:
    keys = []
    for key, value in data.items():
        if isinstance(value, dict) and key != "colours":
            keys += _leaf_keys(value, f"{prefix}{key}.")
        else:
            keys.append(f"{prefix}{key}")
    return keys


LEAF_KEYS = _leaf_keys(DEFAULTS)
values = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=-5, max_value=300),
    st.integers(min_value=-10, max_value=10**12),
    st.text(max_size=12),
    st.booleans(),
    st.lists(st.text(max_size=3), max_size=4),
)


def _outcome(call) -> SquadronLeaderParams | None:
    try:
        return call()
    except InputError as error:
        message = str(error)
        assert message
        assert "\n" not in message
        assert "Traceback" not in message
        return None


@settings(max_examples=300, deadline=None)
@given(key=st.sampled_from(LEAF_KEYS), value=values)
def test_any_single_override_is_accepted_or_refused_in_one_line(key: str, value) -> None:
    text = f"{key}={yaml.safe_dump(value, default_flow_style=True).strip()}"
    text = text.removesuffix("...").strip()
    kit = _outcome(lambda: resolve(overrides=[text]))
    if kit is not None:
        assert isinstance(kit, SquadronLeaderParams)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    data=st.dictionaries(
        st.sampled_from([*DEFAULTS, "bogus"]),
        st.one_of(values, st.dictionaries(st.text(max_size=10), values, max_size=3)),
        max_size=4,
    )
)
def test_random_parameter_files_are_handled(tmp_path: Path, data: dict) -> None:
    path = tmp_path / "fuzz.yaml"
    try:
        path.write_text(yaml.safe_dump(data))
    except yaml.YAMLError:
        return
    _outcome(lambda: resolve([path]))
