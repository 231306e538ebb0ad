# robot_state_core developer commands. The two a newcomer needs: `make demo` and `make test`.
# Both create/refresh the venvs first (tools/setup_env.py; a no-op when nothing changed).
#
# Two ROS 2 distributions from PyPI wheels, one venv each: Kilted in .venv (the whole suite) and
# Jazzy, the LTS, in .venv-jazzy (the ROS-dependent tests, `-m ros`).

VENV       := $(CURDIR)/.venv
PY         := $(VENV)/bin/python
VENV_JAZZY := $(CURDIR)/.venv-jazzy
PY_JAZZY   := $(VENV_JAZZY)/bin/python
# DDS stays on this machine: loopback-only discovery, fast-discovery FastDDS profile.
export ROS_AUTOMATIC_DISCOVERY_RANGE := LOCALHOST
# Fast DDS 3 (Kilted) reads this name; Fast DDS 2.14 (Jazzy) only FASTRTPS_DEFAULT_PROFILES_FILE,
# which Kilted's rmw warns about: each venv gets its own (test/conftest.py does the same).
export FASTDDS_DEFAULT_PROFILES_FILE := $(CURDIR)/config/fastdds_fast_discovery.xml
export RMW_IMPLEMENTATION := rmw_fastrtps_cpp
export AMENT_PREFIX_PATH := $(VENV)
export PYTHONDONTWRITEBYTECODE := 1

# $(call timed,LABEL,COMMAND): run COMMAND, then print how long it took (and fail if it failed).
define timed
@start=$$(date +%s.%N); $(2); rc=$$?; \
	awk -v s=$$start -v e=$$(date +%s.%N) -v rc=$$rc -v l='$(1)' \
	    'BEGIN { printf "== %s: %.1f s%s\n", l, e - s, rc ? " (FAILED, exit " rc ")" : "" }'; \
	exit $$rc
endef

.PHONY: setup setup-jazzy demo test lint typecheck pytest pytest-jazzy bench fuzz clean

setup:
	$(call timed,set-up Kilted (.venv),python3 tools/setup_env.py)

setup-jazzy:
	$(call timed,set-up Jazzy (.venv-jazzy),python3 tools/setup_env.py --distro jazzy)

## Run the embedded default robot on ROS 2 with simulated joint states and the services, and
## the browser viewer following them (URL printed; Ctrl-C to stop; DEMO_ARGS="--duration 10").
VIEW_PORT ?= 8080
demo: setup
	@$(VENV)/bin/robot-state-core run --simulate --view $(VIEW_PORT) $(DEMO_ARGS)

## What CI runs: lint, type check, the whole pytest suite on Kilted, the ROS tests on Jazzy.
test: setup setup-jazzy lint typecheck pytest pytest-jazzy

lint:
	$(call timed,ruff,$(VENV)/bin/ruff check .)

typecheck:
	$(call timed,mypy,$(VENV)/bin/mypy)

pytest:
	$(call timed,pytest on ROS 2 Kilted (whole suite),$(PY) -m pytest $(PYTEST_ARGS))

## The ROS-dependent tests (marker `ros`) again on ROS 2 Jazzy.
pytest-jazzy:
	$(call timed,pytest on ROS 2 Jazzy (-m ros),AMENT_PREFIX_PATH=$(VENV_JAZZY) FASTRTPS_DEFAULT_PROFILES_FILE=$(FASTDDS_DEFAULT_PROFILES_FILE) $(PY_JAZZY) -m pytest -m ros $(PYTEST_ARGS))

## Benchmarks against Pinocchio / TRAC-IK / coal (not tests; writes benchmarks/results/*.md).
bench: setup
	@$(PY) benchmarks/run.py $(BENCH_ARGS)

## Long fuzz run of the loaders (issue 10): 5000 mutated URDFs and 1000 SRDFs through load, model,
## state, FK and collision, in worker processes (FUZZ_ARGS="--seed 3 --jobs 4" to vary).
fuzz: setup
	@$(PY) test/fuzz_loaders.py --urdf 5000 --srdf 1000 $(FUZZ_ARGS)

clean:
	rm -rf $(VENV) $(VENV_JAZZY) build install log .pytest_cache .mypy_cache .ruff_cache
