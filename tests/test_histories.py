"""Bulk hand histories: ``simulate games --histories`` writes every play's JSON history
(JSON Lines, gzip) into the run directory; ``read_histories`` reads them back and every
one replays to its recorded result and the records' rows."""
import pytest

import rummy51
from rummy51 import GameState
from rummy51.cli import main
from rummy51.studies.games import GameStudy, read_histories


def test_histories_replay_to_the_records(tmp_path):
    out = tmp_path / "run"
    study = rummy51.simulate_games(games=12, chunk_size=5, seed=3, workers=1,
                                   bots="greedy,random,tactician", seats="rotate",
                                   histories=True, out=out, progress=False)
    hs = list(read_histories(out))
    assert len(hs) == 12 * 3 == len(study.records) // 3
    r = study.records
    for k, h in enumerate(hs):
        state = GameState.from_dict(h)            # replays, checks the recorded result
        chunk, rest = divmod(k, 5 * 3)
        n = min(5, 12 - chunk * 5)
        a, j = divmod(rest, n)
        deal = chunk * 5 + j
        rows = r[(r.deal == deal) & (r.arrangement == a)].sort_values("seat")
        assert list(rows.score) == list(state.result.scores)
    # the same records as a run without histories (the kernel may play that one)
    plain = rummy51.simulate_games(games=12, chunk_size=5, seed=3, workers=1,
                                   bots="greedy,random,tactician", seats="rotate", progress=False)
    assert plain.same_records(study)
    assert list(read_histories(out, chunks=[2])) == hs[30:]


def test_histories_need_a_run_directory_and_say_so(tmp_path, capsys):
    with pytest.raises(ValueError, match="give out"):
        rummy51.simulate_games(games=2, histories=True, progress=False)
    out = tmp_path / "plain"
    rummy51.simulate_games(games=4, chunk_size=2, seed=1, workers=1, out=out, progress=False)
    with pytest.raises(ValueError, match="without histories"):
        list(read_histories(out))


def test_cli_histories_and_a_damaged_file(tmp_path, capsys):
    out = tmp_path / "run"
    code = main(["simulate", "games", "--games", "6", "--chunk-size", "3", "--seed", "2",
                 "--bots", "greedy", "--players", "2", "--workers", "1", "--histories",
                 "--out", str(out), "--no-progress"])
    assert code == 0 and len(list(read_histories(out))) == 6
    (out / "histories" / "chunk-000001.jsonl.gz").write_bytes(b"not gzip")
    with pytest.raises(ValueError, match="chunk-000001.jsonl.gz is missing or damaged"):
        list(read_histories(out))
    assert GameStudy.load(out).deals_done == 6
