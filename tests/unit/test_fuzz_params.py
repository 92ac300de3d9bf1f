"""Fuzzing: whatever text a maker's YAML holds, the answer is a mapping or one InputError
line (a kit's parameters, key by key: kits/squadron_leader/test_fuzz_leader_params.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from squadron_cad.errors import InputError
from squadron_cad.resolve import parse_yaml_mapping


def _outcome(text: str) -> None:
    try:
        parse_yaml_mapping(text, "fuzz.yaml")
    except InputError as error:
        message = str(error)
        assert message
        assert "\n" not in message
        assert "Traceback" not in message


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=200))
def test_raw_yaml_text_never_escapes_as_a_traceback(text: str) -> None:
    _outcome(text)
