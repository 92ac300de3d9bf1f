"""A check's finding is data: which part, which check, what was measured and expected."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

Severity = Literal["ok", "info", "cosmetic", "warning", "error"]  # cosmetic: --verbose only


@dataclass(frozen=True)
class Finding:
    part: str
    check: str
    measured: Any
    expected: Any
    severity: Severity
    message: str = ""

    @property
    def failed(self) -> bool:
        return self.severity == "error"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Finding:
        return cls(**data)

    def line(self) -> str:
        """One line for a terminal: part, check, what was found."""
        text = self.message or f"measured {self.measured}, expected {self.expected}"
        return f"{self.part}: {self.check}: {text}"


def verdict(ok: bool, *, failing: Severity = "error") -> Severity:
    return "ok" if ok else failing
