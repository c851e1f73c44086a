"""The misuse battery in `allocstress compare`: which detections B lost or gained against A.

When both results files have a `safety` section (safety.py), every allocator in both and every
case both ran under it is compared by its outcome:
- a scored case caught in A (detected or error returned) and not caught in B: "lost detection",
  worse;
- a scored case not caught in A and caught in B: "gained detection", better;
- an unscored (edge) case whose outcome moved between caught and not caught: "edge case changed",
  shown with decision n/a (edge cases are not counted, so they decide nothing);
- an allocator conforming in A and non-conforming in B: "lost conformance", worse; the reverse:
  "gained conformance", better (an allocator the battery did not run under in a run is not compared).
Outcomes are exact (one process per case, no interval): a worse change makes `compare` exit with
EXIT_WORSE (4) whatever the timing cells say, as a worse counts figure does (compare_result.py).
When only one file has a section, or neither, nothing is compared and the exit status is not
touched; `note` says so (one line; "" when neither has one)."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import compare_decision as rule
from ..results import safety as sf

LOST, GAINED, EDGE = "lost detection", "gained detection", "edge case changed"
LOST_CONFORMANCE, GAINED_CONFORMANCE = "lost conformance", "gained conformance"


@dataclass
class SafetyComparison:
    """The changes between two runs' safety sections (module docstring).  `changes`: one dict per
    change {allocator, case ("" for conformance), kind, decision (worse / better / n/a), a, b (the
    outcome names, or "conforming" / "non-conforming: why")}, worse first; `compared`: the
    (allocator, case) pairs compared; `only_a` / `only_b`: allocators of one section only;
    `not_run`: "allocator: not run in A|B (why)" for allocators of both the battery did not run under in a run."""
    compared_sections: bool = False
    note: str = ""
    changes: list[dict] = field(default_factory=list)
    compared: int = 0
    allocators: list[str] = field(default_factory=list)
    only_a: list[str] = field(default_factory=list)
    only_b: list[str] = field(default_factory=list)
    not_run: list[str] = field(default_factory=list)

    def count(self, kind: str) -> int:
        return sum(c["kind"] == kind for c in self.changes)

    @property
    def worse(self) -> int:
        return sum(c["decision"] == rule.WORSE for c in self.changes)

    @property
    def better(self) -> int:
        return sum(c["decision"] == rule.BETTER for c in self.changes)

    def summary(self) -> str:
        """'safety: N lost detection(s), M gained (...)', or the note when nothing was compared."""
        if not self.compared_sections:
            return self.note
        text = (f"safety: {self.count(LOST)} lost detection(s), {self.count(GAINED)} gained "
                f"({self.compared} allocator x case outcomes of {len(self.allocators)} allocator(s) compared, exact)")
        conformance = [f"{self.count(k)} {k}" for k in (LOST_CONFORMANCE, GAINED_CONFORMANCE) if self.count(k)]
        edge = [f"{self.count(EDGE)} edge case(s) changed, not scored"] if self.count(EDGE) else []
        return text + "".join(f"; {x}" for x in conformance + edge)

    def to_dict(self) -> dict:
        return {"compared": self.compared_sections, "note": self.note or None, "lost_detections": self.count(LOST),
                "gained_detections": self.count(GAINED), "lost_conformance": self.count(LOST_CONFORMANCE),
                "gained_conformance": self.count(GAINED_CONFORMANCE), "worse": self.worse, "better": self.better,
                "outcomes_compared": self.compared, "allocators": self.allocators, "only_a": self.only_a,
                "only_b": self.only_b, "not_run": self.not_run, "changes": [dict(c) for c in self.changes]}


def _one_sided(names: list[str], has: list[bool]) -> str:
    if not any(has):
        return ""
    side, other = (("A", "B") if has[0] else ("B", "A"))
    name = names[0] if has[0] else names[1]
    return (f"safety: only {side} ({name}) has a safety section (the misuse battery): not compared, "
            f"{other} did not run it; the exit status does not depend on it")


def _conformance_text(row: dict) -> str:
    return "conforming" if row["conforming"] else f"non-conforming: {row['nonconforming']}"


def compare_sections(a: dict | None, b: dict | None, names: list[str]) -> SafetyComparison:
    """The SafetyComparison of A's section `a` against B's `b` (either may be None)."""
    if a is None or b is None:
        return SafetyComparison(note=_one_sided(names, [a is not None, b is not None]))
    out = SafetyComparison(compared_sections=True)
    names_a, names_b = sf.allocators(a), sf.allocators(b)
    out.allocators = [x for x in names_a if x in names_b]
    out.only_a = [x for x in names_a if x not in names_b]
    out.only_b = [x for x in names_b if x not in names_a]
    scored = {c["name"]: c["scored"] for c in sf.cases(a)}
    scored_b = {c["name"]: c["scored"] for c in sf.cases(b)}
    conformance = ({r["allocator"]: r for r in sf.score_rows(a)}, {r["allocator"]: r for r in sf.score_rows(b)})
    for allocator in out.allocators:
        ra, rb = conformance[0][allocator], conformance[1][allocator]
        out.not_run += [f"{allocator}: not run in {side} ({r['not_run']})" for side, r in (("A", ra), ("B", rb)) if r["not_run"]]
        if ra["conforming"] is not None and rb["conforming"] is not None and ra["conforming"] != rb["conforming"]:
            lost = bool(ra["conforming"])
            out.changes.append({"allocator": allocator, "case": "", "kind": LOST_CONFORMANCE if lost else GAINED_CONFORMANCE,
                                "decision": rule.WORSE if lost else rule.BETTER, "a": _conformance_text(ra),
                                "b": _conformance_text(rb)})
        oa, ob = sf.outcomes_of(a, allocator), sf.outcomes_of(b, allocator)
        for case in [c for c in oa if c in ob]:
            out.compared += 1
            caught_a, caught_b = sf.is_caught(a, oa[case]), sf.is_caught(b, ob[case])
            if caught_a == caught_b:
                continue
            if scored.get(case, True) and scored_b.get(case, True):
                kind, decision = (LOST, rule.WORSE) if caught_a else (GAINED, rule.BETTER)
            else:
                kind, decision = EDGE, rule.NOT_AVAILABLE
            out.changes.append({"allocator": allocator, "case": case, "kind": kind, "decision": decision,
                                "a": oa[case], "b": ob[case]})
    out.changes.sort(key=lambda c: rule.ORDER[c["decision"]])  # stable: worse first, in allocator and case order
    return out


def compare_safety(documents: list[dict], names: list[str], paths: list[str] | None = None) -> SafetyComparison:
    """The SafetyComparison of the two results documents (A first).  ResultsError when a section
    is damaged (safety.section)."""
    paths = paths or names
    return compare_sections(sf.section(documents[0], paths[0]), sf.section(documents[1], paths[1]), names)


def render(s: SafetyComparison) -> str:
    """The console text: the summary line, one line per change, the allocators of one run only;
    '' when neither run has a section."""
    if not s.compared_sections:
        return s.note + "\n" if s.note else ""
    lines = [s.summary()]
    for c in s.changes:
        what = f"{c['allocator']}, {c['case']}" if c["case"] else f"{c['allocator']}"
        lines.append(f"- {c['decision']}: {what}: {c['kind']}: {c['a']} → {c['b']}")
    for side, names in (("A", s.only_a), ("B", s.only_b)):
        if names:
            lines.append(f"- only in {side}'s battery (not compared): " + ", ".join(names))
    lines += [f"- not compared: {text}" for text in s.not_run]
    return "\n".join(lines) + "\n"
