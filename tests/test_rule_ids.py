"""Every rule ID of RULES.md has a test, and the engine's list of rules matches the spec."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.rules import RULES

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT.parent / "shared" / "RULES.md"
ID = re.compile(r"\b(?:SN|SJ|SP|ST|CH|PJ|G|TM)-\d+\b")


def test_every_rule_id_has_a_test() -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").glob("test_*.py")
                     if p.name != Path(__file__).name)
    mentioned = set(ID.findall(text))
    missing = sorted(set(RULES) - mentioned, key=lambda r: (r.split("-")[0], int(r.split("-")[1])))
    assert missing == [], f"rule IDs without a test: {missing}"


@pytest.mark.skipif(not SPEC.exists(), reason="../shared/RULES.md is not beside this checkout")
def test_rule_list_matches_the_spec() -> None:
    spec_ids = set(re.findall(r"^- ((?:SN|SJ|SP|ST|CH|PJ|G|TM)-\d+)", SPEC.read_text(encoding="utf-8"), re.M))
    assert spec_ids == set(RULES)


def test_verdict_rules_are_known() -> None:
    """Every ``rule="..."`` literal in the referees names a rule of the spec."""
    used = set()
    for p in (ROOT / "engine" / "games").glob("*.py"):
        used |= set(re.findall(r"""["']((?:SN|SJ|SP|ST|CH|PJ|G|TM)-\d+)["']""", p.read_text(encoding="utf-8")))
    assert used, "no referee uses a rule ID"
    assert used <= set(RULES), sorted(used - set(RULES))
