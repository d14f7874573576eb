# _game_api.pxi: the Python-facing wrappers: GreedyKernel (a RuleSet compiled for the kernel),
# play_greedy and play_table.
#
# (Included by _game.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _game.pyx.)

# --------------------------------------------------------------------------- Python
cdef class GreedyKernel:
    """A RuleSet compiled for the game kernel (built by ``rummy51.fastgame``)."""
    cdef GRules g
    cdef object core
    cdef object _keep

    def __init__(self, rules, core, catalogue):
        cdef int i
        if rules.max_jokers_per_meld > 1:
            raise ValueError("the game kernel plays max_jokers_per_meld 0 or 1 only")
        core_rules_of(core)
        self.core = core
        g = &self.g
        g.threshold = rules.threshold
        g.mj = rules.max_jokers_per_meld
        g.ace_high = 1 if rules.ace_high else 0
        g.top = 13 if rules.ace_high else 12
        g.ace_value = rules.ace_value
        g.ace_low_value = rules.ace_low_value
        g.joker_penalty = rules.joker_penalty
        g.hand_size = rules.hand_size
        g.bottom_card = 1 if rules.bottom_card else 0
        g.reshuffle = 1 if rules.reshuffle_stock else 0
        g.must_meld = 1 if rules.discard_card_must_meld else 0
        g.free_rounds = rules.free_discard_rounds
        g.taken_ok = 1 if rules.discard_taken_card else 0
        g.max_turns = rules.max_turns
        g.score_out = rules.score_out
        g.score_hand = rules.score_hand
        g.score_hand_bottom = rules.score_hand_bottom
        g.score_unopened = rules.score_unopened
        g.hand_doubles = 1 if rules.hand_doubles else 0
        g.draw_zero = 1 if rules.draw_scoring == "zero" else 0
        deck = np.ascontiguousarray(core.deck, dtype=np.uint8)
        if deck.shape[0] > MAXDECK:
            raise ValueError(f"a deck of {deck.shape[0]} cards is more than the kernel's {MAXDECK}")
        kind = np.ascontiguousarray(catalogue.kind, dtype=np.uint8)
        ncards = np.ascontiguousarray(catalogue.ncards, dtype=np.uint8)
        laid = np.ascontiguousarray(catalogue.laid, dtype=np.uint8)
        reps = np.ascontiguousarray(catalogue.represents, dtype=np.uint8)
        if laid.ndim != 2 or laid.shape[1] != 5 or reps.shape[1] != 5:
            raise ValueError("malformed meld catalogue")
        self._keep = (deck, kind, ncards, laid, reps)
        cdef const uint8_t[::1] d = deck
        cdef const uint8_t[::1] k = kind
        cdef const uint8_t[::1] nc = ncards
        cdef const uint8_t[:, ::1] la = laid
        cdef const uint8_t[:, ::1] re = reps
        g.deck_n = <int>d.shape[0]
        g.deck = &d[0]
        for i in range(53):
            g.deckcnt[i] = 0
        for i in range(g.deck_n):
            g.deckcnt[d[i]] += 1
        g.cat_kind = &k[0]
        g.cat_n = &nc[0]
        g.cat_laid = &la[0, 0]
        g.cat_reps = &re[0, 0]


_ERRORS = {E_SOLVER: "the solver refused a hand", E_STEPS: "a turn did not end",
           E_STATE: "the kernel reached a state it cannot play"}


def play_greedy(GreedyKernel k, rng, int players, int first, int32_t[::1] log=None):
    """Play one deal of ``players`` greedy bots; ``first`` is the first player. The deck is
    shuffled with ``rng`` (a numpy Generator) as ``GameState.new(seed=rng)`` would.

    Returns ``(winner, how, length, scores, opened, turn_opened, log_n)``: ``how`` indexes
    ``rummy51.games.ENDS``; ``log_n`` is the length of the action log written to ``log``
    (when given; more than ``len(log)`` means it did not fit)."""
    return play_table(k, rng, players, first, None, None, None, log)


def play_table(GreedyKernel k, rng, int players, int first, bots=None, bot_rngs=None,
               params=None, int32_t[::1] log=None):
    """Play one deal; seat ``i`` plays bot ``bots[i]`` (0 random, 1 greedy, 2 hand-hunter,
    3 tactician; None: every seat greedy). ``bot_rngs[i]`` is a random seat's numpy
    Generator (RandomBot.rng: drawn from as the bot draws), ``params[i]`` a seat's
    parameters: ``(p_hold, max_round, min_opponent_cards)`` for a hand-hunter,
    ``(take_gain, feed_penalty)`` for a tactician (None: the bots' defaults).

    Returns what ``play_greedy`` returns."""
    cdef Game G
    cdef Moves* M
    cdef int i
    cdef list keep = []
    if players < 2 or players > MAXP:
        raise ValueError(f"players must be 2..{MAXP}, got {players}")
    if not 0 <= first < players:
        raise ValueError(f"first must be a seat 0..{players - 1}, got {first}")
    if players * k.g.hand_size + 2 + k.g.bottom_card > k.g.deck_n:
        raise ValueError(f"{players} players do not fit a deck of {k.g.deck_n} cards")
    G.sr = core_rules_of(k.core)
    G.g = &k.g
    G.n = players
    G.log = NULL
    G.log_n = 0
    G.log_cap = 0
    seat_bots(&G, players, bots, bot_rngs, params, keep)
    if log is not None and log.shape[0] > 0:
        G.log = &log[0]
        G.log_cap = log.shape[0]
    bitgen = rng.bit_generator
    G.bg = _bitgen_of(bitgen)
    M = <Moves*>PyMem_Malloc(sizeof(Moves))
    if M == NULL:
        raise MemoryError()
    try:
        with bitgen.lock, nogil:
            new_deal(&G, first)
            play(&G, M)
    finally:
        PyMem_Free(M)
    if G.err:
        raise RuntimeError(f"game kernel: {_ERRORS.get(G.err, G.err)} (turn {G.turn}, "
                           f"player {G.current})")
    return (G.winner, G.how, G.length, [G.scores[i] for i in range(players)],
            [bool(G.opened[i]) for i in range(players)],
            [G.turn_opened[i] for i in range(players)], G.log_n)
