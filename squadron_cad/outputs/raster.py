"""Pictures drawn in this process: OpenGL on Mesa's software renderer through EGL
(moderngl), so no display, no Xvfb and no OpenSCAD process is needed.

The look is OpenSCAD's preview, which the gallery has always shown: flat faces, each
`AMBIENT + |n . LIGHT|` times its colour, with the light fixed to the viewer (from the
upper left, in front); OpenSCAD's perspective (a 22.5 degree field, the camera where the
scene's bounding sphere just fits, turned by the view's rotation about the bounding box's
centre: `--viewall --autocenter`). The picture is then framed as before: the scene's
projected outline plus a margin, at the picture's aspect. The frame is worked out from the
projected corners before drawing, so every pixel drawn is a pixel kept, and the picture is
drawn at SUPERSAMPLE times its size and reduced: smooth edges.

A part's raised top (`accent_from_z_mm`) is drawn darker by the shader, by the height of
each pixel in the part's own frame, where OpenSCAD needed the mesh cut in two.
"""

from __future__ import annotations

import math
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import moderngl
import numpy as np
from PIL import Image

from squadron_cad.errors import ToolError

FOV_DEG = 22.5  # OpenSCAD's field of view (vertical)
LIGHT = (-1.0, 1.0, 1.0)  # OpenSCAD's light, in the viewer's frame (x right, y up, z out)
AMBIENT = 0.2
ACCENT_ABOVE_MM = 0.02  # a raised top begins this far above its height: its floor stays
SUPERSAMPLE = 2  # drawn at twice the size, reduced by averaging 2 x 2 pixels
INSTALL_HINT = (
    "pictures need OpenGL through EGL: Mesa's software renderer (sudo apt-get install "
    "libegl1 libegl-mesa0 libgl1-mesa-dri, or `make system`)"
)

Corners = np.ndarray  # (n, 3, 3) float32: each triangle's corners


@dataclass(frozen=True)
class Shape:
    """One mesh in a picture: its triangles (in its own frame), its colour (0-1 RGB),
    where it goes (4x4, or None) and the height above which it is drawn in `accent`."""

    triangles: Corners
    colour: tuple[float, float, float]
    transform: np.ndarray | None = None
    accent_from_z_mm: float | None = None
    accent: tuple[float, float, float] | None = None

    def placed_corners(self) -> np.ndarray:
        """Every corner where the picture shows it: (3n, 3) float64."""
        points = self.triangles.reshape(-1, 3).astype(np.float64)
        if self.transform is None:
            return points
        return points @ self.transform[:3, :3].T + self.transform[:3, 3]


def read_triangles(path: Path) -> Corners:
    """The triangles of an STL: a binary one read straight into an array, an ASCII one
    through trimesh."""
    data = path.read_bytes()
    count = int.from_bytes(data[80:84], "little") if len(data) >= 84 else -1
    if len(data) == 84 + 50 * count:
        record = np.dtype([("normal", "<f4", (3,)), ("corners", "<f4", (3, 3)), ("attr", "<u2")])
        return np.frombuffer(data, dtype=record, count=count, offset=84)["corners"]
    from squadron_cad.checks.mesh import load_mesh  # rare: an ASCII STL

    return np.asarray(load_mesh(path).triangles, dtype=np.float32)


# ---- the camera -------------------------------------------------------------------------


def rotation(degrees: Sequence[float]) -> np.ndarray:
    """The view's turn as OpenSCAD's --camera gives it (its $vpr: 0,0,0 looks straight
    down), applied as OpenSCAD does (it turns the scene by 90 - x, -y, -z about x, y, z,
    innermost last, then looks along +y): world -> viewer (x right, y up, z out)."""
    x, y, z = (float(value) for value in degrees)
    rx, ry, rz = math.radians(90 - x), math.radians(-y), math.radians(-z)
    turn_x = np.array(
        [[1, 0, 0], [0, math.cos(rx), -math.sin(rx)], [0, math.sin(rx), math.cos(rx)]]
    )
    turn_y = np.array(
        [[math.cos(ry), 0, math.sin(ry)], [0, 1, 0], [-math.sin(ry), 0, math.cos(ry)]]
    )
    turn_z = np.array(
        [[math.cos(rz), -math.sin(rz), 0], [math.sin(rz), math.cos(rz), 0], [0, 0, 1]]
    )
    look = np.array([[1, 0, 0], [0, 0, 1], [0, -1, 0]])  # world y goes into the screen
    return look @ turn_x @ turn_y @ turn_z


