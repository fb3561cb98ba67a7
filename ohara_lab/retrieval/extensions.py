"""The engine's extension points: where code outside `retrieval/` may add a step to a query.

The engine owns these points and runs what is registered at each, in registration
order, timing every step under ``"<point>:<name>"`` (so `timings_ms` and
`RetrievalResult.steps` name it). Nothing else about the engine can be changed from
outside; a new signal family is a phase in `engine.PHASES`, not an extension.

=============  ================================================  =============================================
point          a step is called as                               runs
=============  ================================================  =============================================
fingerprint    ``step(state)``                                   after the offline fingerprint (phase 0a)
toc_selector   ``step(query_text, section_tree) -> [ids]``       one selector picks phase 0b's sections
after_bm25     ``step(state, store)``                            after phase 1, before the phases it seeds
after_tiers    ``step(result, state)``                           after tiers and answerability, before views
=============  ================================================  =============================================

``toc_selector`` holds exactly one step (registering replaces the lexical default);
the other points hold any number. The LLM layer registers phase 0a/0b, reasoning
sub-queries, integrity verify, self-RAG and rerank (`ohara_lab.retrieval.llm_steps`); the
speculative cache registers its pre-warm (`ohara_lab.retrieval.speculative`).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ..errors import UsageError
from .phases.toc import Selector, lexical_selector
from .state import QueryState

if TYPE_CHECKING:
    from ..store.protocol import GraphStore
    from .result import RetrievalResult

FingerprintStep = Callable[[QueryState], None]
AfterBm25Step = Callable[[QueryState, "GraphStore"], None]
AfterTiersStep = Callable[["RetrievalResult", QueryState], None]

F = TypeVar("F", bound=Callable[..., Any])

POINTS = ("fingerprint", "toc_selector", "after_bm25", "after_tiers")


@dataclass(frozen=True)
class Step(Generic[F]):
    """A named callable registered at one extension point."""

    point: str
    name: str
    run: F

    @property
    def label(self) -> str:
        """How timings and `steps` name it: ``point:name``."""
        return f"{self.point}:{self.name}"


@dataclass
class Extensions:
    """What is registered at each of the engine's extension points."""

    fingerprint: list[Step[FingerprintStep]] = field(default_factory=list)
    toc_selector: Step[Selector] = field(default_factory=lambda: Step("toc_selector", "lexical", lexical_selector))
    after_bm25: list[Step[AfterBm25Step]] = field(default_factory=list)
    after_tiers: list[Step[AfterTiersStep]] = field(default_factory=list)

    def register(self, point: str, name: str, run: Callable[..., Any]) -> Step[Any]:
        """Add `run` at `point` under `name` (a second step of the same name at a point is an error)."""
        if point not in POINTS:
            raise UsageError(f"unknown extension point {point!r}; the engine declares {', '.join(POINTS)}")
        step: Step[Any] = Step(point, name, run)
        if point == "toc_selector":
            self.toc_selector = step
            return step
        steps: list[Step[Any]] = getattr(self, point)
        if any(s.name == name for s in steps):
            raise UsageError(f"a step named {name!r} is already registered at {point}")
        steps.append(step)
        return step

    def describe(self) -> list[str]:
        """Every registered step as ``point:name``, in the order the engine runs them."""
        return ([s.label for s in self.fingerprint] + [self.toc_selector.label]
                + [s.label for s in self.after_bm25] + [s.label for s in self.after_tiers])
