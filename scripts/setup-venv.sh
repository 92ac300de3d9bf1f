#!/bin/sh
# The project's .venv, with the package (editable) and its tools: scripts/setup-venv.sh
# PYTHON VENV UV_VERSION (the Makefile's `make setup` runs it).
#
# uv installs in 3-5 s where pip takes 17-24 s (measured 2026-11-28). The venv is made
# without pip (ensurepip costs 2.3 s) and uv comes from the system's pip when it has one
# (pip 22.3+ installs into another interpreter); else the venv gets pip of its own for it.
# Where uv cannot be had at all, pip installs everything.
set -eu
python=$1
venv=$2
uv_version=$3
py=$venv/bin/python
uv=$venv/bin/uv

[ -x "$py" ] || "$python" -m venv --without-pip "$venv"

own_pip() {
    "$py" -m pip --version >/dev/null 2>&1 || "$py" -m ensurepip --default-pip >/dev/null
}

# The system pip's complaints about its own configuration are not the maker's business.
[ -x "$uv" ] || "$python" -m pip --python "$py" install --quiet "uv==$uv_version" 2>/dev/null \
    || { own_pip && "$py" -m pip install --quiet "uv==$uv_version" 2>/dev/null; } \
    || true

# The libraries at the versions requirements.lock pins, and the package (editable). uv looks
# in its cache alone first: 0.9-1.1 s, where asking PyPI again took 1.8-6.9 s (measured
# 2026-11-28). With every version pinned, both ways install the same set. A Python newer
# than the pins' wheels gets the newest versions pyproject.toml allows instead.
# The ranges' install leaves $venv/.unpinned: the pinned-versions test then says so and skips.
unpinned=$venv/.unpinned
rm -f "$unpinned"
if [ -x "$uv" ]; then
    pinned() { "$uv" pip install --quiet --python "$py" "$@" -r requirements.lock -e '.[dev]'; }
    pinned --offline 2>/dev/null || pinned 2>/dev/null \
        || { "$uv" pip install --quiet --python "$py" -e '.[dev]' && touch "$unpinned"; }
else
    own_pip
    "$py" -m pip install --quiet --upgrade pip
    # setuptools' banner on editable installs is for its own developers, not a maker's
    pip_dev() { PYTHONWARNINGS=ignore "$py" -m pip install --quiet "$@" -e '.[dev]'; }
    pip_dev -r requirements.lock 2>/dev/null || { pip_dev && touch "$unpinned"; }
fi
