"""The learned-evaluator infrastructure, game-neutral (``rummy51.learned``, ``_net``): the
forward pass against numpy, the model file and its checks, training runs (determinism,
resume, bad sizes), on the toy game of ``learned_toy``."""
from __future__ import annotations

import json
import shutil
import zipfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import learned_toy  # noqa: F401  (registers the toy game)
from rummy51 import _net
from rummy51.learned import Model, ModelError, load_model, train
from rummy51.learned.fit import fold


def _model(nin=5, nh=7, seed=0, game="toy", fv=1):
    rng = np.random.default_rng(seed)
    return Model(game=game, feature_version=fv,
                 w1=rng.normal(size=(nin, nh)).astype(np.float32),
                 b1=rng.normal(size=nh).astype(np.float32),
                 w2=rng.normal(size=(2, nh)).astype(np.float32),
                 b2=rng.normal(size=2).astype(np.float32))


def _numpy_forward(m, X):
    h = np.maximum(X.astype(np.float64) @ m.w1 + m.b1, 0)
    return h @ m.w2.T.astype(np.float64) + m.b2


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(1, 64), st.integers(0, 2**32 - 1))
def test_the_c_forward_pass_is_the_network(nin, nh, seed):
    m = _model(nin, nh, seed)
    rng = np.random.default_rng(seed + 1)
    X = rng.integers(-3, 4, (9, nin)).astype(np.float32)
    X[rng.random(X.shape) < 0.5] = 0           # the kernel skips zero features
    out = _net.forward(m, X)
    ref = _numpy_forward(m, X)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4 * (1 + np.abs(ref).max()))
    margin, p = m.predict(X)
    np.testing.assert_array_equal(margin, out[:, 0])
    np.testing.assert_allclose(p, 1 / (1 + np.exp(-out[:, 1].astype(np.float64))))
    m1, p1 = m.predict(X[3])
    assert m1 == out[3, 0] and p1 == p[3]


def test_fold_puts_the_standardization_in_the_weights():
    rng = np.random.default_rng(3)
    W1, b1, W2, b2 = rng.normal(size=(4, 6)), rng.normal(size=6), rng.normal(size=(2, 6)), rng.normal(size=2)
    mu, sd = rng.normal(size=4), rng.random(4) + 0.5
    st_ = {"best_W1": W1, "best_b1": b1, "best_W2": W2, "best_b2": b2}
    w1, bb1, w2, bb2 = fold(st_, mu, sd, 7.0, 30.0)
    x = rng.integers(-4, 5, (5, 4)).astype(np.float64)
    h = np.maximum(((x - mu) / sd) @ W1 + b1, 0)
    want = h @ W2.T + b2
    want[:, 0] = want[:, 0] * 30.0 + 7.0
    m = Model("toy", 1, w1, bb1, w2, bb2)
    np.testing.assert_allclose(_net.forward(m, x), want, rtol=1e-4, atol=1e-3)


def test_a_model_file_round_trips(tmp_path):
    m = _model(3, 4)
    path = m.save(tmp_path / "toy.npz")
    back = load_model(path)
    for k in ("w1", "b1", "w2", "b2"):
        np.testing.assert_array_equal(getattr(back, k), getattr(m, k))
    assert back.sha256 == m.sha256 and back.meta["sha256"] == m.sha256
    assert back.meta["n_features"] == 3 and back.game == "toy"
    assert back.value([1, 0, 2]) == tuple(float(v) for v in back.predict([1, 0, 2]))


def _rewrite(path, **change):
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays["meta"][()]))
    for k, v in change.items():
        if k in arrays and k != "meta":
            arrays[k] = v
        else:
            meta[k] = v
    if "b1" in change and change["b1"].dtype == np.float32 and np.isnan(change["b1"]).any():
        from rummy51.learned.model import _digest  # a NaN with a matching checksum
        meta["sha256"] = _digest([arrays[k] for k in ("w1", "b1", "w2", "b2")])
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(path, **arrays)


