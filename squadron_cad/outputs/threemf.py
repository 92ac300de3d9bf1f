"""3MF print plates written with lib3mf (the 3MF Consortium's library): one named object
per printed piece, a base material with a display colour per player (a neutral one for
shared parts), and UUIDs derived from the content, so the same plate gives the same bytes
and lib3mf's own reader accepts it in strict mode."""

from __future__ import annotations

import ctypes
import functools
import uuid
from dataclasses import dataclass
from xml.sax.saxutils import escape

import lib3mf
import numpy as np
import trimesh

from squadron_cad.params import hex_channels

NAMESPACE = uuid.UUID("5b0f3c52-5d3e-4a0e-9a7e-7c0d2d7b4a31")  # squadron_cad's plates


@dataclass(frozen=True)
class PlateObject:
    name: str  # the piece: "altitude_token 3"
    mesh: trimesh.Trimesh  # already placed on the bed
    material: str  # "player 1 (red)", "shared"
    colour_hex: str  # "#c81e1e"
    accent: trimesh.Trimesh | None = None  # raised marks printed in a second colour
    accent_material: str = ""  # "marks (dark)"
    accent_hex: str = ""


PRUSA_CONFIG = "/Metadata/Slic3r_PE_model.config"  # PrusaSlicer's volumes of each object
CONFIG_RELATIONSHIP = "http://schemas.squadron-cad.org/3mf/2026/volumes"
# PrusaSlicer's colour changes by height (2.4 and later read it; its own 3MFs carry it)
PRUSA_CHANGES = "/Metadata/Prusa_Slicer_custom_gcode_per_print_z.xml"
CHANGES_RELATIONSHIP = "http://schemas.squadron-cad.org/3mf/2026/colour-changes"
COLOUR_CHANGE = 0  # PrusaSlicer's CustomGCode::Type: ColorChange (1 would be PausePrint)


@dataclass(frozen=True)
class ColourChange:
    """A single extruder's filament change before the layer ending at `print_z_mm`."""

    print_z_mm: float
    colour_hex: str  # the filament loaded then


@functools.cache
def _wrapper() -> lib3mf.Wrapper:
    """lib3mf's function table, loaded once (13 ms a load: a kit's 9 plates spent 0.12 s)."""
    return lib3mf.get_wrapper()


def plate_bytes(
    plate: str, objects: list[PlateObject], change: ColourChange | None = None
) -> bytes:
    """The plate as a 3MF file's bytes.

    A piece with marks is one mesh object of two closed shells, body then marks, whose
    triangles carry their own base material (the 3MF way to colour parts of an object);
    PrusaSlicer's volume list (Metadata/Slic3r_PE_model.config) names the same two
    triangle ranges as the object's two volumes, the marks on extruder 2. `change`: the
    plate's filament change for a single extruder, in PrusaSlicer's list of colour
    changes by height, so slicing the file puts it (M600) where the BOM says."""
    wrapper = _wrapper()
    model = wrapper.CreateModel()
    group = model.AddBaseMaterialGroup()
    materials: dict[str, int] = {}
    for item in objects:
        pairs = [(item.material, item.colour_hex), (item.accent_material, item.accent_hex)]
        for material, colour_hex in pairs[: 2 if item.accent is not None else 1]:
            if material not in materials:
                colour = wrapper.RGBAToColor(*hex_channels(colour_hex), 255)
                materials[material] = group.AddMaterial(material, colour)
    volumes: list[tuple[int, str, list[tuple[str, int, int, int]]]] = []
    for index, item in enumerate(objects):
        mesh = model.AddMeshObject()
        mesh.SetName(item.name)
        shells = [(f"{item.name} body", item.mesh, materials[item.material], 1)]
        if item.accent is not None:
            shells.append((f"{item.name} marks", item.accent, materials[item.accent_material], 2))
        points: list[np.ndarray] = []
        faces: list[np.ndarray] = []
        properties: list[lib3mf.TriangleProperties] = []
        ranges = []
        for name, shell, material_id, extruder in shells:
            first_point, first_face = sum(map(len, points)), sum(map(len, faces))
            points.append(np.asarray(shell.vertices))
            faces.append(np.asarray(shell.faces) + first_point)
            ranges.append((name, first_face, first_face + len(faces[-1]) - 1, extruder))
            properties += [_property(group.GetResourceID(), material_id)] * len(faces[-1])
        mesh.SetGeometry(*_geometry(np.vstack(points), np.vstack(faces)))
        mesh.SetObjectLevelProperty(group.GetResourceID(), materials[item.material])
        if item.accent is not None:
            mesh.SetAllTriangleProperties(properties)
        mesh.SetUUID(_uuid(plate, item.name, index, "object"))
        built = model.AddBuildItem(mesh, wrapper.GetIdentityTransform())
        built.SetUUID(_uuid(plate, item.name, index, "item"))
        volumes.append((mesh.GetModelResourceID(), item.name, ranges))
    model.SetBuildUUID(_uuid(plate, "build"))
    if any(len(ranges) > 1 for _id, _name, ranges in volumes):
        config = model.AddAttachment(PRUSA_CONFIG, CONFIG_RELATIONSHIP)
        config.ReadFromBuffer(list(prusa_volumes(volumes).encode()))
    if change is not None:
        changes = model.AddAttachment(PRUSA_CHANGES, CHANGES_RELATIONSHIP)
        changes.ReadFromBuffer(list(prusa_colour_changes([change]).encode()))
    return bytes(model.QueryWriter("3mf").WriteToBuffer())


