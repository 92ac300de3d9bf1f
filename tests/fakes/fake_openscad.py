#!/usr/bin/env python3
"""An OpenSCAD stand-in for fault tests; FAKE_OPENSCAD_MODE picks the misbehaviour.

crash: dies by SIGSEGV after writing half a file; hang: never finishes; warn: prints a
WARNING but writes a good mesh; truncated: exits 0 with a cut-off STL; slow: waits, then
behaves like the real OpenSCAD (so a build can be interrupted mid-way); triangle, empty and
nan: exit 0 having written a one-triangle STL, an empty file, or a mesh with NaN vertices.
"""

import os
import signal
import struct
import subprocess
import sys
import time

REAL = os.environ.get("FAKE_OPENSCAD_REAL", "/usr/bin/openscad")


def output_path(args: list[str]) -> str:
    return args[args.index("-o") + 1]


def binary_stl(triangles: list[tuple[float, ...]]) -> bytes:
    """A binary STL: 80-byte header, count, then normal + 3 vertices + attribute each."""
    body = b"".join(struct.pack("<12fH", 0, 0, 1, *t, 0) for t in triangles)
    return b"fake".ljust(80, b" ") + struct.pack("<I", len(triangles)) + body


GARBAGE = {
    "triangle": binary_stl([(0, 0, 0, 10, 0, 0, 0, 10, 0)]),
    "empty": b"",
    "nan": binary_stl([(float("nan"),) * 9] * 4),
}


def main() -> None:
    args = sys.argv[1:]
    if "--version" in args or "--help" in args:
        version = os.environ.get("FAKE_OPENSCAD_VERSION", "2021.01")
        sys.stderr.write(f"OpenSCAD version {version}\n")
        return
    mode = os.environ.get("FAKE_OPENSCAD_MODE", "real")
    if mode == "crash":
        with open(output_path(args), "wb") as stream:
            stream.write(b"\0" * 100)
        os.kill(os.getpid(), signal.SIGSEGV)
    if mode in GARBAGE:
        with open(output_path(args), "wb") as stream:
            stream.write(GARBAGE[mode])
        return
    if mode == "hang":
        time.sleep(3600)
    if mode == "slow":
        time.sleep(float(os.environ.get("FAKE_OPENSCAD_DELAY", "2")))
    done = subprocess.run([REAL, *args], capture_output=True, text=True, check=False)
    sys.stderr.write(done.stderr)
    if mode == "warn":
        sys.stderr.write("WARNING: Object may not be a valid 2-manifold and may need repair!\n")
    if mode == "truncated":
        with open(output_path(args), "r+b") as stream:
            stream.truncate(os.path.getsize(output_path(args)) // 2)
    sys.exit(done.returncode)


main()
