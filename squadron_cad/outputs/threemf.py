"""3MF print plates written with lib3mf (the 3MF Consortium's library): one named object
per printed piece, a base material with a display colour per player (a neutral one for
shared parts), and UUIDs derived from the content, so the same plate gives the same bytes
and lib3mf's own reader accepts it in strict mode."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import lib3mf
import numpy as np
import trimesh

NAMESPACE = uuid.UUID("5b0f3c52-5d3e-4a0e-9a7e-7c0d2d7b4a31")  # squadron_cad's plates


@dataclass(frozen=True)
class PlateObject:
    name: str  # the piece: "altitude_token 3"
    mesh: trimesh.Trimesh  # already placed on the bed
    material: str  # "player 1 (red)", "shared"
    colour_hex: str  # "#c81e1e"


def plate_bytes(plate: str, objects: list[PlateObject]) -> bytes:
    """The plate as a 3MF file's bytes."""
    wrapper = lib3mf.get_wrapper()
    model = wrapper.CreateModel()
    group = model.AddBaseMaterialGroup()
    materials: dict[str, int] = {}
    for item in objects:
        if item.material not in materials:
            red, green, blue = (int(item.colour_hex[i : i + 2], 16) for i in (1, 3, 5))
            colour = wrapper.RGBAToColor(red, green, blue, 255)
            materials[item.material] = group.AddMaterial(item.material, colour)
    for index, item in enumerate(objects):
        mesh = model.AddMeshObject()
        mesh.SetName(item.name)
        mesh.SetGeometry(*_geometry(item.mesh))
        mesh.SetObjectLevelProperty(group.GetResourceID(), materials[item.material])
        mesh.SetUUID(_uuid(plate, item.name, index, "object"))
        built = model.AddBuildItem(mesh, wrapper.GetIdentityTransform())
        built.SetUUID(_uuid(plate, item.name, index, "item"))
    model.SetBuildUUID(_uuid(plate, "build"))
    return bytes(model.QueryWriter("3mf").WriteToBuffer())


def _uuid(*words: object) -> str:
    return str(uuid.uuid5(NAMESPACE, "|".join(str(word) for word in words)))


def _geometry(mesh: trimesh.Trimesh) -> tuple[list[lib3mf.Position], list[lib3mf.Triangle]]:
    positions = []
    for x, y, z in np.asarray(mesh.vertices, dtype=float):
        position = lib3mf.Position()
        position.Coordinates[0], position.Coordinates[1], position.Coordinates[2] = x, y, z
        positions.append(position)
    triangles = []
    for a, b, c in np.asarray(mesh.faces, dtype=int):
        triangle = lib3mf.Triangle()
        triangle.Indices[0], triangle.Indices[1], triangle.Indices[2] = a, b, c
        triangles.append(triangle)
    return positions, triangles


@dataclass(frozen=True)
class ReadObject:
    """One mesh object as lib3mf's strict reader sees it."""

    name: str
    vertices: np.ndarray  # n x 3, mm, as placed (every build item has the identity transform)
    colour_hex: str  # its object-level base material's display colour, "#RRGGBB"


def read_objects(data_path: str) -> list[ReadObject]:
    """The mesh objects of a 3MF read by lib3mf in strict mode (raises on any fault)."""
    wrapper = lib3mf.get_wrapper()
    model = wrapper.CreateModel()
    reader = model.QueryReader("3mf")
    reader.SetStrictModeActive(True)
    reader.ReadFromFile(data_path)
    if reader.GetWarningCount():
        message, _code = reader.GetWarning(0)
        raise ValueError(f"{data_path}: lib3mf warns: {message}")
    found = []
    objects = model.GetMeshObjects()
    while objects.MoveNext():
        mesh = objects.GetCurrentMeshObject()
        points = np.array([list(v.Coordinates) for v in mesh.GetVertices()], dtype=float)
        found.append(ReadObject(mesh.GetName(), points, _colour(model, mesh)))
    return found


def _colour(model: lib3mf.Model, mesh: lib3mf.MeshObject) -> str:
    has_property, group_id, index = mesh.GetObjectLevelProperty()
    if not has_property:
        return ""
    colour = model.GetBaseMaterialGroupByID(group_id).GetDisplayColor(index)
    return f"#{colour.Red:02X}{colour.Green:02X}{colour.Blue:02X}"


def read_strict(data_path: str) -> list[str]:
    """The object names in a 3MF as lib3mf reads it in strict mode (raises on any fault)."""
    return [item.name for item in read_objects(data_path)]
