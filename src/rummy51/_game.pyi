"""Typed stub of the C game kernel (private: use rummy51.r51.fastgame)."""
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

class GreedyKernel:
    def __init__(self, rules: Any, core: Any, catalogue: Any) -> None: ...

def play_greedy(k: GreedyKernel, rng: np.random.Generator, players: int, first: int,
                log: npt.NDArray[np.int32] | None = ...
                ) -> tuple[int, int, int, list[int], list[bool], list[int], int]: ...

def play_table(k: GreedyKernel, rng: np.random.Generator, players: int, first: int,
               bots: Sequence[int] | None = ...,
               bot_rngs: Sequence[np.random.Generator | None] | None = ...,
               params: Sequence[tuple | None] | None = ...,
               log: npt.NDArray[np.int32] | None = ...
               ) -> tuple[int, int, int, list[int], list[bool], list[int], int]: ...

class Position:
    players: int
    def __init__(self, k: GreedyKernel, players: int, current: int, turn: int, phase: int,
                 cnt: npt.NDArray[np.int32], stock: npt.NDArray[np.int32],
                 pile: npt.NDArray[np.int32], bottom: int, table: Sequence[tuple],
                 opened: Sequence[bool], turn_opened: Sequence[int],
                 turn_info: Sequence[int]) -> None: ...
    def complete(self) -> bool: ...
    def play(self, rng: np.random.Generator, bots: Sequence[int] | None = ...,
             bot_rngs: Sequence[np.random.Generator | None] | None = ...,
             params: Sequence[tuple | None] | None = ...,
             log: npt.NDArray[np.int32] | None = ...
             ) -> tuple[int, int, int, list[int], list[bool], list[int], int]: ...
    def rollouts(self, pool: npt.NDArray[np.int32], hidden: npt.NDArray[np.int32],
                 cands: npt.NDArray[np.int32], rng: np.random.Generator,
                 bots: Sequence[int], params: Sequence[tuple | None],
                 out: npt.NDArray[np.int32]) -> None: ...
    def set_known(self, known: npt.NDArray[np.int32]) -> None: ...
    def search(self, pool: npt.NDArray[np.int32], hidden: npt.NDArray[np.int32],
               rng: np.random.Generator, params: tuple, log: npt.NDArray[np.int32]
               ) -> tuple[int, int, int, int, int]: ...

def analyse(pos: Position, pool: npt.NDArray[np.int32], hidden: npt.NDArray[np.int32],
            rng: np.random.Generator, rollouts: int, want: int = ..., ms: float = ...,
            played: tuple | None = ...
            ) -> tuple[list[list[int]], list[tuple[int, float, float, int]], int, int, bool]: ...
