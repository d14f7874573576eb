"""bench/strength.py, the generator of docs/strength.md, on tiny sizes: the page's
sections and tables, an interval in every figure, every bot of ``BOTS`` (a bot added to
``BOTS`` joins the ladder), the lay-down experiment's open arm is the tactician itself,
and bad sizes are refused with one line."""
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "strength.py"

pytestmark = pytest.mark.skipif(not SCRIPT.is_file(), reason="no bench/ beside tests/")

# no 4-player table with a search bot (whole Carousel games with three search seats cost a
# minute even at one game): --slow-table-games 0
TINY = ["--games", "3", "--slow-games", "2", "--table-games", "2", "--slow-table-games", "0",
        "--selfplay-games", "6", "--laydown-deals", "24", "--bootstrap", "10", "--jobs", "1"]


@pytest.fixture(scope="module")
def strength():
    spec = importlib.util.spec_from_file_location("strength_bench", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["strength_bench"] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def page(strength, tmp_path_factory):
    out = tmp_path_factory.mktemp("strength") / "strength.md"
    assert strength.main(TINY + ["--seed", "7", "--out", str(out)]) == 0
    return out.read_text(encoding="utf-8")


def _section(page: str, game: str, title: str) -> str:
    part = page.split(f"## {game}\n", 1)[1].split("\n## ", 1)[0]
    return part.split(f"### {title}", 1)[1].split("\n### ", 1)[0]


def _rows(section: str, first_table: bool = True) -> list[list[str]]:
    tables = re.findall(r"((?:^\|.*\|\n)+)", section + "\n", re.M)
    assert tables, "no table"
    lines = tables[0 if first_table else -1].strip().splitlines()[2:]
    return [[c.strip() for c in line.strip("|").split("|")] for line in lines]


_IV = re.compile(r"^[+-]?[\d,.]+ \[[+-]?[\d,.]+, [+-]?[\d,.]+\]$")
_NO_IV = re.compile(r"^[\d,.]+ \(too few games for an interval\)$")
_PCT = re.compile(r"^[\d.]+ % \[[\d.]+, [\d.]+\]$")


def test_the_page_names_its_command_seed_and_sizes(page):
    assert page.startswith("# Strength ladders")
    cmd = "python bench/strength.py " + " ".join(TINY) + " --seed 7 --out "
    assert cmd in page
    assert "`--seed 7`" in page and "SeedSequence(7, spawn_key=(g, c, k))" in page
    assert "`--slow-games 2`" in page and "`--games 3`" in page


def _ranked(strength):
    """Every bot of each game's ``BOTS``, less the names that play as another (ranked once)."""
    from rummy51.carousel.bots import BOTS as CBOTS
    from rummy51.r51.bots import BOTS as RBOTS

    out = []
    for game, key, reg in (("Rummy 51", "r51", RBOTS), ("Carousel", "carousel", CBOTS)):
        same = strength._aliases(key, list(reg))
        out.append((game, [b for b in reg if b not in same]))
    return out


def test_a_name_that_plays_as_another_is_ranked_once_and_said(strength, page):
    from rummy51.r51.bots import BOTS as RBOTS

    same = strength._aliases("r51", list(RBOTS))
    assert same == {"search-plain": "search"}     # the default search is the plain one
    assert "`search-plain` plays as `search` today" in page
    from rummy51.carousel.bots import BOTS as CBOTS

    # Carousel's default search is the learned-guided one
    assert strength._aliases("carousel", list(CBOTS)) == {"search-learned": "search"}
    assert "`search-learned` plays as `search` today" in page


def test_every_bot_has_a_rating_with_its_interval_and_its_speed(strength, page):
    for game, bots in _ranked(strength):
        rows = _rows(_section(page, game, "Two players: round robin"))
        assert sorted(r[1].strip("`") for r in rows) == sorted(bots)
        ratings = []
        for r in rows:
            if _NO_IV.match(r[2]):      # tiny sizes: a bootstrap may give no interval
                ratings.append(float(r[2].split()[0]))
                continue
            assert _IV.match(r[2]), r
            x, lo, hi = map(float, re.findall(r"[\d.]+", r[2]))
            assert lo <= x <= hi
            ratings.append(x)
            assert re.match(r"^[\d,.]+ (\[[\d,.]+, [\d,.]+\]|\(one chunk: no interval\))$", r[4]), r
        assert ratings == sorted(ratings, reverse=True)         # best first
        assert abs(np.mean(ratings) - 1500) < 1                 # the Elo scale's centre
        rows = _rows(_section(page, game, "Four players"))
        assert {r[1].strip("`") for r in rows} <= set(bots)
        for r in rows:
            assert (_IV.match(r[2]) or _NO_IV.match(r[2])) and _PCT.match(r[4]), r


def test_every_pair_has_its_paired_differences(strength, page):
    for game, bots in _ranked(strength):
        rows = _rows(_section(page, game, "Two players: paired differences"))
        assert len(rows) == len(bots) * (len(bots) - 1) // 2
        assert {frozenset((r[0].strip("`"), r[1].strip("`"))) for r in rows} == {
            frozenset((a, b)) for i, a in enumerate(bots) for b in list(bots)[i + 1:]}
        for r in rows:
            assert re.match(r"^[+-][\d.]+ pts \[[+-][\d.]+, [+-][\d.]+\]$", r[4]), r
            assert _IV.match(r[5]), r


def test_the_strategy_tables_have_intervals(page):
    lay = _section(page, "Rummy 51", "When to lay down")
    assert "Deals with a decision:" in lay
    rows = _rows(lay)
    assert rows[-1][0] == "all"
    for r in rows:
        assert r[1].replace(",", "").isdigit()
        assert "±" in r[2] or "n/a" in r[2]
        assert _PCT.match(r[6]), r
    knock = _section(page, "Carousel", "When to knock")
    assert "P(undercut)" in knock
    tables = re.findall(r"((?:^\|.*\|\n)+)", knock + "\n", re.M)
    assert tables, "no knock table at all"
    for t in tables:
        for line in t.strip().splitlines()[2:]:
            cells = [c.strip() for c in line.strip("|").split("|")]
            assert _PCT.match(cells[2]), cells


def test_the_open_arm_plays_as_the_tactician(strength):
    """The lay-down experiment's open arm is the tactician with a recorder: the same
    deals, the same scores (so the experiment's difference is the waiting decision)."""
    from rummy51.r51.bots import TacticianBot, play_deal
    from rummy51.rules import RuleSet

    res = strength._laydown({"lo": 0, "hi": 12, "entropy": 5})
    rows = {r["deal"]: r for r in res["rows"]}
    assert len(rows) == 12 and any(r["decision"] for r in rows.values())
    for d, r in rows.items():
        if not r["decision"]:
            continue
        seat = d % 2
        st = play_deal([TacticianBot(), TacticianBot()], RuleSet(),
                       seed=np.random.SeedSequence(5, spawn_key=(0, 3, d)), first=(d // 2) % 2)
        assert st.result.scores[seat] == r["score_open"]
        assert r["held"] >= 1 and 51 <= r["value"]


def test_a_bot_added_to_bots_joins_the_ladder(strength, monkeypatch, tmp_path):
    from rummy51.r51 import bots as rbots

    for name in [b for b in rbots.BOTS if b not in ("random", "greedy")]:
        monkeypatch.delitem(rbots.BOTS, name)       # a short list, for speed
    monkeypatch.setitem(rbots.BOTS, "greedy-too", rbots.GreedyBot)
    out = tmp_path / "s.md"
    strength.main(TINY + ["--only", "r51", "--slow", "greedy-too", "--out", str(out)])
    page = out.read_text(encoding="utf-8")
    assert "## Carousel" not in page
    rows = _rows(_section(page, "Rummy 51", "Two players: round robin"))
    assert {r[1].strip("`") for r in rows} == {"random", "greedy", "greedy-too"}
    assert "pairs with `greedy-too`" in page
    # --slow-table-games 0: the table seats the bots outside --slow among themselves
    assert "No 4-player table was played" not in page
    assert "(`random`, `greedy`, `random`, `greedy`): 2" in page


@pytest.mark.parametrize("game", ["r51", "carousel"])
def test_without_slow_tables_every_other_bot_sits_at_a_table(strength, game):
    from rummy51.carousel.bots import BOTS as CBOTS
    from rummy51.r51.bots import BOTS as RBOTS

    bots = list(RBOTS if game == "r51" else CBOTS)
    sizes = strength.Sizes(slow_table_games=0)
    tables = [j["bots"] for j in strength._jobs(game, bots, sizes, 0) if j["kind"] == "table"]
    seated = set(strength._table_bots(game, bots, 4)) - set(sizes.slow)
    assert tables and all(not set(t) & set(sizes.slow) for t in tables)
    assert {b for t in tables for b in t} == seated
    # with slow tables, the full plan: every seated bot, the slow ones too
    full = [j["bots"] for j in strength._jobs(game, bots, strength.Sizes(), 0) if j["kind"] == "table"]
    assert {b for t in full for b in t} == set(strength._table_bots(game, bots, 4))


def test_speed_interval(strength):
    res = {"job": {"games": 100}, "cpu": 2.0, "chunk_cpu": [0.5] * 4, "chunk_size": 25}
    rate, lo, hi = strength._speed(res)
    assert rate == 50 and lo == pytest.approx(50) and hi == pytest.approx(50)
    res["chunk_cpu"] = [0.4, 0.6, 0.4, 0.6]
    rate, lo, hi = strength._speed(res)
    assert lo < 50 < hi


@pytest.mark.parametrize("args, names", [
    (["--games", "0"], "--games"),
    (["--slow-games", "-3"], "--slow-games"),
    (["--table-games", "many"], "--table-games"),
    (["--laydown-deals", "1"], "--laydown-deals"),
    (["--jobs", "0"], "--jobs"),
    (["--slow", "nobody"], "--slow"),
])
def test_bad_sizes_are_refused_with_one_line(strength, capsys, args, names):
    with pytest.raises(SystemExit) as e:
        strength.main(args + ["--out", "-"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and names in err, err


def test_the_command_line_refuses_in_one_line():
    r = subprocess.run([sys.executable, str(SCRIPT), "--games", "0"], capture_output=True,
                       text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip() == "strength.py: argument --games: must be at least 1, got 0"