@dataclass(frozen=True)
class Camera:
    """Where the viewer is: world -> viewer (4x4) and the perspective's near and far."""

    view: np.ndarray
    near: float
    far: float

    @classmethod
    def showing(cls, corners: np.ndarray, degrees: Sequence[float]) -> Camera:
        """OpenSCAD's --viewall --autocenter for these corners."""
        low, high = corners.min(axis=0), corners.max(axis=0)
        centre = (low + high) / 2
        radius = max(float(np.linalg.norm(high - low)) / 2, 1e-3)
        distance = radius / math.sin(math.radians(FOV_DEG / 2))
        view = np.eye(4)
        view[:3, :3] = rotation(degrees)
        view[:3, 3] = view[:3, :3] @ -centre - np.array([0.0, 0.0, distance])
        return cls(view, max(distance - 1.01 * radius, distance * 1e-3), distance + 1.01 * radius)

    def projection(self, aspect: float) -> np.ndarray:
        """gluPerspective(FOV_DEG, aspect, near, far)."""
        f = 1 / math.tan(math.radians(FOV_DEG) / 2)
        near, far = self.near, self.far
        return np.array(
            [
                [f / aspect, 0, 0, 0],
                [0, f, 0, 0],
                [0, 0, (far + near) / (near - far), 2 * far * near / (near - far)],
                [0, 0, -1, 0],
            ]
        )


def framing(points_ndc: np.ndarray, aspect: float, margin: float) -> np.ndarray:
    """A 4x4 applied after the projection: the scene's projected outline (x, y in -1..1)
    with `margin` of the frame blank on each side, centred, at the picture's aspect."""
    low, high = points_ndc.min(axis=0), points_ndc.max(axis=0)
    width = (high[0] - low[0]) * aspect / (1 - 2 * margin)  # in units of the frame's height
    height = (high[1] - low[1]) / (1 - 2 * margin)
    width, height = max(width, height * aspect, 1e-9), max(height, width / aspect, 1e-9)
    centre = (low + high) / 2
    scale_x, scale_y = 2 * aspect / width, 2 / height
    crop = np.eye(4)
    crop[0, 0], crop[1, 1] = scale_x, scale_y
    crop[0, 3], crop[1, 3] = -centre[0] * scale_x, -centre[1] * scale_y
    return crop


def _to_ndc(corners: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    clip = corners @ matrix[:3, :3].T + matrix[:3, 3]
    w = corners @ matrix[3, :3] + matrix[3, 3]
    return clip[:, :2] / w[:, None]


# ---- drawing -----------------------------------------------------------------------------

_VERTEX = """
#version 330
uniform mat4 to_viewer;
uniform mat4 to_screen;
in vec3 corner;
out vec3 seen;
out float height;
void main() {
    vec4 viewed = to_viewer * vec4(corner, 1.0);
    seen = viewed.xyz;
    height = corner.z;
    gl_Position = to_screen * viewed;
}
"""

_FRAGMENT = """
#version 330
uniform vec3 colour;
uniform vec3 accent;
uniform float accent_from;
uniform vec3 light;
uniform float ambient;
in vec3 seen;
in float height;
out vec4 pixel;
void main() {
    vec3 normal = normalize(cross(dFdx(seen), dFdy(seen)));  // the face's own: flat
    float shading = ambient + abs(dot(normal, light));
    vec3 base = height > accent_from ? accent : colour;
    pixel = vec4(min(base * shading, vec3(1.0)), 1.0);
}
"""


class Painter:
    """One OpenGL context for the process, made on first use in a thread of its own that
    does all the drawing: a context is current in one thread, and it stays in that one
    (builds draw from their own threads, one after another)."""

    _lock = threading.Lock()
    _thread: ThreadPoolExecutor | None = None
    _context: moderngl.Context | None = None
    _program: moderngl.Program | None = None
    _frames: dict[tuple[int, int], moderngl.Framebuffer] = {}  # noqa: RUF012 (the painter's)

    @classmethod
    def _ready(cls) -> tuple[moderngl.Context, moderngl.Program]:
        """The context and the program (on the painting thread only)."""
        if cls._context is None or cls._program is None:
            try:
                # moderngl's stub types every **settings value as a dict; backend is a str
                context = moderngl.create_standalone_context(
                    backend=_backend()  # type: ignore[arg-type]
                )
            except Exception as error:  # no libEGL, no Mesa driver: say what to install
                raise ToolError(f"{INSTALL_HINT} ({error})") from error
            cls._program = context.program(vertex_shader=_VERTEX, fragment_shader=_FRAGMENT)
            cls._context = context
        return cls._context, cls._program

    @classmethod
    def _painting_thread(cls) -> ThreadPoolExecutor:
        with cls._lock:
            if cls._thread is None:
                cls._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="painter")
            return cls._thread

    @classmethod
    def draw(
        cls,
        shapes: Sequence[Shape],
        degrees: Sequence[float],
        size_px: tuple[int, int],
        margin: float,
        background: tuple[int, int, int],
    ) -> Image.Image:
        """The shapes seen from `degrees`, framed, at size_px (RGB)."""
        if not shapes:
            raise ToolError("preview: nothing to draw")
        corners = np.concatenate([shape.placed_corners() for shape in shapes])
        camera = Camera.showing(corners, degrees)
        aspect = size_px[0] / size_px[1]
        projection = camera.projection(aspect)
        crop = framing(_to_ndc(corners, projection @ camera.view), aspect, margin)
        scene = Scene(shapes, camera.view, TOP_ROW_FIRST @ crop @ projection, background)
        size = (size_px[0] * SUPERSAMPLE, size_px[1] * SUPERSAMPLE)
        pixels = cls._painting_thread().submit(cls._paint_here, scene, size).result()
        return Image.frombytes("RGB", size, pixels).reduce(SUPERSAMPLE)

    @classmethod
    def _paint_here(cls, scene: Scene, size: tuple[int, int]) -> bytes:
        context, program = cls._ready()
        if size not in cls._frames:  # kept: fresh buffers for each picture cost page faults
            colour = context.renderbuffer(size, 3)
            depth = context.depth_renderbuffer(size)
            cls._frames[size] = context.framebuffer([colour], depth)
        return _paint(context, program, scene, cls._frames[size])


