"""Fixtures of the web tests: a live small site on 127.0.0.1."""
from __future__ import annotations

import pytest

pytest.importorskip("httpx", reason="the web tests need the 'web' extra (httpx, trafilatura, protego)")
pytest.importorskip("trafilatura", reason="the web tests need the 'web' extra")
pytest.importorskip("protego", reason="the web tests need the 'web' extra")

from .site import Site, small_site  # noqa: E402


@pytest.fixture
def site():
    s = small_site().start()
    yield s
    s.stop()


@pytest.fixture
def bare_site():
    s = Site().start()
    yield s
    s.stop()
