"""A trained policy network as a Carousel bot: ``PolicyBot`` (bot name ``ppo``), numpy only.

The network was trained on the Gymnasium door ``rummy51/Carousel-v0`` (2 players, the
rules of ``CarouselRules.for_players(2)``, one round an episode, against greedy bots) by
``bench/train_ppo.py`` (docs/agents.md, "A training recipe"): a warm start imitating the
greedy bot, then sb3-contrib's ``MaskablePPO``. Its weights ship with the package
(``rummy51/models/ppo-carousel.npz``); the forward pass is ``rummy51.common.policy_net.PolicyNet`` (numpy).

The bot sees only its ``PlayerView``: the observation tensor and the legal ids are built
from the view (``view_observation``), the very tensor the door gives the agent. A meld
play is built card by card as on the door ("add" ids, then "commit") and returned as one
``Meld``: the table the solver arranges for the chosen cards.

>>> from rummy51.carousel import CarouselRules
>>> from rummy51.carousel.bots import GreedyBot, play_game
>>> play_game([PolicyBot(), GreedyBot()], CarouselRules.for_players(2), seed=2).over
True
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..common.policy_net import load_net
from .actions import Action, Draw, Knock, Meld, Pass, Phase
from .agent import carousel_layout_for
from .codec import ADD0, COMMIT, DRAW, KNOCK, NUM_ACTIONS, PASS, MaskOracle
from .engine import PlayerView
from .rules import CarouselRules

__all__ = ["PolicyBot", "view_observation", "legal_ids", "DEFAULT_WEIGHTS"]

#: the weights shipped with the package (2 players, ``CarouselRules.for_players(2)``)
DEFAULT_WEIGHTS = Path(__file__).parents[1] / "models" / "ppo-carousel.npz"


class _ViewGame:
    """What ``CarouselLayout.encode`` reads of a game, from a ``PlayerView``."""

    def __init__(self, view: PlayerView) -> None:
        self._view = view
        p = view.player
        self.hands = [tuple(view.hand) if q == p else (0,) * size
                      for q, size in enumerate(view.hand_sizes)]
        self.stock_size = view.stock_count

    def view(self, player: int) -> PlayerView:
        return self._view

    def __getattr__(self, name: str) -> Any:
        return getattr(self._view, name)


class _ViewState:
    def __init__(self, view: PlayerView, chosen: tuple[int, ...]) -> None:
        self.game = _ViewGame(view)
        self.chosen = chosen
        self.rules = view.rules

    def is_terminal(self) -> bool:
        return self.game.phase is Phase.OVER


def view_observation(view: PlayerView, chosen: tuple[int, ...] = ()) -> np.ndarray:
    """The observation tensor of ``view.player`` (``CarouselAgentState.observation``),
    built from the view alone, with ``chosen`` the cards added to a play being built."""
    return carousel_layout_for(view.rules).encode(_ViewState(view, chosen), view.player)  # type: ignore[arg-type]


def legal_ids(view: PlayerView, oracle: MaskOracle, chosen: tuple[int, ...] = ()) -> list[int]:
    """The legal ids of the player on turn (``CarouselAgentState.legal_actions``)."""
    ph = view.phase
    if ph is Phase.DRAW:
        return [DRAW]
    if ph is Phase.END:
        return [PASS] + ([KNOCK] if view.can_knock() else [])
    out: list[int] = []
    if not chosen:
        out = [DRAW] if ph is Phase.MELD else [PASS]
        if ph is Phase.NO_DRAW and view.can_knock():
            out.append(KNOCK)
    elif oracle.can_commit(chosen):
        out.append(COMMIT)
    return out + [ADD0 + k for k in oracle.playable(chosen)]


class PolicyBot:
    """Plays the trained policy network (``weights``: a ``.npz`` of
    ``bench/train_ppo.py``; default the shipped one, 2-player games under
    ``CarouselRules.for_players(2)``; another table is a one-line ``ValueError`` at the
    first decision).

    * Every decision: the legal ids of the view and the observation tensor; the legal id
      of the highest logit (deterministic: ``seed`` is accepted and unused).
    * Draw, pass or knock: the id the network ranks first among the legal ones (draw,
      pass, knock, or the first card of a meld play).
    * An "add" id puts a hand card into the play being built and the bot decides again;
      "commit" plays the chosen cards (the solver's arrangement of the table).
    """

    def __init__(self, seed: Any = None, weights: str | Path | None = None) -> None:
        self.weights = str(DEFAULT_WEIGHTS if weights is None else weights)
        self.net = load_net(self.weights)

    def __repr__(self) -> str:
        return f"PolicyBot(weights={Path(self.weights).name!r})"

    @classmethod
    def check_table(cls, rules: CarouselRules, players: int) -> None:
        """A one-line ValueError unless the shipped network plays this table (studies ask
        before the first game)."""
        load_net(str(DEFAULT_WEIGHTS)).check("carousel", players, carousel_layout_for(rules).size,
                                             NUM_ACTIONS)

    def choose(self, view: PlayerView) -> Action:
        layout = carousel_layout_for(view.rules)
        self.net.check("carousel", view.n_players, layout.size, NUM_ACTIONS)
        oracle = MaskOracle(view.table, view.hand, view.rules)
        chosen: tuple[int, ...] = ()
        for _ in range(len(view.hand) + 2):
            a = self.net.best(legal_ids(view, oracle, chosen), view_observation(view, chosen))
            if a >= ADD0:
                chosen = tuple(sorted(chosen + (a - ADD0,)))
                continue
            if a == COMMIT:
                return Meld(oracle.play(chosen).melds)
            return Draw() if a == DRAW else Pass() if a == PASS else Knock()
        raise RuntimeError("the ppo bot added cards without end")  # pragma: no cover