@pytest.mark.parametrize("damage, words", [
    ("missing", "does not exist"),
    ("truncated", "is damaged or not a model file"),
    ("garbage", "is damaged or not a model file"),
    ("no_w2", "is not a rummy51 model (no w2)"),
    ("weights_changed", "fails its checksum"),
    ("float64", "b1 is float64, not float32"),
    ("format", "is not a rummy51 model"),
    ("format_version", "has model format 99"),
    ("feature_version", "feature version 2 (3 features), but this rummy51 computes version 1"),
    ("n_features", "features"),
    ("other_game", "no features registered for game 'chess'"),
    ("nan", "NaN"),
])
def test_a_bad_model_file_is_refused_in_one_line(tmp_path, damage, words):
    path = tmp_path / "toy.npz"
    m = _model(3, 4)
    m.save(path)
    if damage == "missing":
        path.unlink()
    elif damage == "truncated":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        path.write_bytes(b"not a zip at all")
    elif damage == "no_w2":
        with zipfile.ZipFile(path) as z:
            keep = {n: z.read(n) for n in z.namelist() if n != "w2.npy"}
        with zipfile.ZipFile(path, "w") as z:
            for n, b in keep.items():
                z.writestr(n, b)
    elif damage == "weights_changed":
        _rewrite(path, b1=m.b1 + np.float32(1))
    elif damage == "float64":
        _rewrite(path, b1=m.b1.astype(np.float64))
    elif damage == "format":
        _rewrite(path, format="something")
    elif damage == "format_version":
        _rewrite(path, format_version=99)
    elif damage == "feature_version":
        _rewrite(path, feature_version=2)
    elif damage == "n_features":
        _model(5, 4).save(path)
    elif damage == "other_game":
        _model(3, 4, game="chess").save(path)
    elif damage == "nan":
        _rewrite(path, b1=np.full(4, np.nan, np.float32))
    with pytest.raises(ModelError) as e:
        load_model(path)
    msg = str(e.value)
    assert "\n" not in msg and words in msg, msg
    assert str(path) in msg


def test_load_model_by_name_reads_the_model_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("RUMMY51_MODEL_DIR", str(tmp_path))
    with pytest.raises(ModelError, match=f"model file {tmp_path}/toy.npz does not exist"):
        load_model("toy")
    _model(3, 4).save(tmp_path / "toy.npz")
    assert load_model("toy").game == "toy"
    with pytest.raises(ModelError, match="a model for game 'toy', not 'r51'"):
        load_model(tmp_path / "toy.npz", game="r51")


def test_a_retrain_from_the_recorded_seed_gives_the_same_weights(tmp_path):
    a = train("toy", out=tmp_path / "a", seed=11, games=120, epochs=3, progress=False)
    tr = a.model.meta["training"]
    assert tr["seed"] == 11 and tr["games"] == 120 and tr["samples"] == 120 * 20
    assert tr["command"].startswith("rummy51 train toy --out")
    b = train("toy", out=tmp_path / "b", seed=tr["seed"], games=tr["games"], epochs=tr["epochs"],
              hidden=tr["fit"]["hidden"], batch=tr["fit"]["batch"], lr=tr["fit"]["lr"],
              chunk_size=50, data=tr["data"], progress=False, workers=2)
    assert a.model.sha256 == b.model.sha256
    c = train("toy", out=tmp_path / "c", seed=12, games=120, epochs=3, progress=False)
    assert c.model.sha256 != a.model.sha256
    assert load_model(tmp_path / "a" / "model.npz").sha256 == a.model.sha256


def test_a_killed_training_run_resumes_to_the_same_weights(tmp_path):
    whole = train("toy", out=tmp_path / "whole", seed=4, games=150, epochs=4, progress=False)

    class Kill(Exception):
        pass

    def stop(epoch, epochs, row):
        if epoch == 1:
            raise Kill

    with pytest.raises(Kill):
        train("toy", out=tmp_path / "cut", seed=4, games=150, epochs=4, progress=False,
              on_epoch=stop)
    mf = json.loads((tmp_path / "cut" / "manifest.json").read_text())
    assert mf["status"] == "interrupted"
    # a chunk file lost too: it is played again
    (tmp_path / "cut" / "chunks" / "chunk-000001.parquet").unlink()
    seen = []
    res = train(None, resume=tmp_path / "cut", progress=False,
                on_epoch=lambda e, n, row: seen.append(e))
    assert seen == [2, 3]
    assert res.model.sha256 == whole.model.sha256
    mf = json.loads((tmp_path / "cut" / "manifest.json").read_text())
    assert mf["status"] == "finished" and mf["model"]["sha256"] == whole.model.sha256


@pytest.mark.parametrize("kw, words", [
    ({"games": 0}, "games must be"),
    ({"games": -5}, "games must be"),
    ({"epochs": 0}, "epochs must be"),
    ({"hidden": 1000}, "hidden must be"),
    ({"lr": 5.0}, "lr must be"),
    ({"workers": 0}, "workers must be"),
    ({"seed": -1}, "seed must be >= 0"),
    ({"data": {"per_game": 0}}, "per_game must be >= 1"),
])
def test_train_refuses_nonsense_sizes(tmp_path, kw, words):
    with pytest.raises(ValueError, match=words):
        train("toy", out=tmp_path / "x", progress=False, **kw)


def test_train_refuses_an_unknown_game_and_a_used_directory(tmp_path):
    with pytest.raises(ValueError, match="train: no game 'chess'"):
        train("chess", out=tmp_path / "x", progress=False)
    train("toy", out=tmp_path / "y", seed=1, games=60, epochs=1, progress=False)
    with pytest.raises(ValueError, match="already holds a run"):
        train("toy", out=tmp_path / "y", seed=1, games=60, epochs=1, progress=False)
    shutil.rmtree(tmp_path / "y")
