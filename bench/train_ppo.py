"""Train a policy on a Gymnasium door (2 players, against greedy bots) and record its
learning curve: the recipe of docs/agents.md ("A training recipe").

    pip install ".[agents,train]"
    nice -n 10 python bench/train_ppo.py --game rummy51 --cpu-minutes 30 --out runs/ppo-rummy51
    nice -n 10 python bench/train_ppo.py --game carousel --cpu-minutes 30 --out runs/ppo-carousel

The learner is sb3-contrib's ``MaskablePPO`` with ``MultiInputPolicy`` on the door as
it is (``rummy51/Rummy51-v0`` with ``first="random"``: one deal an episode, either seat
starting; ``rummy51/Carousel-v0`` with ``round_only=True``: one round an episode, the
dealer drawn), in two phases:

1. **Warm start** (``--warm-fraction`` of the CPU budget, default 0.4): the policy
   network is trained to imitate the greedy bot in the agent's seat (DAgger: the states
   come from the learner's own play, mixed with the teacher's, and every state is labelled
   with the teacher's id; the value head learns the episode's return at the same time).
   PPO alone spends its budget finding what the greedy bot's rules already say (lay
   down when you can, lay off, keep the cards that make melds): three minutes of it won
   1 % of Rummy 51 deals against greedy.
2. **PPO** for the rest of the budget, against greedy bots, on the game's own reward
   (``reward="deal"``: minus the points of the deal; Carousel: the round's score),
   scaled by ``--reward-scale`` (0.01), with ``--shaping`` (0) of the door.

Every ``--eval-every`` steps (and at the phase boundary) the deterministic policy
(the masked argmax) plays ``--eval-episodes`` (200) fixed deals (rounds) against greedy
bots; the curve (``curve.csv``: phase, environment steps, training CPU minutes, wins,
episodes, win rate and its 95 % Wilson interval) leaves the evaluation's own CPU time
out of the minutes. Random masked play and greedy in the agent's seat are measured on
the same deals (``baselines.csv``). The last policy is written as ``policy.npz``
(``rummy51.r51.policy`` / ``rummy51.carousel.policy`` read it: numpy only) and
``model.zip`` (sb3's own format).

``--cpu-minutes`` is the training budget of this one process (``time.process_time``,
evaluations left out); torch runs on 1 thread. ``kill -USR1 PID`` ends the run early as
if the budget were spent (the last evaluation, ``model.zip`` and ``policy.npz`` are
written).
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import os
import shlex
import signal
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

Z = 1.959963984540054
GAMES = {"rummy51": "rummy51/Rummy51-v0", "carousel": "rummy51/Carousel-v0"}


def wilson(k: int, n: int) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + Z * Z / n
    c = (p + Z * Z / (2 * n)) / d
    h = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def make_env(game: str, players: int, seed: int, shaping: float = 0.0, scale: float = 1.0) -> Any:
    import gymnasium

    import rummy51.envs  # noqa: F401  (registers the ids)

    kw: dict[str, Any] = {"players": players, "opponents": "greedy", "shaping": shaping}
    if game == "carousel":
        kw["round_only"] = True
    else:
        kw["first"] = "random"   # either seat may start, as in a match
    env = gymnasium.make(GAMES[game], **kw)
    if scale != 1.0:
        env = gymnasium.wrappers.TransformReward(env, lambda r: r * scale)
    env.reset(seed=seed)
    return env


# --------------------------------------------------------------------------- the teacher
def teacher_id(env: Any, bot: Any) -> int:  # noqa: C901  one branch per game and move kind of the teacher's move
    """The id the greedy bot plays in the agent's seat now (the first id of its move)."""
    u = env.unwrapped
    s = u._state
    legal = s.legal_actions()
    if u.game == "rummy51":
        from rummy51.r51.codec import CANCEL, OPEN

        move = bot.choose(s.view(u.seat))
        try:
            ids = s.codec.encode_sequence(move, s.game, ())
        except Exception:  # the move is not one the ids spell now: fall back below
            ids = []
        if s.staged:
            for i in ids:
                if i not in s.staged and i in legal and i != OPEN:
                    if all(j in ids for j in s.staged):
                        return i
            if OPEN in legal:
                return OPEN
            if CANCEL in legal:
                return CANCEL
            return legal[0]
        for i in ids:
            if i in legal:
                return i
        return legal[0]
    from rummy51.carousel.actions import Draw, Knock, Meld, Pass
    from rummy51.carousel.codec import ADD0, COMMIT, DRAW, KNOCK, PASS

    g = s.game
    move = bot.choose(g.view(u.seat))
    chosen = Counter(s.chosen)
    if isinstance(move, Meld):
        before = Counter(c for m in g.table for c in m.cards)
        after = Counter(c[0] if isinstance(c, tuple) else c for m in move.melds for c in m)
        played = after - before
        if not chosen - played:  # the chosen cards are part of the teacher's play
            rest = played - chosen
            for k in sorted(rest):
                if ADD0 + k in legal:
                    return ADD0 + k
            if COMMIT in legal:
                return COMMIT
    elif not s.chosen:
        want = {Draw: DRAW, Pass: PASS, Knock: KNOCK}.get(type(move))
        if want in legal:
            return int(want)
    if COMMIT in legal:
        return COMMIT
    return legal[0]


