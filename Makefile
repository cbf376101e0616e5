# PageKeeper: two commands for a newcomer, `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PK     := $(BIN)/pagekeeper

.PHONY: venv run test lint format bench dist extension clean compiled-engine \
	compiled-engine-if-possible suggest-compiled suggest-compiled-if-possible

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml $(VENV)/.installed
	$(BIN)/pip install -q -e '.[test]'
	touch $@

$(VENV)/.installed-compile: pyproject.toml $(VENV)/.installed
	$(BIN)/pip install -q -e '.[compile]'
	touch $@

$(VENV)/.installed-bench: pyproject.toml $(VENV)/.installed-test
	$(BIN)/pip install -q -e '.[test,bench]'
	touch $@

## venv: only the environment (the project and its runtime dependencies)
venv: $(VENV)/.installed

## run: set up, start the archive daemon, build the extension and open the viewer
run: $(VENV)/.installed compiled-engine-if-possible
	$(BIN)/python packaging/run.py

## test: set up with test extras, lint, and run the whole test suite
test: $(VENV)/.installed-test lint
	$(BIN)/python -m pytest -q -n 4 --dist loadfile

lint: $(VENV)/.installed-test node_modules/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	node_modules/.bin/eslint extension host/viewer/static
	$(BIN)/mypy

## node_modules: ESLint for the extension and the viewer (package.json, package-lock.json)
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --silent
	touch $@

format: $(VENV)/.installed-test
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

## bench: speed and memory figures, each with its baseline measured in the same run
bench: $(VENV)/.installed-bench
	@set -e; for b in tests/bench/bench_*.py; do echo "== $$b"; $(BIN)/python $$b; done

## compiled-engine: a copy of engine/ in build/compiled/ whose suggestion modules and the
## extraction's hot modules mypyc (part of mypy) compiles to C; never in place, so a compiled
## module can never shadow an edited source. The CLI and the daemon run it when it is built
## from the tree's very sources (host/compiled.py), the pure modules otherwise;
## `bench_suggest.py --compiled` and `bench_extract_wide.py --compiled` run on it.
COMPILED := build/compiled
COMPILED_MODULES := engine/urls/typos.py engine/urls/dictionary.py engine/urls/segments.py \
	engine/urls/substitution.py engine/urls/keyboard.py engine/urls/suggest/pipeline.py \
	engine/urls/suggest/ranking.py engine/urls/suggest/readings.py \
	engine/html/tokens.py engine/html/blocks.py engine/html/context.py engine/html/extract.py \
	engine/html/visible.py
compiled-engine: $(VENV)/.installed-compile
	rm -rf $(COMPILED) && mkdir -p $(COMPILED)
	cp -r engine $(COMPILED)/ && find $(COMPILED) -name __pycache__ -prune -exec rm -rf {} +
	cd $(COMPILED) && $(CURDIR)/$(BIN)/mypyc $(COMPILED_MODULES)

## compiled-engine-if-possible: build it unless it is up to date or this machine cannot
## (no C compiler or no Python headers: one line says so, and the pure modules run)
compiled-engine-if-possible: $(VENV)/.installed
	@mkdir -p build; if $(BIN)/python -m host.compiled fresh; then :; \
	elif $(BIN)/python -m host.compiled can-build; then \
	  echo "suggestions and extraction: compiling their modules (mypyc, a few minutes; log in $(COMPILED).log)"; \
	  if $(MAKE) --no-print-directory compiled-engine >$(COMPILED).log 2>&1; then :; else \
	    rm -rf $(COMPILED); \
	    echo "suggestions and extraction: the pure Python modules run (the compiled build failed: $(COMPILED).log)"; fi; \
	fi

## suggest-compiled, suggest-compiled-if-possible: the names these had when they compiled
## only the suggestion modules (the docs' history calls them so)
suggest-compiled: compiled-engine
suggest-compiled-if-possible: compiled-engine-if-possible

## extension: dist/extension-chromium/, dist/extension-firefox/ and their zips
extension: $(VENV)/.installed
	$(BIN)/python packaging/build_extension.py

## dist: single-file binary of the host (PyInstaller)
dist: $(VENV)/.installed compiled-engine-if-possible
	$(BIN)/pip install -q -e '.[dist]'
	$(BIN)/pyinstaller --noconfirm --clean packaging/pagekeeper.spec --distpath dist --workpath build/pyinstaller

clean:
	rm -rf $(VENV) build dist .pytest_cache .ruff_cache node_modules
