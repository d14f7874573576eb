"""Monte Carlo studies: seeding, reproducibility, run directories, Dask, and the
estimates against an independent slow estimate (``rummy51.reference``)."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

import rummy51
from rummy51 import RuleSet, reference
from rummy51.runs import ChunkWarning, chunk_seed
from rummy51.stats import Z95, at_least, hist_mean, proportion, wilson
from rummy51.studies.odds import OddsResult, opening_odds
from rummy51.studies.openings import OpeningStudy, rule_sweep, simulate_openings

# a small study: 3 deal chunks (the last one short) and 3 by-turn chunks
SMALL = dict(deals=25_000, chunk_size=10_000, players=(3,), turns=6, turn_deals=600,
             turn_chunk_size=250, progress=False)


def small(**kw):
    args = dict(SMALL)
    args.update(kw)
    return simulate_openings(**args)


@pytest.fixture(scope="module")
def base():
    """The uninterrupted reference run of SMALL with seed 7."""
    return small(seed=7, workers=2)


def assert_same(a: OpeningStudy, b: OpeningStudy):
    assert a.same_counts(b)
    for name in ("hist", "goout", "first_open", "dealt"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


# --------------------------------------------------------------------------- statistics
def test_wilson_known_values():
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.403832, abs=1e-6) and hi == pytest.approx(0.596168, abs=1e-6)
    # 0 successes: lower end 0, upper end z^2 / (n + z^2)
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(Z95 ** 2 / (10 + Z95 ** 2))
    lo, hi = wilson(10, 10)
    assert hi == 1.0 and lo == pytest.approx(10 / (10 + Z95 ** 2))
    # Wilson (1927) / Newcombe (1998) table: 81 of 263 -> 0.2553 .. 0.3662
    lo, hi = wilson(81, 263)
    assert (round(float(lo), 4), round(float(hi), 4)) == (0.2553, 0.3662)


def test_wilson_vectorised_and_symmetric():
    k = np.array([[0, 3, 10], [5, 7, 20]])
    n = np.array([[10, 10, 10], [20, 20, 20]])
    lo, hi = wilson(k, n)
    assert lo.shape == hi.shape == (2, 3)
    for i in range(2):
        for j in range(3):
            l1, h1 = wilson(int(k[i, j]), int(n[i, j]))
            assert lo[i, j] == pytest.approx(float(l1)) and hi[i, j] == pytest.approx(float(h1))
    # the interval of k failures mirrors that of k successes
    lo2, hi2 = wilson(n - k, n)
    np.testing.assert_allclose(lo, 1 - hi2, atol=1e-12)
    assert np.all((lo <= k / n) & (k / n <= hi))
    # a wider z gives a wider interval
    lo99, hi99 = wilson(k, n, z=2.575829)
    assert np.all(lo99 <= lo) and np.all(hi99 >= hi)


def test_wilson_edge_cases():
    lo, hi = wilson(0, 0)
    assert math.isnan(lo) and math.isnan(hi)
    p, lo, hi = proportion([0, 1], [0, 4])
    assert math.isnan(p[0]) and p[1] == 0.25
    with pytest.raises(ValueError, match="k must not exceed n"):
        wilson(5, 4)
    with pytest.raises(ValueError, match="counts >= 0"):
        wilson(-1, 4)
    with pytest.raises(ValueError, match="z must be"):
        wilson(1, 4, z=0)


def test_hist_mean_and_at_least():
    rng = np.random.default_rng(3)
    values = rng.integers(0, 40, 5000)
    counts = np.bincount(values, minlength=50)
    mean, se = hist_mean(counts)
    assert mean == pytest.approx(values.mean())
    assert se == pytest.approx(values.std(ddof=1) / math.sqrt(values.size))
    ge = at_least(counts)
    assert ge[0] == values.size and ge[10] == (values >= 10).sum() and ge[45] == 0
    m2, s2 = hist_mean(np.stack([counts, counts]))
    np.testing.assert_allclose(m2, [mean, mean])


# --------------------------------------------------------------------------- seeding
def test_chunk_seed_is_the_spawned_child():
    root = np.random.SeedSequence(2026)
    kids = root.spawn(6)
    for i, kid in enumerate(kids):
        np.testing.assert_array_equal(chunk_seed(2026, (), i).generate_state(4),
                                      kid.generate_state(4))


def test_reproducible_for_any_thread_count(base):
    for threads in (1, 3):
        assert_same(small(seed=7, workers=threads), base)
    assert base.entropy == 7 and base.complete
    assert base.chunks == 6


def test_chunks_in_any_order_sum_to_the_study(base):
    from rummy51.studies._openings_plan import _compute_chunk, _Totals

    settings = base._settings()
    specs = settings.plan()
    totals = _Totals(settings)
    for spec in reversed(specs):
        totals.add(spec, _compute_chunk(spec)[0])
    for name, arr in totals.arrays().items():
        np.testing.assert_array_equal(arr, getattr(base, name))


def test_seed_forms(base):
    assert_same(small(seed=np.random.SeedSequence(7), workers=1), base)
    other = small(seed=8)
    assert not other.same_counts(base)
    fresh = small(seed=None)
    assert isinstance(fresh.entropy, int) and fresh.entropy > 2 ** 64
    assert_same(small(seed=fresh.entropy), fresh)
    g1 = small(seed=np.random.default_rng(5))
    g2 = small(seed=np.random.default_rng(5))
    assert g1.entropy == g2.entropy and g1.same_counts(g2)


def test_counts_are_consistent(base):
    assert base.deals_done.tolist() == [25_000]
    assert base.hist.shape == (1, 3, 4, 256)
    for k in range(3):
        assert base.hist[0, k].sum() == 25_000
    assert base.goout[0, 2].sum() == 0  # raw hands are not asked to go out
    assert base.dealt[0, 0, :3].sum(1).tolist() == [600] * 3
    assert base.dealt[0, 0, 3:].sum() == 0
    bt = base.by_turn()
    assert len(bt) == 3 * 6
    for _, g in bt.groupby("seat"):
        assert (np.diff(g.p_opened.to_numpy()) >= 0).all()
        assert (g.p_opened_lo <= g.p_opened).all() and (g.p_opened <= g.p_opened_hi).all()
    vd = base.value_distribution()
    first = vd[(vd.hand == "first") & (vd.jokers == "all")]
    assert first["count"].sum() == 25_000
    assert first.p_at_least.iloc[0] == 1.0
    assert (np.diff(first.p_at_least.to_numpy()) <= 0).all()
    s = base.summary()
    row = s[(s.hand == "first") & (s.jokers == "all")].iloc[0]
    assert row.p_open == pytest.approx(first[first.value == 51].p_at_least.iloc[0])
    by_j = s[(s.hand == "first") & (s.jokers != "all")]
    assert by_j.hands.sum() == 25_000 and by_j.share.sum() == pytest.approx(1.0)
    assert base.p_at_least(51)[0] == pytest.approx(row.p_open)


def test_sweeps_one_row_per_configuration():
    sweep = rule_sweep(jokers=[2, 4], threshold=[40, 51])
    assert list(sweep) == ["jokers=2 threshold=40", "jokers=2 threshold=51",
                           "jokers=4 threshold=40", "jokers=4 threshold=51"]
    study = simulate_openings(sweep, deals=4000, seed=1, players=(2, 3), turns=3,
                              turn_deals=100, progress=False)
    ov = study.overview()
    assert list(ov.config) == list(sweep) and len(ov) == 4
    # a lower threshold opens more often, with the same deck
    p = dict(zip(ov.config, ov.p_open_first, strict=True))
    assert p["jokers=4 threshold=40"] > p["jokers=4 threshold=51"]
    bt = study.by_turn()
    assert set(bt.players) == {2, 3}
    assert len(bt) == 4 * (2 + 3) * 3
    assert list(rule_sweep(["default", "gin"])) == ["default", "gin"]
    presets = simulate_openings(["default", "gin"], deals=2000, seed=1, players=(), progress=False)
    assert presets.labels == ("default", "gin") and presets.rules[1] == RuleSet.gin()


def test_only_first_hand_and_no_turns():
    s = simulate_openings(deals=5000, seed=3, hands="first", players=(), progress=False)
    assert s.hands == ("first",) and s.players == ()
    assert s.hist[0, 1:].sum() == 0
    assert len(s.summary(by_jokers=False)) == 1 and s.by_turn().empty


@pytest.mark.parametrize("kwargs, match", [
    (dict(deals=-1), "deals must be >= 0"),
    (dict(deals=1.5), "deals must be a whole number"),
    (dict(players=7), "players must be 1..6"),
    (dict(players=(2, 2)), "players: 2 appears twice"),
    (dict(hands="first,fourth"), "'fourth' is not a hand"),
    (dict(workers=0), "workers must be 1..1024"),
    (dict(threads=0), "threads must be 1..1024"),       # the old name (deprecated)
    (dict(chunk_size=0), "chunk_size must be >= 1"),
    (dict(turns=0), "turns must be 1..10000"),
    (dict(backend="spark"), "backend must be 'local' or 'dask'"),
    (dict(scheduler="tcp://127.0.0.1:1"), "scheduler is only used with backend='dask'"),
    (dict(seed=-3), "seed must be >= 0"),
    (dict(seed="x"), "seed must be an int"),
    (dict(deals=0, players=()), "nothing to simulate"),
    (dict(rules=RuleSet.gin(), players=6), "6 hands of 10 cards do not fit"),
    (dict(rules=[RuleSet(), RuleSet()]), "appears twice"),
    (dict(chunk_format="xlsx", out="x"), "chunk_format must be"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        simulate_openings(**{"deals": 10, "progress": False, **kwargs})


# --------------------------------------------------------------------------- run directories
class Stop(Exception):
    pass


def stop_after(k):
    def hook(index, done, total):
        if done >= k:
            raise Stop(f"stopped after {done} of {total}")
    return hook


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_interrupted_run_resumes_to_the_same_totals(tmp_path, base, fmt):
    d = tmp_path / "run"
    with pytest.raises(Stop):
        small(seed=7, workers=2, out=d, chunk_format=fmt, on_chunk=stop_after(2))
    manifest = json.loads((d / "manifest.json").read_text())
    assert manifest["status"] == "interrupted"
    done = manifest["chunks"]["done_count"]
    files = sorted((d / "chunks").glob(f"chunk-*.{fmt}"))
    assert 2 <= done == len(files) < 6
    assert not (d / "results.json").exists()
    with pytest.raises(ValueError, match="not finished"):
        OpeningStudy.load(d)
    part = OpeningStudy.load(d, partial=True)
    assert part.chunks_done == done and not part.complete
    # resume with other threads and no settings: they come from the manifest
    resumed = simulate_openings(resume=d, workers=1, progress=False)
    assert_same(resumed, base)
    assert resumed.complete and resumed.entropy == 7
    manifest = json.loads((d / "manifest.json").read_text())
    assert manifest["status"] == "finished" and manifest["chunks"]["done"] == [[0, 5]]
    assert len(manifest["sessions"]) == 2
    # every file the first session finished is still there, untouched
    assert all(f.exists() for f in files)
    loaded = OpeningStudy.load(d)
    assert_same(loaded, base)
    assert loaded.summary().equals(base.summary())
    for name in ("summary.csv", "value_distribution.csv", "by_turn.csv", "results.json"):
        assert (d / name).stat().st_size > 0


def test_keyboard_interrupt_keeps_finished_chunks(tmp_path, base):
    d = tmp_path / "run"

    def ctrl_c(index, done, total):
        if done == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        small(seed=7, workers=1, out=d, on_chunk=ctrl_c)
    assert len(list((d / "chunks").glob("chunk-*"))) == 3
    assert_same(simulate_openings(resume=d, seed=7, deals=25_000, progress=False), base)
    # a finished run resumes to the same totals again, computing nothing
    again = simulate_openings(resume=d, progress=False)
    assert_same(again, base)


def test_resume_refuses_other_settings(tmp_path):
    d = tmp_path / "run"
    with pytest.raises(Stop):
        small(seed=7, out=d, on_chunk=stop_after(1))
    with pytest.raises(ValueError, match=r"it was run with deals = 25000, not 30000"):
        simulate_openings(resume=d, deals=30_000, progress=False)
    with pytest.raises(ValueError, match=r"rules.jokers = 4, not 2"):
        simulate_openings(resume=d, rules={"default": RuleSet(jokers=2)}, progress=False)
    with pytest.raises(ValueError, match="seed entropy 7, not 8"):
        simulate_openings(resume=d, seed=8, progress=False)
    with pytest.raises(ValueError, match="players = 3, not 4"):
        simulate_openings(resume=d, players=4, progress=False)
    with pytest.raises(ValueError, match="already holds a run"):
        small(seed=7, out=d)
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "x.txt").write_text("x")
    with pytest.raises(ValueError, match="not an empty directory"):
        small(seed=7, out=tmp_path / "junk")
    with pytest.raises(ValueError, match="has no manifest.json"):
        simulate_openings(resume=tmp_path / "junk", progress=False)
    # an edited manifest is refused, not trusted
    m = json.loads((d / "manifest.json").read_text())
    m["settings"]["deals"] = 99
    (d / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(ValueError, match="do not match their hash"):
        simulate_openings(resume=d, progress=False)


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_damaged_chunk_is_run_again(tmp_path, base, fmt):
    d = tmp_path / "run"
    small(seed=7, out=d, chunk_format=fmt)
    chunks = sorted((d / "chunks").glob(f"chunk-*.{fmt}"))
    # truncate one file, alter a count in another, and leave a stale temp file
    data = chunks[1].read_bytes()
    chunks[1].write_bytes(data[: len(data) // 2])
    if fmt == "csv":
        lines = chunks[4].read_text().splitlines()
        a, i, v = lines[5].split(",")
        lines[5] = f"{a},{i},{int(v) + 1}"
        chunks[4].write_text("\n".join(lines) + "\n")
    else:
        chunks[4].write_bytes(b"PAR1 not really")
    (d / "chunks" / f".chunk-000002.{fmt}.tmp-1-2").write_text("partial")
    with pytest.warns(ChunkWarning) as rec:
        resumed = simulate_openings(resume=d, progress=False)
    assert_same(resumed, base)
    msgs = " ".join(str(w.message) for w in rec)
    assert "chunk 1" in msgs and "chunk 4" in msgs
    assert (d / "chunks" / (chunks[1].name + ".damaged")).exists()
    assert (d / "chunks" / (chunks[4].name + ".damaged")).exists()
    assert not list((d / "chunks").glob(".chunk-*"))
    assert len(list((d / "chunks").glob(f"chunk-*.{fmt}"))) == 6


def test_chunk_from_another_run_is_refused(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    small(seed=7, out=a, chunk_format="csv")
    with pytest.raises(Stop):
        small(seed=8, out=b, chunk_format="csv", on_chunk=stop_after(1), workers=1)
    # copy a's chunk 2 into b: same index, other seed
    (b / "chunks" / "chunk-000002.csv").write_bytes((a / "chunks" / "chunk-000002.csv").read_bytes())
    with pytest.warns(ChunkWarning, match="other settings"):
        res = simulate_openings(resume=b, progress=False)
    assert_same(res, small(seed=8))


def test_save_and_load_without_chunks(tmp_path, base):
    base.save(tmp_path / "saved")
    loaded = OpeningStudy.load(tmp_path / "saved")
    assert_same(loaded, base)
    data = json.loads((tmp_path / "saved" / "results.json").read_text())
    assert data["meta"]["seed"]["entropy"] == 7
    assert {r["hand"] for r in data["summary"]} == {"first", "other", "raw"}


# --------------------------------------------------------------------------- dask
@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed")
    import logging

    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                       silence_logs=logging.ERROR)
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def test_dask_local_cluster_equals_local(dask_client, base, tmp_path):
    res = small(seed=7, backend="dask", scheduler=dask_client)
    assert_same(res, base)
    assert res.backend == "dask" and res.workers == 2
    # by address, with a run directory written on the client side
    addr = dask_client.scheduler.address
    assert addr.startswith("tcp://127.0.0.1:")
    res2 = small(seed=7, backend="dask", scheduler=addr, out=tmp_path / "d")
    assert_same(res2, base)
    assert_same(OpeningStudy.load(tmp_path / "d"), base)


def test_dask_own_local_cluster(base):
    pytest.importorskip("distributed")
    res = simulate_openings(deals=25_000, chunk_size=10_000, players=(), seed=7, workers=2,
                            backend="dask", progress=False)
    np.testing.assert_array_equal(res.hist, base.hist)
    np.testing.assert_array_equal(res.goout, base.goout)


# --------------------------------------------------------------------------- vs the reference
def five_se(p1, n1, p2, n2):
    """5 standard errors of the difference of two independent proportions (pooled)."""
    p = (p1 * n1 + p2 * n2) / (n1 + n2)
    return 5 * math.sqrt(max(p * (1 - p), 1 / (n1 + n2)) * (1 / n1 + 1 / n2))


@pytest.fixture(scope="module")
def big():
    return simulate_openings(deals=200_000, seed=11, players=(), progress=False)


def test_estimates_agree_with_the_reference_solver(big, reference_checks):
    rules = RuleSet()
    n = 2000
    hands15 = rummy51.deal(n, 15, seed=2027)
    values = np.array([reference.best_opening([int(c) for c in h], rules) for h in hands15])
    outs = np.array([reference.can_go_out([int(c) for c in h], rules) for h in hands15])
    hands14 = rummy51.deal(1000, 14, seed=2028)
    raw = np.array([reference.best_opening([int(c) for c in h], rules) for h in hands14])
    reference_checks["montecarlo"] += 2 * n + len(hands14)
    s = big.summary(by_jokers=False).set_index("hand")
    N = int(big.deals_done[0])
    for hand in ("first", "other"):  # both are 15 random cards of the deck
        p_ref = (values >= 51).mean()
        assert abs(s.loc[hand, "p_open"] - p_ref) < five_se(s.loc[hand, "p_open"], N, p_ref, n), hand
        g_ref = outs.mean()
        assert abs(s.loc[hand, "p_go_out"] - g_ref) < five_se(s.loc[hand, "p_go_out"], N, g_ref, n)
        se = math.hypot(s.loc[hand, "mean_best_se"], values.std(ddof=1) / math.sqrt(n))
        assert abs(s.loc[hand, "mean_best"] - values.mean()) < 5 * se
    p_raw = (raw >= 51).mean()
    assert abs(s.loc["raw", "p_open"] - p_raw) < five_se(s.loc["raw", "p_open"], N, p_raw, len(raw))
    # P(best >= x) for several x
    for x in (30, 40, 60, 70):
        p, _, _ = big.p_at_least(x)
        q = (values >= x).mean()
        assert abs(p - q) < five_se(p, N, q, n), x


def test_small_hands_agree_with_the_reference_on_going_out(reference_checks):
    # 4-card hands with 16 jokers: going out at once (3 cards in a meld) is common
    # enough (about 13 %) to test its counting well, and joker classes are all busy
    rules = RuleSet(hand_size=3, threshold=10, jokers=16)
    study = simulate_openings(rules, deals=100_000, seed=5, players=(), progress=False)
    n = 2500
    hands = rummy51.deal(n, 4, rules=rules, seed=99)
    vals = np.array([reference.best_opening([int(c) for c in h], rules) for h in hands])
    outs = np.array([reference.can_go_out([int(c) for c in h], rules) for h in hands])
    reference_checks["montecarlo"] += 2 * n
    s = study.summary(by_jokers=True)
    row = s[(s.hand == "first") & (s.jokers == "all")].iloc[0]
    N = 100_000
    assert 0.05 < outs.mean() < 0.5
    assert abs(row.p_go_out - outs.mean()) < five_se(row.p_go_out, N, outs.mean(), n)
    assert abs(row.p_open - (vals >= 10).mean()) < five_se(row.p_open, N, (vals >= 10).mean(), n)
    jokers = (hands == 52).sum(1)
    for j, name in ((0, "0"), (1, "1")):
        r = s[(s.hand == "first") & (s.jokers == name)].iloc[0]
        sel = jokers == j
        q = outs[sel].mean()
        assert abs(r.p_go_out - q) < five_se(r.p_go_out, r.hands, q, sel.sum()), name
        assert abs(r.share - sel.mean()) < five_se(r.share, N, sel.mean(), n), name


def test_by_turn_first_turn_matches_the_deal_study(big):
    study = simulate_openings(deals=0, players=(4,), turns=2, turn_deals=10_000, seed=3,
                              progress=False)
    bt = study.by_turn()
    s = big.summary(by_jokers=False).set_index("hand")
    N = int(big.deals_done[0])
    for seat, hand in ((1, "first"), (2, "other"), (4, "other")):
        r = bt[(bt.seat == seat) & (bt.turn == 1)].iloc[0]
        assert abs(r.p_opened - s.loc[hand, "p_open"]) < five_se(r.p_opened, r.deals,
                                                                 s.loc[hand, "p_open"], N)


# --------------------------------------------------------------------------- hand odds
OPENS = "6S 7S 8S 10D 10C 10H 2C 5D 9C KH 3S 4H QD JC"      # 21 + 30 = 51 already


def test_odds_hand_that_opens_is_certain():
    res = opening_odds(OPENS, draws=3, samples=2000, seed=1)
    assert res.p_open.tolist() == [1.0, 1.0, 1.0, 1.0]
    tab = res.table()
    assert list(tab.draws) == [0, 1, 2, 3] and tab.p_open_lo.iloc[0] > 0.99


def test_odds_cumulative_and_reproducible():
    hand = "6S 7S 8S 10D 10C 2H 3D 5C 9H KS QD 4C 8H AH"
    a = opening_odds(hand, seen="10H JK", draws=6, samples=20_000, seed=4, workers=1)
    b = opening_odds(hand, seen="10H JK", draws=6, samples=20_000, seed=4, workers=2,
                     chunk_size=25_000)
    np.testing.assert_array_equal(a.first_open, b.first_open)
    np.testing.assert_array_equal(a.first_out, b.first_out)
    assert (np.diff(a.p_open) >= 0).all() and (np.diff(a.p_go_out) >= 0).all()
    assert a.first_open.sum() == a.first_out.sum() == 20_000
    assert a.p_open[0] == 0 and a.p_open[-1] > 0.2
    assert a.unseen == 108 - 14 - 2


def test_odds_seen_cards_leave_the_pool():
    # without jokers, one draw opens (at 45) only with 4C or 7C: KKK (30) + 5C 6C
    rules = RuleSet(jokers=0, threshold=45)
    hand = "KS KH KD 5C 6C 2D 9H JS"
    free = opening_odds(hand, draws=1, samples=40_000, rules=rules, seed=2)
    p = 4 / 96
    assert free.unseen == 96
    assert abs(free.p_open[1] - p) < 5 * math.sqrt(p * (1 - p) / 40_000)
    gone = opening_odds(hand, seen="4C 4C 7C 7C", draws=1, samples=5_000, rules=rules, seed=2)
    assert gone.unseen == 92 and gone.p_open[1] == 0.0


@pytest.mark.parametrize("kwargs, match", [
    (dict(hand="7S 7S 7S"), "3 copies of 7S"),
    (dict(hand="7S 8S 9S", seen="7S 7S"), "seen cards overlap the hand"),
    (dict(hand="7S 8S JK JK JK", seen="JK JK"), "together hold 5 jokers, but the deck has 4"),
    (dict(hand="7S 11S"), "the jack is written J or 12"),
    (dict(hand=""), "hand is empty"),
    (dict(hand="7S 8S", draws=107), "draws must be at most 106"),
    (dict(hand="7S 8S", draws=-1), "draws must be >= 0"),
    (dict(hand="7S 8S", samples=0), "samples must be >= 1"),
])
def test_odds_bad_arguments(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        opening_odds(**kwargs)


def test_odds_save_and_load(tmp_path):
    res = opening_odds(OPENS, seen="AS", draws=2, samples=1000, seed=9)
    res.save(tmp_path / "odds")
    back = OddsResult.load(tmp_path / "odds")
    np.testing.assert_array_equal(back.first_open, res.first_open)
    assert back.hand == res.hand and back.seen == res.seen and back.entropy == 9
    assert back.table().equals(res.table())
    with pytest.raises(ValueError, match="holds an 'odds' run"):
        OpeningStudy.load(tmp_path / "odds")


def test_odds_fast_enough_to_be_interactive():
    # the target is 100,000 samples of K = 5 in under a second; a loose check here
    res = opening_odds("6S 7S 8S 10D 10C 2H 3D 5C 9H KS QD 4C 8H AH", draws=5,
                       samples=100_000, seed=1)
    assert res.elapsed < 5


def test_overview_of_a_by_turn_only_study():
    # deals=0: only the by-turn part; the overview still has one row per configuration
    study = simulate_openings(deals=0, players=(2,), turn_deals=50, seed=3, progress=False)
    table = study.overview()
    assert len(table) == 1 and table["deals"].iloc[0] == 0
