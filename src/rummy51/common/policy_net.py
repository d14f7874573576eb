"""A trained policy (and value) network as numpy arrays: ``PolicyNet``, read from a
``.npz`` file of ``bench/train_ppo.py``; the forward pass of the ``ppo`` bots of both
games (``rummy51.r51.policy``, ``rummy51.carousel.policy``) and of the MCTS evaluator
``rummy51.envs.openspiel_eval.NetworkEvaluator``. numpy only: no torch at run time."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["PolicyNet", "load_net"]


class PolicyNet:
    """A policy network read from a ``.npz`` file of ``bench/train_ppo.py``: layers
    ``w0, b0, w1, b1, ...`` (tanh between them), ``meta`` (JSON: the game, the players,
    the command that made it, its last evaluation); ``prefix="v"``: the value network
    (``vw0, vb0, ...``, one output) of the same file."""

    def __init__(self, path: str | Path, prefix: str = "") -> None:
        try:
            with np.load(path) as z:
                self.meta: dict[str, Any] = json.loads(bytes(z["meta"]).decode())
                n = sum(1 for k in z.files if k.startswith(prefix + "w"))
                self.layers = [(np.ascontiguousarray(z[f"{prefix}w{i}"], np.float32),
                                z[f"{prefix}b{i}"].astype(np.float32)) for i in range(n)]
        except (OSError, KeyError, ValueError) as e:
            raise ValueError(f"{path}: not a policy file of bench/train_ppo.py ({e})") from None
        if self.meta.get("format") != "rummy51/policy" or not self.layers:
            raise ValueError(f"{path}: not a policy file of bench/train_ppo.py")
        self.path = str(path)
        self.inputs = self.layers[0][0].shape[0]
        self.outputs = self.layers[-1][0].shape[1]

    def logits(self, mask: np.ndarray, obs: np.ndarray, ids: Any = None) -> np.ndarray:
        """The logits (float32) for an action mask and an observation: of every id, or of
        ``ids`` only. The input is mostly zeros, so the first layer adds up the rows of
        its nonzero entries, and only the wanted outputs are computed: a few small
        products, which a multithreaded BLAS does not spread over threads (on a busy
        machine a full product of the first layer took 100 times longer)."""
        x = np.concatenate([np.asarray(mask, np.float32), np.asarray(obs, np.float32)])
        nz = np.flatnonzero(x)
        w, b = self.layers[0]
        x = x[nz] @ w[nz] + b
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers[1:], 1):
            if i == last and ids is not None:
                return np.tanh(x) @ w[:, ids] + b[ids]
            x = np.tanh(x) @ w + b
        return x if ids is None or last > 0 else x[ids]

    def best(self, legal: list[int], obs: np.ndarray) -> int:
        """The legal id of the highest logit (the first on a tie)."""
        mask = np.zeros(self.outputs, np.float32)
        mask[legal] = 1.0
        ids = np.asarray(legal)
        z = self.logits(mask, obs, ids)
        return int(ids[int(np.argmax(z))])

    def check(self, game: str, players: int, obs_size: int, n_actions: int) -> None:
        """A one-line ValueError unless the network fits this game's sizes."""
        want = (self.meta.get("game"), self.meta.get("players"))
        if want != (game, players) or self.inputs != obs_size + n_actions or self.outputs != n_actions:
            raise ValueError(f"the ppo bot's network ({Path(self.path).name}) was trained for "
                             f"{want[1]}-player {want[0]} under the default rules; this table has "
                             f"{players} players, {n_actions} action ids and a {obs_size}-entry "
                             "observation")


@lru_cache(maxsize=8)
def load_net(path: str) -> PolicyNet:
    """The network of ``path``, read once per process."""
    return PolicyNet(path)
