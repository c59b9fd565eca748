# Itachi: `make run` starts the whole local system; `make test` runs every test.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test tests lint typecheck unit package deploy scan clean system-packages

# The web console's front-end libraries (htmx, Chart.js): pinned in package-lock.json, installed
# from the npm registry, served from node_modules/ and copied into the Lambda zip. No build step.
CONSOLE_ASSETS := chalicelib/console/assets
CONSOLE_STAMP  := $(CONSOLE_ASSETS)/node_modules/.installed

# The policy scanner lives in a virtualenv of its own: checkov pins a boto3 the Lambda cannot use.
SCAN_VENV  := .venv-scan
SCAN_STAMP := $(SCAN_VENV)/.installed

# torch comes first, pinned, from the CPU wheel (otherwise sentence-transformers pulls a CUDA build).
# cryptography (for mcp, in the Lambda) is swapped for its manylinux2014 wheel: pip picks the
# manylinux_2_34 one on this machine, which the Lambda runtime (glibc 2.26) cannot load.
LAMBDA_CRYPTOGRAPHY := $(shell grep -h '^cryptography==' requirements.txt)

$(STAMP): requirements.txt requirements-local.txt requirements-dev.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q 'pip<26.3'
	$(BIN)/python -m pip install -q torch==2.13.0
	$(BIN)/python -m pip install -q -r requirements-dev.txt
	$(BIN)/python -m pip download -q --no-deps --only-binary=:all: --platform manylinux2014_x86_64 \
		--python-version 3.11 -d $(VENV)/lambda-wheels $(LAMBDA_CRYPTOGRAPHY)
	$(BIN)/python -m pip install -q --no-deps --force-reinstall $(VENV)/lambda-wheels/cryptography-*.whl
	$(BIN)/python -m pip install -q --no-deps -e .
	$(BIN)/python -m chalicelib.memory.adapters.onnx_model
	touch $(STAMP)

# The ONNX Runtime embedder's wheels for the Lambda zip (requirements-lambda-onnx.txt: builds the
# python3.11 runtime's glibc 2.26 can load), downloaded once so `make package` stays offline.
LAMBDA_ONNX_STAMP := $(VENV)/lambda-wheels/onnx/.downloaded

$(LAMBDA_ONNX_STAMP): requirements-lambda-onnx.txt | $(STAMP)
	$(BIN)/python -m pip download -q --no-deps --only-binary=:all: --platform manylinux2014_x86_64 \
		--python-version 3.11 -d $(VENV)/lambda-wheels/onnx -r requirements-lambda-onnx.txt
	touch $(LAMBDA_ONNX_STAMP)

$(CONSOLE_STAMP): $(CONSOLE_ASSETS)/package.json $(CONSOLE_ASSETS)/package-lock.json
	npm ci --prefix $(CONSOLE_ASSETS) --ignore-scripts --no-audit --no-fund
	touch $(CONSOLE_STAMP)

run: $(STAMP) $(CONSOLE_STAMP)
	$(BIN)/itachi migrate
	$(BIN)/itachi up

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy .

$(SCAN_STAMP): requirements-scan.txt
	test -x $(SCAN_VENV)/bin/python || $(PYTHON) -m venv $(SCAN_VENV)
	$(SCAN_VENV)/bin/python -m pip install -q -r requirements-scan.txt
	touch $(SCAN_STAMP)

# Debian's packages the tests drive: a real sshd (tests/integration/ssh) and Chromium (the console's
# browser tests). Installed here when missing, as root or through sudo, never by a test.
SYSTEM_PACKAGES := openssh-server chromium chromium-driver
SYSTEM_BINARIES := /usr/sbin/sshd /usr/bin/chromium /usr/bin/chromedriver
APT_INSTALL := apt-get install -y -q -o DPkg::Lock::Timeout=600 --no-install-recommends $(SYSTEM_PACKAGES)
NEED_PACKAGES := make test needs Debian's $(SYSTEM_PACKAGES); as root, run: apt-get update && $(APT_INSTALL)

system-packages:
	@if $(foreach b,$(SYSTEM_BINARIES),test -x $(b) &&) true; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then as=; elif sudo -n true 2>/dev/null; then as="sudo -n"; \
	else echo "$(NEED_PACKAGES)" >&2; exit 1; fi; \
	export DEBIAN_FRONTEND=noninteractive; \
	$$as $(APT_INSTALL) 2>/dev/null || { $$as apt-get update -q && $$as $(APT_INSTALL); } \
		|| { echo "$(NEED_PACKAGES)" >&2; exit 1; }; \
	$(foreach b,$(SYSTEM_BINARIES),test -x $(b) || { echo "$(b) is missing. $(NEED_PACKAGES)" >&2; exit 1; };)

# Parallel workers (pytest-xdist), each with its own Postgres and moto server; a module's tests stay
# on one worker, so a module-scoped fixture (a package build, a shared server) is made once. Three on
# two cores: much of a test is waiting (on a subprocess, a queue, a fake server), and a third worker
# fills that time. The lint runs beside the tests (mypy is one process on one core).
TEST_WORKERS ?= 3

test: $(STAMP) $(CONSOLE_STAMP) $(LAMBDA_ONNX_STAMP) system-packages
	$(MAKE) --no-print-directory -j 2 lint tests

tests: $(STAMP) $(CONSOLE_STAMP) $(LAMBDA_ONNX_STAMP) system-packages
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadscope

# checkov over both stages' templates (tests/integration/test_policy_scan.py, marked `scan`). Kept out of
# `make test`: its own virtualenv and the scan add minutes; run it before every deploy (`make deploy` does).
scan: $(STAMP) $(SCAN_STAMP)
	$(BIN)/python -m pytest -q -m scan tests/integration/test_policy_scan.py

unit: $(STAMP) $(CONSOLE_STAMP)
	$(BIN)/python -m pytest -m "unit or functional"

# AWS. `make package` works offline: dist/lambda.zip and dist/template.json for $(STAGE), linted.
# The stage's ITACHI_EMBEDDING_PROVIDER (openai or onnx) decides whether the zip carries the model.
STAGE ?= prod

package: $(STAMP) $(CONSOLE_STAMP) $(LAMBDA_ONNX_STAMP)
	$(BIN)/python -m infra.package --stage $(STAGE) $(if $(EMBEDDING),--embedding $(EMBEDDING))
	$(BIN)/cfn-lint dist/template.json

# Needs AWS credentials: upload, create or update the stack (migrations run inside), print the URLs.
# PARAMS="TelegramAllowedUsers=123 AlarmEmail=me@example.com" sets template parameters.
deploy: package scan
	$(BIN)/python -m infra.deploy deploy --stage $(STAGE) --skip-package $(foreach p,$(PARAMS),--param $(p))

clean:
	rm -rf $(VENV) $(SCAN_VENV) $(CONSOLE_ASSETS)/node_modules dist build .mypy_cache .ruff_cache .pytest_cache