# OpenGL's rows run bottom up, a PNG's top down: the picture is drawn upside down, so it
# is read in a PNG's order with no flip (faces are drawn from both sides, so the mirrored
# winding changes nothing).
TOP_ROW_FIRST = np.diag([1.0, -1.0, 1.0, 1.0])


def _backend() -> str | None:
    """EGL on Linux (no display needed); the platform's own elsewhere."""
    return "egl" if sys.platform.startswith("linux") else None


@dataclass(frozen=True)
class Scene:
    shapes: Sequence[Shape]
    view: np.ndarray  # world -> viewer
    to_screen: np.ndarray  # viewer -> the framed picture's clip space
    background: tuple[int, int, int]


def _matrix(value: np.ndarray) -> bytes:
    """A 4x4 as OpenGL reads a mat4 (column by column, float32)."""
    return np.ascontiguousarray(value.T, dtype="f4").tobytes()


def _paint(
    context: moderngl.Context, program: moderngl.Program, scene: Scene, frame: moderngl.Framebuffer
) -> bytes:
    uploaded: dict[int, tuple[moderngl.Buffer, moderngl.VertexArray]] = {}
    uniforms = {name: _uniform(program, name) for name in _UNIFORMS}
    try:
        frame.use()
        context.enable(moderngl.DEPTH_TEST)
        red, green, blue = (value / 255 for value in scene.background)
        frame.clear(red, green, blue, 1.0)
        uniforms["light"].value = tuple(float(v) for v in np.asarray(LIGHT) / np.linalg.norm(LIGHT))
        uniforms["ambient"].value = AMBIENT
        uniforms["to_screen"].write(_matrix(scene.to_screen))
        for shape in scene.shapes:
            key = id(shape.triangles)
            if key not in uploaded:  # a mesh shown many times is uploaded once
                buffer = context.buffer(np.ascontiguousarray(shape.triangles, dtype="f4"))
                uploaded[key] = (buffer, context.vertex_array(program, [(buffer, "3f", "corner")]))
            place = shape.transform if shape.transform is not None else np.eye(4)
            uniforms["to_viewer"].write(_matrix(scene.view @ place))
            uniforms["colour"].value = shape.colour
            uniforms["accent"].value = shape.accent or shape.colour
            accent_from = shape.accent_from_z_mm
            uniforms["accent_from"].value = (
                NEVER if accent_from is None else accent_from + ACCENT_ABOVE_MM
            )
            uploaded[key][1].render(moderngl.TRIANGLES)
        return frame.read(components=3, alignment=1)
    finally:
        for buffer, array in uploaded.values():
            array.release()
            buffer.release()


def _uniform(program: moderngl.Program, name: str) -> moderngl.Uniform:
    member = program[name]
    assert isinstance(member, moderngl.Uniform)  # _UNIFORMS are our shader's uniforms
    return member


_UNIFORMS = ("to_viewer", "to_screen", "colour", "accent", "accent_from", "light", "ambient")
NEVER = 1e30  # no raised top: no height is above it