# --------------------------------------------------------------------------- evaluation
def evaluate(game: str, players: int, act: Any, episodes: int, seed: int = 10_000) -> tuple[int, int]:
    """Wins of ``act(env, obs) -> id`` in ``episodes`` fixed deals (rounds) against greedy."""
    env = make_env(game, players, seed)
    wins = 0
    for i in range(episodes):
        obs, _ = env.reset(seed=seed + i)
        while True:
            obs, _, term, trunc, info = env.step(act(env, obs))
            if term or trunc:
                wins += bool(info.get("won", False))
                break
    return wins, episodes


def model_act(model: Any) -> Any:
    import torch

    policy = model.policy

    def act(env: Any, obs: dict) -> int:
        with torch.no_grad():
            t = {k: torch.as_tensor(v[None], dtype=torch.float32) for k, v in obs.items()}
            feats = policy.extract_features(t)
            lat = policy.mlp_extractor.forward_actor(feats)
            logits = policy.action_net(lat)[0].numpy()
        logits[obs["action_mask"] == 0] = -np.inf
        return int(np.argmax(logits))

    return act


# --------------------------------------------------------------------------- export
def export(model: Any, path: Path, game: str, players: int, command: str, curve_row: dict,
           reward_scale: float) -> None:
    """The policy network as numpy arrays: ``w0, b0, w1, b1, ...`` (the actor's layers,
    tanh between them, the last one the logits), input the action mask then the
    observation (the order of ``Dict`` keys); the value network likewise as ``vw0, vb0,
    ...`` (its output in rewards scaled by ``reward_scale``)."""
    policy = model.policy
    layers = [m for m in policy.mlp_extractor.policy_net if hasattr(m, "weight")]
    layers.append(policy.action_net)
    arrays: dict[str, np.ndarray] = {}
    for i, lin in enumerate(layers):
        arrays[f"w{i}"] = lin.weight.detach().numpy().T.astype(np.float16)
        arrays[f"b{i}"] = lin.bias.detach().numpy().astype(np.float32)
    vlayers = [m for m in policy.mlp_extractor.value_net if hasattr(m, "weight")]
    vlayers.append(policy.value_net)
    for i, lin in enumerate(vlayers):
        arrays[f"vw{i}"] = lin.weight.detach().numpy().T.astype(np.float16)
        arrays[f"vb{i}"] = lin.bias.detach().numpy().astype(np.float32)
    meta = {"format": "rummy51/policy", "version": 1, "game": game, "players": players,
            "inputs": ["action_mask", "observation"], "activation": "tanh",
            "reward_scale": reward_scale, "command": command, "eval": curve_row}
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    np.savez_compressed(path, **arrays)


