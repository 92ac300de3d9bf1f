#!/bin/sh
# Install the system tools squadron_cad drives, on Debian/Ubuntu, when they are missing.
#   openscad     renders the parts (required)
#   prusa-slicer slices them for print time and filament (optional: figures are skipped)
#   libegl1 libegl-mesa0 libgl1 libgl1-mesa-dri
#                OpenGL through EGL on Mesa's software renderer: the preview pictures,
#                drawn in process with no display (optional: pictures are skipped)
#   poppler-utils  pdftoppm: PNG previews of the paper edition's pages (optional)
#   chromium     the customizer page's browser tests and `make docs`' screenshot (optional)
#   fonts-liberation  the font the benchmark's reference OpenSCAD files use (our parts
#                draw their own glyphs and need no font)
#   python3-venv the project's .venv (required)
# Run as root it installs with apt-get; otherwise it says what to install.
set -eu

missing=""
need() { # command package
    command -v "$1" >/dev/null 2>&1 || missing="$missing $2"
}
need openscad openscad
need prusa-slicer prusa-slicer
library() { # soname package: a shared library the dynamic loader knows
    { ldconfig -p || /sbin/ldconfig -p; } 2>/dev/null | grep -q "$1" || missing="$missing $2"
}
library libEGL.so.1 libegl1
library libEGL_mesa.so.0 libegl-mesa0
library libGL.so.1 libgl1
mesa_driver() { # Mesa's software renderer (llvmpipe), which EGL loads
    for path in /usr/lib/*/dri/swrast_dri.so /usr/lib/dri/swrast_dri.so /usr/lib64/dri/swrast_dri.so; do
        [ -f "$path" ] && return 0
    done
    return 1
}
mesa_driver || missing="$missing libgl1-mesa-dri"
need pdftoppm poppler-utils
need chromium chromium
fc-list 2>/dev/null | grep -qi "Liberation Sans" || missing="$missing fonts-liberation"
python3 -c "import ensurepip, venv" 2>/dev/null || missing="$missing python3-venv"

if [ -z "$missing" ]; then
    exit 0
fi

if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing$missing with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
    exit 0
fi

echo "setup: missing system packages:$missing" >&2
echo "setup: install them with: sudo apt-get install$missing" >&2
case "$missing" in
    *openscad*|*python3-venv*) exit 1 ;;
    *) echo "setup: continuing without them (slicer figures / pictures are skipped)" >&2 ;;
esac
