"""Typed stub of the Carousel kernel's def wrappers (private: use rummy51.carousel)."""
from typing import Any

import numpy as np
import numpy.typing as npt

class CoreRules:
    """The rules the kernel reads, compiled once from a ``CarouselRules``."""
    def __init__(self, rules: Any, cards_only: bool = ...) -> None: ...

def solve_counts(rules: CoreRules, T: bytes | npt.NDArray[np.uint8], H: bytes | npt.NDArray[np.uint8],
                 D: bytes | npt.NDArray[np.uint8], JT: int, JH: int, node_limit: int = ...,
                 time_limit: float = ...) -> int: ...
def rebuild_counts(rules: CoreRules, T: bytes | npt.NDArray[np.uint8], H: bytes | npt.NDArray[np.uint8],
                   D: bytes | npt.NDArray[np.uint8], JT: int, JH: int,
                   target: int, node_limit: int = ...,
                   time_limit: float = ...) -> tuple[int, int, list[list[tuple[int, int]]], int]: ...
def last_nodes() -> int: ...
def arrange_counts(rules: CoreRules, T: bytes | npt.NDArray[np.uint8], S: bytes | npt.NDArray[np.uint8],
                   JT: int, node_limit: int = ...,
                   time_limit: float = ...) -> tuple[int, list[list[tuple[int, int]]]]: ...
def play_melds(core: CoreRules, T: bytes | npt.NDArray[np.uint8], S: bytes | npt.NDArray[np.uint8],
               JT: int, node_limit: int = ..., time_limit: float = ...) -> tuple[Any, ...] | int | None: ...
def play_source(rules: CoreRules, T: bytes | npt.NDArray[np.uint8], H: bytes | npt.NDArray[np.uint8],
                D: bytes | npt.NDArray[np.uint8], JT: int, JH: int, node_limit: int = ...,
                time_limit: float = ..., fast: bool = ...) -> tuple[int, bytes | None]: ...
def source_melds(core: CoreRules, source: bytes, node_limit: int = ...,
                 time_limit: float = ...) -> tuple[Any, ...] | int | None: ...
def play_counts(rules: CoreRules, T: bytes | npt.NDArray[np.uint8], H: bytes | npt.NDArray[np.uint8],
                D: bytes | npt.NDArray[np.uint8], JT: int, JH: int, node_limit: int = ...,
                time_limit: float = ...,
                fast: bool = ...) -> tuple[int, bytes | None, bytes | None, int | None]: ...
# one position as the API takes it, read, checked and solved in C (_carousel_single.pxi);
# None: the Python path takes it
class Play:
    """The best play of a position (carousel.solver.Play)."""
    __match_args__ = ("points_left", "cards_played", "played", "melds", "can_meld", "can_knock",
                      "hand_points")
    @property
    def points_left(self) -> int: ...
    @property
    def cards_played(self) -> int: ...
    @property
    def played(self) -> tuple[int, ...]: ...
    @property
    def melds(self) -> tuple[Any, ...]: ...
    @property
    def can_meld(self) -> bool: ...
    @property
    def can_knock(self) -> bool: ...
    @property
    def hand_points(self) -> int: ...
    @property
    def _played(self) -> tuple[int, ...] | bytes: ...
    @property
    def _melds(self) -> tuple[Any, ...] | None: ...
    def __init__(self, points_left: int, cards_played: int, played: tuple[int, ...],
                 melds: tuple[Any, ...], can_meld: bool, can_knock: bool,
                 hand_points: int) -> None: ...
    def _fields(self) -> tuple[Any, ...]: ...
    def text(self, unicode: bool = ...) -> str: ...

def _set_classes(table_meld: type, source_melds: Any) -> None: ...
def single_value(rules: CoreRules, table: Any, hand: Any, node_limit: int = ...,
                 time_limit: float = ...,
                 any_play: bool = ...) -> int | None: ...
def single_best(core: CoreRules, rules: Any, table: Any, hand: Any, knock_limit: int,
                node_limit: int = ..., time_limit: float = ..., fast: bool = ...) -> Any: ...
def pack_rows(rules: CoreRules, tables: list[Any], hands: list[Any],
              fallback: Any) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]: ...
def solve_batch(rules: CoreRules, tables: npt.NDArray[np.uint8], hands: npt.NDArray[np.uint8],
                points_left: npt.NDArray[np.int32], cards_played: npt.NDArray[np.int32],
                row0: int = ..., node_limit: int = ..., time_limit: float = ...,
                memory_limit: int = ...) -> None: ...
def memory_limit_begin(limit: int) -> tuple[int, int, int, int]: ...
def memory_limit_end(saved: tuple[int, int, int, int]) -> tuple[int, bool]: ...
def memory_limit_hit() -> int: ...
def memory_held() -> int: ...
def _row_error(err: int, detail: int, i: int, row: int, tables: npt.NDArray[np.uint8],
               hands: npt.NDArray[np.uint8], rules: CoreRules) -> ValueError: ...
def _py_counters() -> tuple[int, int]: ...
def _set_grouping(on: bool) -> bool: ...
def _program_run(rules: CoreRules, table: Any, hand: Any, want: int,
                 below_full: bool = ..., beam: int = ...) -> tuple[int, int, int] | None: ...
def _undercut_risk(rng: Any, values: Any, hand_sizes: Any, me: int, points: int,
                   samples: int) -> float: ...