# --------------------------------------------------------------------------- the run
def main(argv: list[str] | None = None) -> int:  # noqa: C901, PLR0915  the recipe as one script body: arguments, warm start, PPO loop, export
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--game", choices=sorted(GAMES), required=True)
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--cpu-minutes", type=float, default=30.0)
    p.add_argument("--warm-fraction", type=float, default=0.4)
    p.add_argument("--eval-every", type=int, default=50_000, help="environment steps")
    p.add_argument("--eval-episodes", type=int, default=200)
    p.add_argument("--net", default="128,128", help="hidden layer sizes of both networks")
    p.add_argument("--reward-scale", type=float, default=0.01)
    p.add_argument("--shaping", type=float, default=0.0)
    p.add_argument("--lr", type=float, default=1e-4, help="PPO's learning rate")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True)
    p.add_argument("--export-only", action="store_true",
                   help="write OUT/policy.npz again from OUT/model.zip and OUT/curve.csv (no training)")
    a = p.parse_args(argv)
    command = "python bench/train_ppo.py " + " ".join(shlex.quote(x) for x in (argv or sys.argv[1:]))
    if a.export_only:
        from sb3_contrib import MaskablePPO

        out = Path(a.out)
        with open(out / "curve.csv") as f:
            last = list(csv.DictReader(f))[-1]
        old = {}
        if (out / "policy.npz").exists():
            old = json.loads(bytes(np.load(out / "policy.npz")["meta"]).decode())
        export(MaskablePPO.load(out / "model.zip", device="cpu"), out / "policy.npz", a.game, a.players,
               old.get("command", command), last, a.reward_scale)
        return 0

    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from rummy51.carousel.bots import GreedyBot as CGreedy
    from rummy51.r51.bots import GreedyBot as RGreedy

    torch.set_num_threads(1)
    stop = [False]
    signal.signal(signal.SIGUSR1, lambda *_: stop.__setitem__(0, True))
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(a.seed)
    budget = a.cpu_minutes * 60.0
    eval_cpu = 0.0
    t0 = time.process_time()

    def train_cpu() -> float:
        return budget + 1.0 if stop[0] else time.process_time() - t0 - eval_cpu

    def cpu_now() -> float:
        return time.process_time() - t0 - eval_cpu

    env = make_env(a.game, a.players, a.seed, a.shaping, a.reward_scale)
    env.unwrapped.game = a.game
    hidden = [int(x) for x in a.net.split(",")]
    model = MaskablePPO("MultiInputPolicy", env, learning_rate=a.lr, n_steps=2048, batch_size=256,
                        n_epochs=4, gamma=1.0, gae_lambda=0.95, ent_coef=0.0, clip_range=0.1,
                        policy_kwargs={"net_arch": {"pi": hidden, "vf": hidden}},
                        seed=a.seed, verbose=0, device="cpu")
    teacher = RGreedy() if a.game == "rummy51" else CGreedy()
    rows: list[dict] = []
    steps = 0

    def record(phase: str) -> dict:
        nonlocal eval_cpu
        t = time.process_time()
        w, n = evaluate(a.game, a.players, model_act(model), a.eval_episodes)
        eval_cpu += time.process_time() - t
        lo, hi = wilson(w, n)
        row = {"phase": phase, "env_steps": steps, "cpu_minutes": round(cpu_now() / 60, 2),
               "wins": w, "episodes": n, "win_rate": round(w / n, 4), "lo": round(lo, 4),
               "hi": round(hi, 4)}
        rows.append(row)
        print(json.dumps(row), flush=True)
        with open(out / "curve.csv", "w", newline="") as f:
            wr = csv.DictWriter(f, fieldnames=list(row))
            wr.writeheader()
            wr.writerows(rows)
        return row

    # baselines on the same deals
    t = time.process_time()
    base = []
    r2 = np.random.default_rng(1)
    for name, act in (("random", lambda e, o: int(r2.choice(np.flatnonzero(o["action_mask"])))),
                      ("greedy", lambda e, o: teacher_id(e, teacher))):
        make = evaluate if name == "random" else _teacher_eval
        w, n = make(a.game, a.players, act, a.eval_episodes)
        lo, hi = wilson(w, n)
        base.append({"policy": name, "wins": w, "episodes": n, "win_rate": round(w / n, 4),
                     "lo": round(lo, 4), "hi": round(hi, 4)})
        print(json.dumps(base[-1]), flush=True)
    with open(out / "baselines.csv", "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(base[0]))
        wr.writeheader()
        wr.writerows(base)
    eval_cpu += time.process_time() - t
    record("start")

    # ---- phase 1: DAgger from the greedy bot
    policy = model.policy
    opt = torch.optim.Adam(policy.parameters(), lr=1e-3)
    cap = 40_000
    buf_obs: list[np.ndarray] = []
    buf_mask: list[np.ndarray] = []
    buf_label: list[int] = []
    buf_ret: list[float] = []
    warm_budget = a.warm_fraction * budget
    act = model_act(model)
    it = 0
    next_eval = a.eval_every
    while train_cpu() < warm_budget:
        beta = max(0.0, 1.0 - it / 4)
        obs, _ = env.reset(seed=int(rng.integers(2**31)))
        ep_start = len(buf_label)
        ep_rewards: list[float] = []
        collected = 0
        while collected < 4096:
            label = teacher_id(env, teacher)
            buf_obs.append(obs["observation"].astype(np.float16))
            buf_mask.append(np.packbits(obs["action_mask"].astype(bool)))
            buf_label.append(label)
            buf_ret.append(0.0)
            a_ = label if rng.random() < beta else act(env, obs)
            obs, r, term, trunc, _ = env.step(a_)
            ep_rewards.append(float(r))
            steps += 1
            collected += 1
            if term or trunc:
                g = np.cumsum(ep_rewards[::-1])[::-1]
                buf_ret[ep_start:len(buf_label)] = list(g)
                obs, _ = env.reset(seed=int(rng.integers(2**31)))
                ep_start = len(buf_label)
                ep_rewards = []
        # drop the unfinished episode's samples (no return yet), keep the newest `cap`
        del buf_obs[ep_start:], buf_mask[ep_start:], buf_label[ep_start:], buf_ret[ep_start:]
        if len(buf_label) > cap:
            k = len(buf_label) - cap
            del buf_obs[:k], buf_mask[:k], buf_label[:k], buf_ret[:k]
        n = len(buf_label)
        X = np.stack(buf_obs)
        M = np.stack(buf_mask)
        Y = np.array(buf_label, np.int64)
        R = np.array(buf_ret, np.float32)
        n_act = env.action_space.n
        for _ in range(2):
            perm = rng.permutation(n)
            for s0 in range(0, n, 256):
                idx = perm[s0:s0 + 256]
                mask = np.unpackbits(M[idx], axis=1, count=n_act).astype(np.float32)
                t_obs = {"observation": torch.as_tensor(X[idx].astype(np.float32)),
                         "action_mask": torch.as_tensor(mask)}
                values, logp, _ = policy.evaluate_actions(t_obs, torch.as_tensor(Y[idx]),
                                                          action_masks=mask.astype(bool))
                loss = -logp.mean() + 0.5 * ((values.flatten() - torch.as_tensor(R[idx])) ** 2).mean()
                opt.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
                opt.step()
        it += 1
        print(json.dumps({"dagger_iter": it, "samples": n, "beta": beta, "loss": round(loss.item(), 4),
                          "cpu_minutes": round(cpu_now() / 60, 2)}), flush=True)
        if steps >= next_eval:
            record("imitation")
            next_eval = steps + a.eval_every
    if rows[-1]["env_steps"] != steps:
        record("imitation")
    del buf_obs, buf_mask, buf_label, buf_ret

    # ---- phase 2: PPO against greedy
    class Budget(BaseCallback):
        def _on_step(self) -> bool:
            nonlocal steps, next_eval
            steps += 1
            if steps >= next_eval:
                record("ppo")
                next_eval = steps + a.eval_every
            return train_cpu() < budget

    final = rows[-1]
    if train_cpu() < budget:
        model.learn(total_timesteps=10**9, callback=Budget(), reset_num_timesteps=True)
        final = record("ppo")
    model.save(out / "model.zip")
    export(model, out / "policy.npz", a.game, a.players, command, final, a.reward_scale)
    print(json.dumps({"done": str(out), "cpu_minutes": round(cpu_now() / 60, 2)}), flush=True)
    return 0


def _teacher_eval(game: str, players: int, act: Any, episodes: int, seed: int = 10_000) -> tuple[int, int]:
    env = make_env(game, players, seed)
    env.unwrapped.game = game
    wins = 0
    for i in range(episodes):
        obs, _ = env.reset(seed=seed + i)
        while True:
            obs, _, term, trunc, info = env.step(act(env, obs))
            if term or trunc:
                wins += bool(info.get("won", False))
                break
    return wins, episodes


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sys.exit(main())
