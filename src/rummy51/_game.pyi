"""Typed stub of the C game kernel (private: use rummy51.fastgame)."""
from typing import Any, Optional, Sequence

import numpy as np
import numpy.typing as npt

class GreedyKernel:
    def __init__(self, rules: Any, core: Any, catalogue: Any) -> None: ...

def play_greedy(k: GreedyKernel, rng: np.random.Generator, players: int, first: int,
                log: Optional[npt.NDArray[np.int32]] = ...
                ) -> tuple[int, int, int, list[int], list[bool], list[int], int]: ...

def play_table(k: GreedyKernel, rng: np.random.Generator, players: int, first: int,
               bots: Optional[Sequence[int]] = ...,
               bot_rngs: Optional[Sequence[Optional[np.random.Generator]]] = ...,
               params: Optional[Sequence[Optional[tuple]]] = ...,
               log: Optional[npt.NDArray[np.int32]] = ...
               ) -> tuple[int, int, int, list[int], list[bool], list[int], int]: ...
