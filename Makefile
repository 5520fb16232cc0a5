# Kernel Ladder: `make course` opens the course, `make test` runs the project's tests.
# Both create ./.venv first. TORCH_SPEC picks the torch build (default: what pip picks for this
# machine; without an NVIDIA GPU a CPU build is enough and much smaller, see README).
PYTHON ?= python3
VENV ?= .venv
TORCH_SPEC ?= torch
BIN := $(VENV)/bin

.PHONY: setup course test test-code test-notebooks clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q $(TORCH_SPEC)
	$(BIN)/python -m pip install -q -e ".[dev]"
	# CUTLASS/CuTe headers only: the package's Python requirements are not needed for them.
	$(BIN)/python -m pip install -q --no-deps nvidia-cutlass
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $@

course: setup
	$(BIN)/python -m grading info
	$(BIN)/jupyter lab chapters/00_speed_of_light/00_speed_of_light.ipynb

# The unit tests and the notebooks (each executed top to bottom in CPU mode, or on the GPU when
# there is one) run side by side: two pytest sessions, each output printed whole when it ends.
test: setup
	@echo "the unit tests and the notebooks, side by side; each report prints when it ends"
	$(MAKE) --no-print-directory -j2 --output-sync=target test-code test-notebooks

test-code: setup
	$(BIN)/python -m pytest tests -p no:cacheprovider --durations=15

test-notebooks: setup
	$(BIN)/python -m pytest chapters --nbval-lax -p no:cacheprovider

clean:
	rm -rf $(VENV)
