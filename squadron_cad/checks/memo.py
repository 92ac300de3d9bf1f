"""Measurements a kit's checks keep between builds, by the content of what they measured.

A kit check may ask `remember(kind, inputs, compute)` for a JSON value: during a build it is
looked up in the build's cache under the checks' code version and `inputs` (which must
name everything the value depends on, e.g. `mesh_digest` of each mesh measured); outside a
build (`squadron-cad check`, tests) it is simply computed.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import trimesh


class RecordStore(Protocol):
    def lookup_record(self, key: str) -> dict[str, Any] | None: ...

    def store_record(self, key: str, record: dict[str, Any]) -> None: ...


_STORE: ContextVar[tuple[RecordStore, str] | None] = ContextVar("memo_store", default=None)


@contextlib.contextmanager
def remembering_in(store: RecordStore, version: str) -> Iterator[None]:
    """Keep what the checks remember in store, under their code's version."""
    token = _STORE.set((store, version))
    try:
        yield
    finally:
        _STORE.reset(token)


def mesh_digest(mesh: trimesh.Trimesh) -> str:
    digest = hashlib.sha256(mesh.vertices.tobytes())
    digest.update(mesh.faces.tobytes())
    return digest.hexdigest()


def remember(kind: str, inputs: str, compute: Callable[[], Any]) -> Any:
    """compute()'s JSON value, from the store when these inputs were measured before."""
    current = _STORE.get()
    if current is None:
        return compute()
    store, version = current
    key = f"memo-{hashlib.sha256(f'{version}|{kind}|{inputs}'.encode()).hexdigest()}"
    found = store.lookup_record(key)
    if found is not None and "value" in found:
        return found["value"]
    value = compute()
    store.store_record(key, {"value": value})
    return value