def prusa_colour_changes(changes: list[ColourChange]) -> str:
    """PrusaSlicer's custom G-code by height: a colour change (M600) before each layer
    ending at print_z, for a single-extruder printer."""
    lines = ['<?xml version="1.0" encoding="utf-8"?>', "<custom_gcodes_per_print_z>"]
    for change in sorted(changes, key=lambda c: c.print_z_mm):
        lines.append(
            f'<code print_z="{change.print_z_mm:g}" type="{COLOUR_CHANGE}" extruder="1" '
            f'color="{escape(change.colour_hex)}" extra="" gcode="M600"/>'
        )
    lines += ['<mode value="SingleExtruder"/>', "</custom_gcodes_per_print_z>"]
    return "\n".join(lines) + "\n"


def _property(group: int, material: int) -> lib3mf.TriangleProperties:
    found = lib3mf.TriangleProperties()
    found.ResourceID = group
    for corner in range(3):
        found.PropertyIDs[corner] = material
    return found


def prusa_volumes(objects: list[tuple[int, str, list[tuple[str, int, int, int]]]]) -> str:
    """PrusaSlicer's model config: each object's volumes as triangle ranges."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', "<config>"]
    for object_id, name, ranges in objects:
        lines.append(f' <object id="{object_id}" instances_count="1">')
        lines.append(f'  <metadata type="object" key="name" value="{escape(name)}"/>')
        for volume, first, last, extruder in ranges:
            lines += [
                f'  <volume firstid="{first}" lastid="{last}">',
                f'   <metadata type="volume" key="name" value="{escape(volume)}"/>',
                '   <metadata type="volume" key="volume_type" value="ModelPart"/>',
                f'   <metadata type="volume" key="extruder" value="{extruder}"/>',
                "  </volume>",
            ]
        lines.append(" </object>")
    lines.append("</config>")
    return "\n".join(lines) + "\n"


def _uuid(*words: object) -> str:
    return str(uuid.uuid5(NAMESPACE, "|".join(str(word) for word in words)))


def _geometry(points: np.ndarray, faces: np.ndarray) -> tuple[ctypes.Array, ctypes.Array]:
    """Vertices and triangles as lib3mf's arrays, over numpy's memory: the binding copies
    a sequence of its structures, and one built a vertex at a time in Python cost 6 times
    as much (the same 3MF bytes: its coordinates are float32, its indices uint32)."""
    vertices = np.ascontiguousarray(points, dtype=np.float32)
    triangles = np.ascontiguousarray(faces, dtype=np.uint32)
    return (
        (lib3mf.Position * len(vertices)).from_buffer(vertices),
        (lib3mf.Triangle * len(triangles)).from_buffer(triangles),
    )


@dataclass(frozen=True)
class ReadVolume:
    """The triangles of an object in one material."""

    name: str  # its colour
    vertices: np.ndarray  # the vertices they use, n x 3, mm
    colour_hex: str  # their base material's display colour, "#RRGGBB"
    faces: np.ndarray  # m x 3 indices into vertices


@dataclass(frozen=True)
class ReadObject:
    """One mesh object (a printed piece) as lib3mf's strict reader sees it."""

    name: str
    vertices: np.ndarray  # n x 3, mm, as placed (every build item has the identity transform)
    colour_hex: str  # its object-level base material's display colour (the body's)
    volumes: tuple[ReadVolume, ...]  # its triangles by material: body, then marks


def read_objects(data_path: str) -> list[ReadObject]:
    """The mesh objects of a 3MF read by lib3mf in strict mode (raises on any fault)."""
    wrapper = _wrapper()
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
        found.append(
            ReadObject(mesh.GetName(), points, _colour(model, mesh), _volumes(model, mesh, points))
        )
    return found


def _volumes(
    model: lib3mf.Model, mesh: lib3mf.MeshObject, points: np.ndarray
) -> tuple[ReadVolume, ...]:
    """The object's triangles grouped by their material (one group: the whole mesh)."""
    faces = np.array([list(t.Indices) for t in mesh.GetTriangleIndices()], dtype=int)
    body = _colour(model, mesh)
    colours = [body] * len(faces)
    properties = mesh.GetAllTriangleProperties()
    if properties:
        # Each lookup is two calls through lib3mf's wrapper: a plate's triangles name few.
        named: dict[tuple[int, int], str] = {}
        colours = []
        for item in properties:
            key = (item.ResourceID, item.PropertyIDs[0])
            if key not in named:
                named[key] = _material_colour(model, *key)
            colours.append(named[key])
    found = []
    for colour in dict.fromkeys(colours):
        mine = faces[[c == colour for c in colours]]
        used, remapped = np.unique(mine.ravel(), return_inverse=True)
        found.append(ReadVolume(colour, points[used], colour, remapped.reshape(-1, 3)))
    return tuple(found)


def _colour(model: lib3mf.Model, mesh: lib3mf.MeshObject) -> str:
    group_id, index, has_property = mesh.GetObjectLevelProperty()  # lib3mf's order
    if not has_property:
        return ""
    return _material_colour(model, group_id, index)


def _material_colour(model: lib3mf.Model, group_id: int, index: int) -> str:
    colour = model.GetBaseMaterialGroupByID(group_id).GetDisplayColor(index)
    return f"#{colour.Red:02X}{colour.Green:02X}{colour.Blue:02X}"


def read_strict(data_path: str) -> list[str]:
    """The object names in a 3MF as lib3mf reads it in strict mode (raises on any fault)."""
    return [item.name for item in read_objects(data_path)]
