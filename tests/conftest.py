"""Shared fixtures for the solver's tests.

* ``golden_case`` / ``golden_spelling``: every hand-worked case of tests/data/cases
  (``pytest_generate_tests`` parametrizes them, ids show the hand in text).
* ``ruleset``: the named rule-set variants of docs/rules.md (a module-scoped parametrized
  fixture, so hypothesis tests may use it too); ``rulesets``: all of them by name.
* ``seed``: seeds for seeded tests (scikit-learn's ``global_random_seed`` idea); a
  failing test shows its seed in the test id and in a report section.
* ``check_opening``: checks an ``Opening`` against its hand (melds valid, disjoint,
  from the hand, within ``keep``, jokers' stand-ins named, values adding up).
* ``describe``: a hand, its rules and options as one line of text, for failure messages.
* ``hand_strategies``: hypothesis strategies for random legal hands (see HandStrategies).
* ``reference_checks``: counts the hands compared with ``rummy51.reference``; the total
  is printed at the end of the run.

There is no ``--seed`` option: seeds come from parametrizations, hypothesis draws its own
(``derandomize=False``) and prints the failing example.
"""
from __future__ import annotations

import dataclasses
import itertools
import json
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import strategies as st

from rummy51 import RuleSet, reference
from rummy51.cards import JOKER, card_text, cards_text

CASES = Path(__file__).parent / "data" / "cases"
DEFAULT = RuleSet()

#: Every rule-set variant the solver tests run under (docs/rules.md options).
RULESETS: dict[str, RuleSet] = {
    "default": DEFAULT,
    "two-jokers": RuleSet(jokers=2),
    "ace-low-1": RuleSet(ace_low_value=1),
    "no-joker-melds": RuleSet(max_jokers_per_meld=0),
    "two-jokers-per-meld": RuleSet(max_jokers_per_meld=2),
    "joker-penalty-50": RuleSet(joker_penalty=50),
    "threshold-40": RuleSet(threshold=40),
    "no-high-ace": RuleSet(ace_high=False),
    "one-deck": RuleSet(decks=1),
    "gin": RuleSet.gin(),
}

#: Seeds of the seeded tests; any seed must do (tests never rely on a lucky one).
SEEDS = (0, 1, 2)


# --------------------------------------------------------------------------- golden cases
def _load(name: str) -> list[dict]:
    with open(CASES / name, encoding="utf-8") as f:
        return json.load(f)


def _rules_text(rules: RuleSet) -> str:
    """``RuleSet(jokers=2)``: only the fields that differ from the defaults."""
    diff = [f"{f.name}={getattr(rules, f.name)!r}" for f in dataclasses.fields(RuleSet)
            if getattr(rules, f.name) != getattr(DEFAULT, f.name)]
    return f"RuleSet({', '.join(diff)})"


def _case_id(case: dict, text: str | None = None) -> str:
    text = case["text"] if text is None else text
    rules = case.get("rules")
    extra = " " + ",".join(f"{k}={v}" for k, v in sorted(rules.items())) if rules else ""
    return f"{text or '(empty)'} keep={case['keep']}{extra}"


GOLDEN = _load("edge.json") + _load("variants.json")


def pytest_generate_tests(metafunc):
    if "golden_case" in metafunc.fixturenames:
        metafunc.parametrize("golden_case", GOLDEN, ids=[_case_id(c) for c in GOLDEN])
    if "golden_spelling" in metafunc.fixturenames:
        # (case, text): the case's text and every alt_text, each an accepted spelling
        pairs = [(c, t) for c in GOLDEN
                 for t in (c["text"], c.get("alt_text")) if t is not None]
        metafunc.parametrize("golden_spelling", pairs,
                             ids=[_case_id(c, t) for c, t in pairs])


@pytest.fixture(scope="session")
def golden_cases() -> list[dict]:
    """All golden cases, edge.json then variants.json."""
    return list(GOLDEN)


# --------------------------------------------------------------------------- rules, seeds
@pytest.fixture(scope="module", params=list(RULESETS.values()), ids=list(RULESETS))
def ruleset(request) -> RuleSet:
    """Each rule-set variant in turn."""
    return request.param


@pytest.fixture(scope="session")
def rulesets() -> dict[str, RuleSet]:
    return dict(RULESETS)


@pytest.fixture(params=SEEDS, ids=[f"seed={s}" for s in SEEDS])
def seed(request) -> int:
    """A seed for a seeded test; it shows in the test id and, on failure, in the report."""
    request.node.user_properties.append(("seed", request.param))
    return request.param


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        seeds = [v for k, v in item.user_properties if k == "seed"]
        if seeds:
            report.sections.append(("seed", f"this test ran with seed={seeds[-1]}"))


