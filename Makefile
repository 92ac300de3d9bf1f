# squadron_cad: `make help` lists the targets.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
CLI    := $(VENV)/bin/squadron-cad
OUT    ?= out
ARGS   ?=

.DEFAULT_GOAL := help
.PHONY: help setup system stl test test-fast test-web lint bench bench-web serve previews docs clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'
	@echo "  Variables: OUT=folder (default out), ARGS='--tin v2-box --set token.width_mm=26'"

system: ## Install OpenSCAD, PrusaSlicer, Mesa's EGL with apt-get when missing (as root)
	@sh scripts/setup-system.sh

UV_VERSION := 0.13.9

# Python writes each module's bytecode where it first imports it. Where the environment
# says not to (PYTHONDONTWRITEBYTECODE), every process would compile again each library
# it imports: 1.6 CPU-s a build; compiling all of them at setup took 4 s of its own.
unexport PYTHONDONTWRITEBYTECODE

$(VENV)/.installed: pyproject.toml requirements.lock scripts/setup-venv.sh
	@sh scripts/setup-venv.sh $(PYTHON) $(VENV) $(UV_VERSION)
	@touch $@

node_modules/.package-lock.json: package-lock.json | $(VENV)/.installed
	@$(PY) -m squadron_cad.render.manifold_probe install

setup: system $(VENV)/.installed node_modules/.package-lock.json ## Set everything up: system tools, the project's .venv, OpenSCAD's Manifold build (npm)

stl: setup ## Build the whole kit into out/ (STLs, SCAD, manifest, layout, pictures)
	@$(CLI) build --out $(OUT) $(ARGS)

test: setup ## Lint, then every test (unit, real OpenSCAD renders, browser) with the type check beside them
	@$(VENV)/bin/ruff check squadron_cad tests
	@# mypy (6 s of one core) runs beside the test workers, niced: it takes the moments
	@# they leave a core idle (16 core-s in a run) rather than theirs. Its verdict comes
	@# after theirs, and either failing fails the target. Two workers, a file each (its
	@# module fixtures built once), integration files first.
	@nice -n 19 $(VENV)/bin/mypy > $(VENV)/mypy.log 2>&1 & typing=$$!; \
	$(VENV)/bin/pytest -q --numprocesses 2 --dist loadfile --no-loadscope-reorder --durations=25; \
	tested=$$?; wait $$typing; typed=$$?; cat $(VENV)/mypy.log; \
	[ $$tested -eq 0 ] && [ $$typed -eq 0 ]

test-fast: setup ## Unit tests only (no OpenSCAD, no browser)
	@$(VENV)/bin/pytest -q -m "not integration and not web"

test-web: setup ## The customizer's tests alone: a real server, Debian's chromium, two workers
	@$(VENV)/bin/pytest -q tests/integration/web --numprocesses 2 --dist loadfile --no-loadscope-reorder

lint: setup ## ruff check over the package and the tests; mypy over the package
	@$(VENV)/bin/ruff check squadron_cad tests
	@$(VENV)/bin/mypy

bench: setup ## Benchmark cold, warm and one-change builds against the reference timing
	@$(CLI) bench $(ARGS)

bench-web: setup ## Benchmark the customizer page in chromium (start, fit, build, 3D view)
	@$(PY) bench/web_bench.py $(ARGS)

serve: setup ## The customizer page on 127.0.0.1:8421: fit your tin, see the parts in 3D, build, download
	@$(CLI) serve $(ARGS)

previews: setup ## Render preview pictures into out/previews
	@$(CLI) previews --out $(OUT) $(ARGS)

paper: setup ## Write the paper edition into OUT/paper (PDF, SVGs, laser files, page pictures)
	@$(CLI) paper --out $(OUT)/paper $(ARGS)

docs: setup ## Regenerate the README gallery, paper pages, parameter table, manifest schema and the customizer's screenshots under docs/
	@$(CLI) docs
	@$(PY) -m squadron_cad.outputs.models docs/schema
	@$(PY) -m squadron_cad.tolerance docs
	@# the customizer page as a maker sees it, from a real browser session (Debian's chromium)
	@$(PY) -m squadron_cad.web.browser docs

clean: $(VENV)/.installed ## Remove what the tool wrote in OUT (kit, paper, tolerance plate): only files its records list
	@$(CLI) clean --out $(OUT)