# the greedy game kernel (_carousel_game.pxi)
GAME_OK: int
GAME_NEED_DECKS: int
GAME_TOO_LONG: int
GAME_FULL: int
GAME_GAVE_UP: int
GAME_BAD_TABLE: int
GAME_NO_MEMORY: int
GAME_COLUMNS: tuple[str, ...]
GAME_STATE_SIZE: int

def play_greedy_game(core: CoreRules, game_rules: tuple[int, ...] | list[int],
                     decks: npt.NDArray[np.uint8], first: int, game: int,
                     out: npt.NDArray[np.int32],
                     trace: npt.NDArray[np.int32] | None = ...,
                     state: npt.NDArray[np.int64] | None = ...,
                     bots: Any = ...) -> tuple[int, int, int, int, int, int]: ...
def _drop_kept_cache() -> None: ...

# the search bot (_carousel_search.pxi)
SEARCH_MELD: int
SEARCH_NODRAW: int
SEARCH_KNOCK: int

def search_decide(core: CoreRules, game_rules: tuple[int, ...] | list[int], rng: Any,
                  decision: int, H: bytes | npt.NDArray[np.uint8], JH: int,
                  T: bytes | npt.NDArray[np.uint8], D: bytes | npt.NDArray[np.uint8], JT: int,
                  sizes: Any, me: int, stock: int, draws: int, stock_out: bool, rollouts: int,
                  z_stop: float, z_play: float, hold: bool = ..., model: Any = ...,
                  horizon: int = ...) -> tuple[int, bytes | None, int, int]: ...
def search_rollout_round(core: CoreRules, game_rules: tuple[int, ...] | list[int],
                         deck: npt.NDArray[np.uint8], dealer: int
                         ) -> tuple[list[int], list[float]]: ...

# the rollout analysis of one decision (_carousel_analyse.pxi)
ANALYSE_PLAY: int
ANALYSE_DRAW: int
ANALYSE_PASS: int
ANALYSE_KNOCK: int

def search_analyse(core: CoreRules, game_rules: tuple[int, ...] | list[int], rng: Any,
                   decision: int, H: bytes | npt.NDArray[np.uint8], JH: int,
                   T: bytes | npt.NDArray[np.uint8], D: bytes | npt.NDArray[np.uint8], JT: int,
                   sizes: Any, me: int, stock: int, draws: int, stock_out: bool,
                   played: tuple[bytes, bytes, int] | None, rollouts: int, seconds: float = ...
                   ) -> tuple[list[tuple[int, bytes | None, bytes | None, int, int, float, float,
                                         int]], int]: ...

# the learned evaluator (_carousel_learned.pxi)
LEARNED_VERSION: int
LEARNED_FEATURES: int
PHASE_PASSED: int
PHASE_DRAW2: int
PHASE_DRAW3: int
PHASE_KNOCKED: int
PHASE_DRAW1: int

def learned_features(core: CoreRules, game_rules: tuple[int, ...] | list[int],
                     H: bytes | npt.NDArray[np.uint8], JH: int,
                     T: bytes | npt.NDArray[np.uint8], D: bytes | npt.NDArray[np.uint8], JT: int,
                     sizes: Any, me: int, stock: int, draws: int, stock_out: bool,
                     phase: int) -> npt.NDArray[np.float32]: ...
def learned_decide(core: CoreRules, game_rules: tuple[int, ...] | list[int], model: Any,
                   decision: int, H: bytes | npt.NDArray[np.uint8], JH: int,
                   T: bytes | npt.NDArray[np.uint8], D: bytes | npt.NDArray[np.uint8], JT: int,
                   sizes: Any, me: int, stock: int, draws: int, stock_out: bool
                   ) -> tuple[int, bytes | None, int]: ...
def record_round(core: CoreRules, game_rules: tuple[int, ...] | list[int],
                 deck: npt.NDArray[np.uint8], dealer: int, bots: Any, rng: Any, rate: float,
                 explore: float, X: npt.NDArray[np.float32], who: npt.NDArray[np.int32],
                 phase: npt.NDArray[np.int32], rollouts: int = 0,
                 y: npt.NDArray[np.int64] | None = None) -> tuple[int, list[int], list[bool]]: ...
def kernel_seat_decision(core: CoreRules, game_rules: tuple[int, ...] | list[int], bots: Any,
                         seat: int, hands: Any, jokers: Any, T: bytes | npt.NDArray[np.uint8],
                         D: bytes | npt.NDArray[np.uint8], JT: int, stock: int, draws: int,
                         decision: int) -> tuple[int, bytes, bytes, int, bytes, int]: ...
def _candidate_values(core: CoreRules, game_rules: tuple[int, ...] | list[int], rng: Any,
                      decision: int, H: bytes | npt.NDArray[np.uint8], JH: int,
                      T: bytes | npt.NDArray[np.uint8], D: bytes | npt.NDArray[np.uint8],
                      JT: int, sizes: Any, me: int, stock: int, draws: int, stock_out: bool,
                      n: int, hold: bool = ..., model: Any = ...,
                      horizon: int = ...) -> tuple[npt.NDArray[np.float64], list[Any]]: ...
def _knock_values(core: CoreRules, game_rules: tuple[int, ...] | list[int], rng: Any,
                  H: bytes | npt.NDArray[np.uint8], JH: int, T: bytes | npt.NDArray[np.uint8],
                  D: bytes | npt.NDArray[np.uint8], JT: int, sizes: Any, me: int, stock: int,
                  stock_out: bool, n: int) -> npt.NDArray[np.float64]: ...
