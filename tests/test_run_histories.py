"""Hand histories are part of their chunk: each history file's line count and checksum
are kept in its chunk file, verified on resume (a damaged or missing history makes its
chunk run again, the bad file kept aside) and on read (refused, naming the file: no
play is skipped or renumbered); ``histories`` is fixed when a run starts."""
import gzip
import json
import warnings

import pytest

from rummy51 import runs
from rummy51.analysis.carousel import read_carousel_histories
from rummy51.analysis.rummy51 import read_histories as read_r51_file
from rummy51.carousel.rules import CarouselRules
from rummy51.cli import main
from rummy51.studies.carousel import read_histories, simulate_carousel
from rummy51.studies.games import read_histories as read_games_histories
from rummy51.studies.games import simulate_games


def _carousel(path, **kw):
    args = dict(players=2, bots="greedy", games=4, rules=CarouselRules.for_players(2), seed=5,
                workers=1, chunk_size=2, progress=False)
    args.update(kw)
    return simulate_carousel(**args)


def _flip(path):
    """Alter one byte of the history text, recompressed (a whole, valid gzip file)."""
    data = bytearray(gzip.decompress(path.read_bytes()))
    i = data.index(b'"actions"') + 2
    data[i] = ord("A")
    path.write_bytes(gzip.compress(bytes(data)))


def _cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_chunk_file_vouches_for_its_histories(tmp_path):
    _carousel(tmp_path, out=tmp_path / "h", histories=True)
    run = runs.RunDir.open(tmp_path / "h", "carousel")
    for i in range(2):
        meta = runs.chunk_meta(run.chunk_path(i))
        lines = runs.read_histories_file(runs.histories_path(run.path, i), meta["histories"])
        assert meta["histories"]["lines"] == len(lines) == 2
        assert all(json.loads(x)["rules"]["players"] == 2 for x in lines)


@pytest.mark.parametrize("damage", ["flip", "truncate", "delete"])
def test_a_damaged_history_is_refused_on_read_and_played_again_on_resume(tmp_path, damage):
    out = tmp_path / "h"
    _carousel(tmp_path, out=out, histories=True)
    before = list(read_histories(out))
    f = runs.histories_path(out, 1)
    if damage == "flip":
        _flip(f)
    elif damage == "truncate":
        f.write_bytes(f.read_bytes()[:60])
    else:
        f.unlink()
    # on read: refused, naming the file (never a game skipped and the rest renumbered)
    with pytest.raises(ValueError, match="chunk-000001.jsonl.gz"):
        list(read_histories(out))
    with pytest.raises(ValueError, match="chunk-000001.jsonl.gz"):
        read_carousel_histories(out)
    # on resume: the chunk runs again, the same games
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        _carousel(tmp_path, resume=out)
    assert any("chunk-000001.jsonl.gz" in str(x.message) for x in w)
    assert list(read_histories(out)) == before
    assert read_carousel_histories(out) == before
    if damage != "delete":
        assert (f.parent / (f.name + ".damaged")).exists()


def test_cli_analyse_names_a_missing_history_instead_of_renumbering(tmp_path, capsys):
    out = tmp_path / "h"
    _carousel(tmp_path, out=out, histories=True)
    runs.histories_path(out, 0).unlink()
    code, _, err = _cli(capsys, "carousel", "analyse", out, "--game", 3, "--rollouts", 2)
    assert code == 2 and "chunk-000000.jsonl.gz is missing or damaged" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_histories_are_fixed_when_the_run_starts(tmp_path, capsys):
    plain = tmp_path / "p"
    _carousel(tmp_path, out=plain, games=2)
    code, _, err = _cli(capsys, "carousel", "simulate", "--resume", plain, "--histories",
                        "--no-progress")
    assert code == 2 and err.startswith("rummy51: error: --histories: ") and "without" in err
    assert len(err.strip().splitlines()) == 1
    assert not (plain / "histories").exists()
    with pytest.raises(ValueError, match="was run with hand histories"):
        h = tmp_path / "h"
        _carousel(tmp_path, out=h, games=2, histories=True)
        _carousel(tmp_path, resume=h, games=2, histories=False)
    # left out on resume: the run's own value
    _carousel(tmp_path, resume=tmp_path / "h", games=2)
    # the Rummy 51 games study alike
    g = tmp_path / "g"
    simulate_games(games=2, chunk_size=1, seed=1, workers=1, bots="greedy", players=2, out=g,
                   progress=False)
    code, _, err = _cli(capsys, "simulate", "games", "--resume", g, "--histories",
                        "--no-progress")
    assert code == 2 and "--histories: " in err and "without" in err


@pytest.mark.parametrize("argv", [
    ["carousel", "simulate", "--games", "2", "--bots", "greedy", "--players", "2"],
    ["simulate", "games", "--games", "2", "--bots", "greedy", "--players", "2"],
])
def test_histories_with_the_c_engine_are_refused(tmp_path, capsys, argv):
    code, _, err = _cli(capsys, *argv, "--histories", "--engine", "c", "--out", tmp_path / "x",
                        "--no-progress")
    assert code == 2 and "--engine c: the C game kernel writes no histories" in err
    assert not (tmp_path / "x").exists()


def test_rummy51_histories_of_a_run_directory(tmp_path, capsys):
    g = tmp_path / "g"
    simulate_games(games=4, chunk_size=2, seed=1, workers=1, bots="greedy", players=2, out=g,
                   histories=True, progress=False)
    hs = list(read_games_histories(g))
    assert read_r51_file(g) == hs and len(hs) == 4
    _flip(runs.histories_path(g, 1))
    with pytest.raises(ValueError, match="chunk-000001.jsonl.gz is damaged"):
        list(read_games_histories(g))
    code, _, err = _cli(capsys, "analyse", g, "--game", 0, "--rollouts", 2)
    assert code == 2 and "chunk-000001.jsonl.gz is damaged" in err
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        simulate_games(resume=g, progress=False, workers=1)
    assert list(read_games_histories(g)) == hs


def test_a_run_of_the_other_game_points_to_its_command(tmp_path, capsys):
    g = tmp_path / "g"
    simulate_games(games=2, chunk_size=2, seed=1, workers=1, bots="greedy", players=2, out=g,
                   histories=True, progress=False)
    c = tmp_path / "c"
    _carousel(tmp_path, out=c, games=2, histories=True)
    code, _, err = _cli(capsys, "carousel", "analyse", g)
    assert code == 2 and f"analyse it with rummy51 analyse {g}" in err
    code, _, err = _cli(capsys, "analyse", c)
    assert code == 2 and f"analyse it with rummy51 carousel analyse {c}" in err