# --------------------------------------------------------------------------- descriptions
def describe_hand(codes, rules: RuleSet = DEFAULT, **options) -> str:
    """``'7S 8S JK | RuleSet(jokers=2) keep=1'``: a hand as text for failure messages."""
    codes = [int(c) for c in codes]
    opts = " ".join(f"{k}={card_text(v) if k == 'must_use' and v is not None else v}"
                    for k, v in options.items())
    text = cards_text(sorted(codes)) or "(empty)"
    return f"{text} | {_rules_text(rules)} {opts}".rstrip() + f" | codes={sorted(codes)}"


@pytest.fixture(scope="session")
def describe():
    return describe_hand


# --------------------------------------------------------------------------- opening checks
def _position_value(pos: int, rules: RuleSet) -> int:
    if pos == 1:
        return rules.ace_low_value
    if pos == 14:
        return rules.ace_value
    return min(pos, 10)


def represented_values(kind: str, represents, rules: RuleSet) -> set[int]:
    """The values of every reading of ``represents`` as a meld of ``kind`` (empty if none).

    Written from docs/rules.md sections 2-3 on its own, without the solver or the reference:
    a set is 3 or 4 cards of one rank and different suits; a run is 3 or more cards of
    one suit on consecutive positions A(low)=1, 2..K=13, A(high)=14 (14 only with
    ``ace_high``)."""
    reps = list(represents)
    if any(not 0 <= c < 52 for c in reps):
        return set()
    if kind == "set":
        ranks = {c % 13 for c in reps}
        suits = [c // 13 for c in reps]
        if 3 <= len(reps) <= 4 and len(ranks) == 1 and len(set(suits)) == len(suits):
            rank = reps[0] % 13 + 1
            return {len(reps) * (rules.ace_value if rank == 1 else min(rank, 10))}
        return set()
    if kind != "run" or len(reps) < 3 or len({c // 13 for c in reps}) != 1:
        return set()
    choices = []
    for c in reps:
        rank = c % 13 + 1
        choices.append((1, 14) if rank == 1 and rules.ace_high else (1,) if rank == 1 else (rank,))
    values = set()
    for positions in itertools.product(*choices):
        ordered = sorted(positions)
        if ordered == list(range(ordered[0], ordered[0] + len(ordered))):
            values.add(sum(_position_value(p, rules) for p in positions))
    return values


def check_opening(opening, codes, rules: RuleSet = DEFAULT, keep: int = 1,
                  must_use=None) -> None:
    """Assert that ``opening`` (a ``rummy51.Opening``) is a legal opening of ``codes``.

    Each meld is valid (``reference.meld_value`` of its naturals and joker count equals
    its value, and its ``represents`` read as a valid meld of that value), holds at most
    ``max_jokers_per_meld`` jokers with each stand-in named, the melds are disjoint and
    come from the hand, use at most ``len(hand) - keep`` cards, and add up to
    ``opening.value``; leftover + meld cards == hand."""
    codes = [int(c) for c in codes]
    where = describe_hand(codes, rules, keep=keep, must_use=must_use)
    hand = Counter(codes)
    used: Counter = Counter()
    total = 0
    for m in opening.melds:
        assert m.kind in ("run", "set"), where
        assert len(m.cards) == len(m.represents) >= 3, (m, where)
        naturals = [c for c in m.cards if c != JOKER]
        jokers = len(m.cards) - len(naturals)
        assert naturals, ("a meld needs a natural card", m, where)
        assert jokers <= rules.max_jokers_per_meld, (m, where)
        for card, rep in zip(m.cards, m.represents, strict=True):
            if card != JOKER:
                assert rep == card, ("a natural card stands for itself", m, where)
        # every joker's stand-in is a named natural card, shown in the meld's text
        assert len(m.jokers) == jokers, (m, where)
        for rep in m.jokers:
            assert 0 <= rep < 52, (m, where)
            assert f"JK({card_text(rep)})" in m.text(), (m.text(), where)
        assert m.value in represented_values(m.kind, m.represents, rules), (m, where)
        assert reference.meld_value(naturals, jokers, rules) == m.value, (m, where)
        used.update(m.cards)
        total += m.value
    assert not used - hand, ("melds use cards the hand does not hold", opening, where)
    assert sum(used.values()) <= max(len(codes) - keep, 0), (opening, where)
    assert total == opening.value, (opening, where)
    assert Counter(opening.leftover) + used == hand, (opening, where)
    assert list(opening.leftover) == sorted(opening.leftover), (opening, where)
    assert opening.can_open == (opening.value >= rules.threshold), (opening, where)
    if must_use is not None and opening.melds:
        assert used[must_use] > 0, ("the must-use card is not melded", opening, where)


@pytest.fixture(scope="session", name="check_opening")
def _check_opening_fixture():
    """``check_opening(opening, codes, rules, keep, must_use)``: see the function."""
    return check_opening


# --------------------------------------------------------------------------- strategies
class HandStrategies:
    """Hypothesis strategies for random legal hands (card-code lists, sorted).

    Every hand is drawn from the rule set's deck without replacement, so it never holds
    more copies of a card than ``rules.decks`` nor more jokers than ``rules.jokers``."""

    @staticmethod
    def dealt(rules: RuleSet, min_size: int = 0, max_size: int = 21):
        """Any cards of the deck: what a deal gives."""
        deck = [int(c) for c in rules.deck()]
        return st.lists(st.integers(0, len(deck) - 1), min_size=min_size,
                        max_size=min(max_size, len(deck)), unique=True).map(
            lambda idx: sorted(deck[i] for i in idx))

    @staticmethod
    @st.composite
    def meld_rich(draw, rules: RuleSet, min_size: int = 0, max_size: int = 21,
                  max_jokers: int = 4, max_noise: int = 3):
        """Cards from a narrow window of 3..7 ranks (wrapping past the king, so Q-K-A and
        the corner K-A-2 come up) in 1..4 suits, so that melds overlap and compete; plus
        0..``max_jokers`` jokers and a few other cards of the deck."""
        size = draw(st.integers(min_size, max_size))
        jokers = draw(st.integers(0, min(max_jokers, rules.jokers, size)))
        width = draw(st.integers(3, 7))
        low = draw(st.integers(0, 12))
        suits = draw(st.lists(st.integers(0, 3), min_size=1, max_size=4, unique=True))
        ranks = {(low + k) % 13 for k in range(width)}
        # widen the window until it holds enough cards for the size drawn
        while len(ranks) * len(suits) * rules.decks + jokers < size and len(ranks) < 13:
            ranks.add((low + len(ranks)) % 13)
        window = sorted(s * 13 + r for s in suits for r in ranks) * rules.decks
        others = [c for c in range(52) for _ in range(rules.decks)
                  if c // 13 not in suits or c % 13 not in ranks]
        n_noise = draw(st.integers(0, max(0, min(max_noise, size - jokers, len(others)))))
        n_window = min(size - jokers - n_noise, len(window))
        picks = draw(st.lists(st.integers(0, len(window) - 1), min_size=n_window,
                              max_size=n_window, unique=True))
        noise = draw(st.lists(st.integers(0, len(others) - 1), min_size=n_noise,
                              max_size=n_noise, unique=True))
        hand = [window[i] for i in picks] + [others[i] for i in noise] + [JOKER] * jokers
        return sorted(hand)

    @staticmethod
    @st.composite
    def rules(draw):
        """A RuleSet with every solver option drawn (values that change answers)."""
        decks = draw(st.sampled_from([1, 2]))
        return RuleSet(
            decks=decks,
            jokers=draw(st.sampled_from([0, 2, 4])),
            threshold=draw(st.sampled_from([20, 40, 51, 70])),
            ace_low_value=draw(st.sampled_from([1, 10, 15])),
            ace_value=draw(st.sampled_from([1, 10, 15])),
            ace_high=draw(st.booleans()),
            max_jokers_per_meld=draw(st.integers(0, 2)),
            joker_penalty=draw(st.sampled_from([20, 50])),
        )

    @staticmethod
    def keep():
        return st.integers(0, 2)

    @staticmethod
    def must_use(hand):
        """None, or a card of the hand (the card taken from the discard pile)."""
        return st.none() | st.sampled_from(hand) if hand else st.none()


@pytest.fixture(scope="session")
def hand_strategies() -> type[HandStrategies]:
    return HandStrategies


# --------------------------------------------------------------------------- reference count
_REFERENCE_CHECKS: Counter = Counter()


@pytest.fixture(scope="session")
def reference_checks() -> Counter:
    """``reference_checks[test_name] += 1`` for each hand compared with the reference."""
    return _REFERENCE_CHECKS


def pytest_terminal_summary(terminalreporter):
    if _REFERENCE_CHECKS:
        total = sum(_REFERENCE_CHECKS.values())
        terminalreporter.write_line(
            f"rummy51: {total} random hands compared with rummy51.reference ("
            + ", ".join(f"{k}: {v}" for k, v in sorted(_REFERENCE_CHECKS.items())) + ")")

