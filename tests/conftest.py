"""Suite-wide hooks: the nvcc compile checks of tests/test_cuda_build.py start in the background as
soon as collection ends and are collected last, so minutes of compiling overlap the rest."""
from __future__ import annotations

import os

import pytest

BUILD = "tests/test_cuda_build.py::"


@pytest.hookimpl(trylast=True)  # after -k / -m deselection: compile only what will be checked
def pytest_collection_modifyitems(session, config, items):
    build = [it for it in items if it.nodeid.startswith(BUILD)]
    if not build:
        return
    items[:] = [it for it in items if not it.nodeid.startswith(BUILD)] + build
    # Only the files and architectures whose compile checks were collected (pytest -k ...).
    selected = {(it.callspec.params["path"], it.callspec.params["arch"]) for it in build
                if hasattr(it, "callspec") and "path" in it.callspec.params}
    # One core stays with the tests themselves; nvcc gets the others (at least one).
    build[0].module.start_background_compiles(max(1, (os.cpu_count() or 2) - 1), selected)


def pytest_sessionfinish(session):
    for it in session.items:
        if it.nodeid.startswith(BUILD):
            it.module.stop_background_compiles()
            return
