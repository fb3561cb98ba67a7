"""`Settings.override` remembers the override sets it built; a server's request threads share that cache
(issue 28, point 9).

Before the fix two threads evicting at once both chose the oldest entry and the second
`pop` raised KeyError inside a request. The test makes that interleaving certain rather
than likely: the oldest entry's value blocks in `__hash__` (which `dict.pop` calls) on a
two-party barrier, so both threads stand between choosing the victim and removing it.
With the lock the second thread waits for the first instead, the barrier times out and
both finish.
"""
from __future__ import annotations

import threading

from ohara_lab.settings import OVERRIDE_CACHE, Settings

BARRIER = threading.Barrier(2, timeout=2)


class MeetsOnHash(str):
    """A text value whose hash, once armed, waits for a second thread to hash it too."""

    armed = False

    def __hash__(self) -> int:
        if MeetsOnHash.armed:
            try:
                BARRIER.wait()
            except threading.BrokenBarrierError:  # the other thread never came: it waits behind a lock
                pass
        return str.__hash__(self)

    def __eq__(self, other: object) -> bool:
        return str.__eq__(self, other)


def test_two_threads_evicting_at_once_both_get_their_settings():
    base = Settings()
    base.override(gemini_model=MeetsOnHash("oldest"))
    for i in range(OVERRIDE_CACHE - 1):
        base.override(gemini_model=f"model-{i}")
    assert len(base._overridden) == OVERRIDE_CACHE

    made: dict[str, Settings] = {}
    errors: list[BaseException] = []

    def override(name: str) -> None:
        try:
            made[name] = base.override(gemini_model=name)
        except BaseException as e:  # noqa: BLE001 - whatever a request thread would have died of
            errors.append(e)

    MeetsOnHash.armed = True
    try:
        threads = [threading.Thread(target=override, args=(name,)) for name in ("thread-a", "thread-b")]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    finally:
        MeetsOnHash.armed = False
        BARRIER.reset()
    assert errors == []
    assert {name: s.gemini_model for name, s in made.items()} == {"thread-a": "thread-a", "thread-b": "thread-b"}
    cache = base._overridden
    assert len(cache) == OVERRIDE_CACHE
    assert cache[(("gemini_model", "thread-a"),)] is made["thread-a"]
    assert cache[(("gemini_model", "thread-b"),)] is made["thread-b"]
    assert base.override(gemini_model="thread-a") is made["thread-a"]  # served from the cache, not rebuilt


def test_many_threads_overriding_at_once_agree_with_a_single_thread():
    base = Settings()
    expected = {i: Settings().override(result_limit=1 + i % 90, bm25_weight=i / 100) for i in range(300)}
    start = threading.Barrier(8)
    errors: list[BaseException] = []
    wrong: list[int] = []

    def work(offset: int) -> None:
        start.wait()
        try:
            for i in range(offset, 300, 8):
                got = base.override(result_limit=1 + i % 90, bm25_weight=i / 100)
                if got != expected[i]:
                    wrong.append(i)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == [] and wrong == []
    assert len(base._overridden) <= OVERRIDE_CACHE
