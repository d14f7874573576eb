"""bench/tables.py, the generator of the strong-play tables of docs/carousel.md and
docs/games.md, on tiny sizes into temporary copies of the pages: every block is written
between its markers and nothing outside them moves, a rerun replaces the blocks (and
gives the same seeded tables), the command beside a run plays the same records, the
clustered intervals reduce to Wilson's and the plain standard error where they should,
and a page without its markers or a bad size is refused with one line."""
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "tables.py"

pytestmark = pytest.mark.skipif(not SCRIPT.is_file(), reason="no bench/ beside tests/")

TINY = ["--car-search", "2", "--car-table", "1", "--car-self", "1", "--car-greedy", "3",
        "--r51-search", "3", "--r51-table", "1", "--r51-base", "6", "--laydown-deals", "30",
        "--laydown-rollouts", "4", "--jobs", "1", "--seed", "11"]


@pytest.fixture(scope="module")
def tables():
    spec = importlib.util.spec_from_file_location("tables_bench", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["tables_bench"] = mod
    spec.loader.exec_module(mod)
    return mod


def _copy_docs(dst: Path) -> Path:
    dst.mkdir(parents=True, exist_ok=True)
    for name in ("carousel.md", "games.md"):
        shutil.copy(ROOT / "docs" / name, dst / name)
    return dst


@pytest.fixture(scope="module")
def pages(tables, tmp_path_factory):
    docs = _copy_docs(tmp_path_factory.mktemp("docs"))
    before = {n: (docs / n).read_text(encoding="utf-8") for n in ("carousel.md", "games.md")}
    assert tables.main(TINY + ["--docs", str(docs)]) == 0
    after = {n: (docs / n).read_text(encoding="utf-8") for n in before}
    return docs, before, after


def _block(tables, text: str, name: str) -> str:
    b, e = tables._BEGIN.format(name=name), tables._END.format(name=name)
    assert text.count(b) == 1 and text.count(e) == 1, name
    return text.split(b, 1)[1].split(e, 1)[0]


def _outside(tables, text: str) -> str:
    for names in tables.BLOCKS.values():
        for name in names:
            b, e = tables._BEGIN.format(name=name), tables._END.format(name=name)
            text = re.sub(re.escape(b) + ".*?" + re.escape(e), b + e, text, flags=re.S)
    return text


def _tables(block: str) -> list[list[list[str]]]:
    found = re.findall(r"((?:^\|.*\|\n)+)", block + "\n", re.M)
    return [[[c.strip() for c in line.strip("|").split("|")] for line in t.strip().splitlines()[2:]]
            for t in found]


def test_every_block_is_written_between_its_markers_and_nothing_else_moves(tables, pages):
    _, before, after = pages
    for page, names in tables.BLOCKS.items():
        assert _outside(tables, after[page]) == _outside(tables, before[page])
        for name in names:
            block = _block(tables, after[page], name)
            assert "not generated yet" not in block
            assert "python bench/tables.py " + " ".join(TINY[:4]) in block
            assert _tables(block), f"{name}: no table"


def test_the_headline_tables_hold_every_run_with_its_command_and_intervals(tables, pages):
    _, _, after = pages
    car = _block(tables, after["carousel.md"], "carousel-strong")
    r51 = _block(tables, after["games.md"], "r51-strong")
    for rid in ("C1", "C2", "C3", "C4", "C5"):
        assert f"| {rid} | `rummy51 carousel simulate --players" in car
    for rid in ("R1", "R2", "R3", "R4", "R5", "R6", "R7"):
        assert f"| {rid} | `rummy51 simulate games --players" in r51
    # who wins by seat: one row per arrangement (2 for permute, 4 for rotate), every
    # cell a rate with its interval
    seats = [t for t in _tables(car) if t and t[0][0] == "C1.0"][0]
    assert [r[0] for r in seats] == ["C1.0", "C2.0", "C2.1", "C3.0"]
    iv = re.compile(r"^\w+: [\d.]+ % \[[\d.]+, [\d.]+\]$")
    assert all(iv.match(c) for r in seats for c in r[3:])
    four = [t for t in _tables(car) if t and t[0][0] == "C4.0"][0]
    assert [r[0] for r in four] == ["C4.0", "C5.0", "C5.1", "C5.2", "C5.3"]
    assert "stock" in car and "undercut" in car
    assert "search` − `greedy`" in car and "search` − `tactician`" in r51
    assert "won by hand" in r51 and "deal length" in r51


def test_the_knock_and_laydown_tables(tables, pages):
    _, _, after = pages
    knock = _block(tables, after["carousel.md"], "carousel-knock")
    assert "Knocks by `search`, search against search" in knock
    assert "Knocks by `search`, search against greedy" in knock
    assert "Knocks by `greedy`, greedy against search" in knock
    lay = _block(tables, after["games.md"], "r51-laydown")
    m = re.search(r"Deals with such a chance: ([\d,]+) of 30", lay)
    assert m and int(m.group(1)) > 1
    rows = _tables(lay)[0]
    assert rows[-1][0] == "all" and int(rows[-1][1]) == int(m.group(1))
    assert sum(int(r[1]) for r in rows[:-1]) <= int(m.group(1))


def test_a_rerun_replaces_the_blocks_with_the_same_seeded_tables(tables, pages, tmp_path):
    docs, _, after = pages
    again = _copy_docs(tmp_path)
    shutil.copy(docs / "games.md", again / "games.md")
    assert tables.main(TINY + ["--docs", str(again), "--only", "r51"]) == 0
    text = (again / "games.md").read_text(encoding="utf-8")
    assert _outside(tables, text) == _outside(tables, after["games.md"])
    for name in tables.BLOCKS["games.md"]:
        old, new = _block(tables, after["games.md"], name), _block(tables, text, name)
        # the CPU times differ (the runs table); every seeded table is the same
        strip = lambda s: [t for t in _tables(s) if not t or t[0][0] != "R1"]  # noqa: E731
        assert strip(new) == strip(old) and len(strip(new)) >= 3
    # carousel.md was not asked for: untouched
    assert (again / "carousel.md").read_text(encoding="utf-8") == \
        (ROOT / "docs" / "carousel.md").read_text(encoding="utf-8")


def test_the_command_beside_a_run_plays_the_same_records(tables, tmp_path):
    from rummy51.studies.carousel import CarouselStudy
    from rummy51.studies.games import GameStudy

    sizes = tables.Sizes(car_greedy=3, r51_base=5, seed=11)
    jobs = {j["id"]: j for j in tables._plan(sizes, ["carousel", "r51"])}
    for rid, cls in (("C1", CarouselStudy), ("R3", GameStudy)):
        job = jobs[rid]
        out = tmp_path / rid
        cmd = job["command"].replace("rummy51 ", f"{sys.executable} -m rummy51 ", 1)
        subprocess.run(cmd.split() + ["--workers", "1", "--out", str(out)], check=True,
                       capture_output=True, cwd=tmp_path)
        mine = tables._run(job)["study"]
        assert cls.load(out).records.reset_index(drop=True).equals(
            mine.records.reset_index(drop=True))


def test_clustered_intervals_reduce_to_the_plain_ones(tables):
    from rummy51.stats import proportion

    rng = np.random.default_rng(3)
    k = (rng.random(200) < 0.3).astype(int)
    n = np.ones_like(k)
    p, lo, hi, deff = tables._cluster_prop(k, n)
    # clusters of one: Wilson on N/(N-1)-corrected counts, the design effect C/(C-1)
    assert deff == pytest.approx(200 / 199)
    q, wlo, whi = proportion(k.sum() * 199 / 200, 199)
    assert (p, lo, hi) == pytest.approx((float(q), float(wlo), float(whi)))
    # every cluster twice over (two perfectly correlated copies): the same interval
    p2, lo2, hi2, deff2 = tables._cluster_prop(2 * k, 2 * n)
    assert deff2 == pytest.approx(2 * deff)
    assert (p2, lo2, hi2) == pytest.approx((p, lo, hi))
    # no undercut at all: no design effect can be estimated, Wilson on all knocks
    assert tables._cluster_prop(np.zeros(5), np.full(5, 3))[1:] == pytest.approx(
        (0.0, float(proportion(0, 15)[2]), 1.0))
    x = rng.normal(size=50)
    m, se = tables._cluster_mean(x, np.ones(50))
    assert m == pytest.approx(x.mean())
    assert se == pytest.approx(x.std(ddof=1) / np.sqrt(50))


def test_a_page_without_its_markers_is_refused_before_any_game(tables, tmp_path, capsys):
    docs = _copy_docs(tmp_path)
    (docs / "games.md").write_text("# no markers\n", encoding="utf-8")
    with pytest.raises(SystemExit) as e:
        tables.main(TINY + ["--docs", str(docs)])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "lacks the markers" in err and "r51-strong" in err


@pytest.mark.parametrize("args, flag", [(["--car-search", "0"], "--car-search"),
                                        (["--laydown-rollouts", "1"], "--laydown-rollouts"),
                                        (["--jobs", "x"], "--jobs")])
def test_bad_sizes_are_refused_with_one_line(tables, capsys, args, flag):
    with pytest.raises(SystemExit) as e:
        tables.main(args)
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith(f"tables.py: argument {flag}:")
