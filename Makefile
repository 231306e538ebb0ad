# robot_state_core developer commands. The two a newcomer needs: `make demo` and `make test`.
# Both create/refresh .venv first (tools/setup_env.py; a no-op when nothing changed).

VENV   := $(CURDIR)/.venv
PY     := $(VENV)/bin/python
# DDS stays on this machine: loopback-only discovery, fast-discovery FastDDS profile.
export ROS_AUTOMATIC_DISCOVERY_RANGE := LOCALHOST
export FASTDDS_DEFAULT_PROFILES_FILE := $(CURDIR)/config/fastdds_fast_discovery.xml
export RMW_IMPLEMENTATION := rmw_fastrtps_cpp
export AMENT_PREFIX_PATH := $(VENV)
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: setup demo test lint typecheck pytest bench clean

setup:
	@python3 tools/setup_env.py

## Run the embedded default robot on ROS 2 with simulated joint states and the services, and
## the browser viewer following them (URL printed; Ctrl-C to stop; DEMO_ARGS="--duration 10").
VIEW_PORT ?= 8080
demo: setup
	@$(VENV)/bin/robot-state-core run --simulate --view $(VIEW_PORT) $(DEMO_ARGS)

## The whole test suite: lint, type check, pytest (what CI runs).
test: setup lint typecheck pytest

lint:
	@echo "== ruff" && $(VENV)/bin/ruff check .

typecheck:
	@echo "== mypy" && $(VENV)/bin/mypy

pytest:
	@echo "== pytest" && $(PY) -m pytest $(PYTEST_ARGS)

## Benchmarks against Pinocchio / TRAC-IK / coal (not tests; writes benchmarks/results/*.md).
bench: setup
	@$(PY) benchmarks/run.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) build install log .pytest_cache .mypy_cache .ruff_cache
