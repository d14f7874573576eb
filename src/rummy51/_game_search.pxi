# _game_search.pxi: positions and rollouts for the search bot.
#
# The rollouts' own small generator (splitmix64), seating bots, applying a
# candidate move, and Position: a deal resumed from a state, played out or rolled
# out many times.
#
# (Included by _game.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _game.pyx.)

# --------------------------------------------------------------------------- positions (the search bot's)
cdef inline uint64_t sm_next64(void* st) noexcept nogil:
    """splitmix64: the rollouts' own small generator for reshuffles (one seed per
    determinization, so every candidate of a rollout meets the same reshuffles)."""
    cdef uint64_t* s = <uint64_t*>st
    cdef uint64_t z
    s[0] += <uint64_t>0x9E3779B97F4A7C15
    z = s[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef uint32_t sm_next32(void* st) noexcept nogil:
    return <uint32_t>(sm_next64(st) >> 32)


cdef double sm_double(void* st) noexcept nogil:
    return (sm_next64(st) >> 11) * (1.0 / 9007199254740992.0)


cdef uint64_t sm_raw(void* st) noexcept nogil:
    return sm_next64(st)


def search_params(par):
    """A search seat's ``(budget, candidates, z, ms[, horizon])``, checked (kernel rollouts a
    decision 2..10**7, discard candidates 1..16, z 0..100, ms >= 0 with 0 for no clock,
    horizon: rollouts cut off after that many turns and scored by the static margin,
    0..10**6 with 0 for rollouts to the deal's end; left out: the default, 4)."""
    if len(par) not in (4, 5):
        raise ValueError(f"search params need (budget, candidates, z, ms[, horizon]), "
                         f"got {len(par)} values")
    budget, cands, z, ms = par[:4]
    horizon = par[4] if len(par) == 5 else S_DEFAULT_HORIZON
    budget, cands, z, ms, horizon = int(budget), int(cands), float(z), float(ms), int(horizon)
    if not 0 <= horizon <= 10**6:
        raise ValueError(f"search horizon {horizon} is not 0..10**6 turns")
    if not 2 <= budget <= 10**7:
        raise ValueError(f"search budget {budget} is not 2..10**7 rollouts")
    if not 1 <= cands <= 16:
        raise ValueError(f"search candidates {cands} is not 1..16")
    if not 0 <= z < 100 or not 0 <= ms < float("inf"):
        raise ValueError(f"search z {z} or ms {ms} out of range")
    return budget, cands, z, ms, horizon


cdef int seat_bots(Game* G, int players, bots, bot_rngs, params, list keep) except -1:
    """Seat ``bots[i]`` (codes; None: greedy everywhere) with their parameters, as
    ``play_table`` takes them."""
    cdef int i, b
    if bots is not None and len(bots) != players:
        raise ValueError(f"{len(bots)} bots for {players} players")
    for i in range(players):
        b = B_GREEDY if bots is None else int(bots[i])
        if not B_RANDOM <= b <= B_LEARNED:
            raise ValueError(f"bot code {b} is not 0..6")
        net_bind(&G.net[i], None, keep)
        G.bot[i] = b
        G.brng[i] = NULL
        G.p_hold[i] = 0.12
        G.max_round[i] = 6
        G.min_opp[i] = 5
        G.take_gain[i] = 6
        G.feed_pen[i] = 6
        G.s_budget[i] = S_DEFAULT_BUDGET
        G.s_cands[i] = 3
        G.s_z[i] = 1.0
        G.s_ms[i] = 0.0
        G.s_horizon[i] = S_DEFAULT_HORIZON
        par = None if params is None else params[i]
        if b == B_SEARCH or b == B_LEARNED:
            # the learned model: the last of the seat's parameters (never a default: the
            # caller loads and checks it, rummy51.learned.load_model)
            model = None if not par else par[len(par) - 1]
            if model is None or isinstance(model, (int, float)):
                what = "search" if b == B_SEARCH else "learned"
                raise ValueError(f"seat {i} is a {what} bot: give its learned model as the last "
                                 f"of its params (rummy51.learned.load_model('r51'))")
            net_bind(&G.net[i], model, keep)
            if G.net[i].nin != NF:
                raise ValueError(f"seat {i}: the model has {G.net[i].nin} features, the kernel "
                                 f"computes {NF} (feature version {R51_FEATURE_VERSION})")
            if b == B_SEARCH:
                par = par[:len(par) - 1] if len(par) > 1 else None
        if b == B_RANDOM or b == B_SEARCH or b == B_SEARCH_PLAIN:
            if bot_rngs is None or bot_rngs[i] is None:
                what = "random" if b == B_RANDOM else "search"
                raise ValueError(f"seat {i} is a {what} bot: give its Generator in bot_rngs")
            bg = bot_rngs[i].bit_generator
            keep.append(bg)
            G.brng[i] = _bitgen_of(bg)
            if (b == B_SEARCH or b == B_SEARCH_PLAIN) and par is not None:
                G.s_budget[i], G.s_cands[i], G.s_z[i], G.s_ms[i], G.s_horizon[i] = \
                    search_params(par)
        elif b == B_HAND_HUNTER and par is not None:
            G.p_hold[i] = float(par[0])
            G.max_round[i] = int(par[1])
            G.min_opp[i] = int(par[2])
        elif b == B_TACTICIAN and par is not None:
            G.take_gain[i] = int(par[0])
            G.feed_pen[i] = int(par[1])
    return 0


cdef enum:
    # a candidate move of Position.rollouts
    C_NONE = -1         # no move: the seat's rollout bot plays on
    C_DRAW = 0          # Draw(source x)
    C_DISCARD = 4       # Discard(card x)


cdef int apply_candidate(Game* G, int kind, int x) noexcept nogil:
    """Make one candidate move for the player on turn; -1 if it is not possible here."""
    cdef int p = G.current
    if kind == C_NONE:
        return 0
    if kind == C_DRAW:
        if G.phase != PH_DRAW:
            return -1
        if x == SRC_STOCK and G.stock_n > 0:
            do_draw(G, SRC_STOCK)
            return 0
        if x == SRC_DISCARD and G.pile_n > 0:
            do_draw(G, SRC_DISCARD)
            return 0
        if x == SRC_BOTTOM and G.bottom >= 0:
            do_draw(G, SRC_BOTTOM)
            return 0
        return -1
    if kind == C_DISCARD:
        if G.phase != PH_PLAY or not 0 <= x <= JOKER or G.cnt[p][x] <= 0 or G.freed:
            return -1
        do_discard(G, x)
        return 0
    return -1


cdef class Position:
    """One deal's state loaded into the kernel (``rummy51.fastgame.position``): the hands as
    counts per card code, the stock (top last), the discard pile (top last), the bottom
    card, the table melds, who opened, the turn and this turn's ``TurnInfo``.

    ``play`` plays the rest of the deal from it with kernel bots. ``rollouts`` plays it
    many times from determinizations: the cards of ``pool`` dealt at random to the hidden
    parts of the other hands and to the stock, each candidate move made, then the rest
    played; the search bot's rollouts (``rummy51.r51.search``)."""
    cdef Game G
    cdef GreedyKernel k
    cdef readonly int players

    def __init__(self, GreedyKernel k, int players, int current, int turn, int phase,
                 int32_t[:, ::1] cnt, int32_t[::1] stock, int32_t[::1] pile, int bottom,
                 table, opened, turn_opened, turn_info):
        cdef int i, j, c, n
        cdef TMeld* m
        if players < 2 or players > MAXP:
            raise ValueError(f"players must be 2..{MAXP}, got {players}")
        if not 0 <= current < players:
            raise ValueError(f"current must be a seat 0..{players - 1}, got {current}")
        if phase != PH_DRAW and phase != PH_PLAY:
            raise ValueError(f"phase must be 0 (draw) or 1 (play), got {phase}")
        if not 0 <= turn < k.g.max_turns:
            raise ValueError(f"turn {turn} is not 0..{k.g.max_turns - 1}")
        if cnt.shape[0] != players or cnt.shape[1] != 53:
            raise ValueError(f"cnt must be ({players}, 53), got ({cnt.shape[0]}, {cnt.shape[1]})")
        if stock.shape[0] > MAXDECK or pile.shape[0] > MAXDECK:
            raise ValueError("stock or discard pile longer than a deck")
        if len(table) > MAXT:
            raise ValueError(f"{len(table)} table melds: the kernel holds {MAXT}")
        if len(opened) != players or len(turn_opened) != players or len(turn_info) != 7:
            raise ValueError("opened and turn_opened need one entry a seat, turn_info 7 fields")
        if not -1 <= bottom <= JOKER:
            raise ValueError(f"bottom card {bottom} is not a card code (or -1)")
        self.k = k
        self.players = players
        memset(&self.G, 0, sizeof(Game))
        G = &self.G
        G.sr = core_rules_of(k.core)
        G.g = &k.g
        G.n = players
        for i in range(players):
            n = 0
            for c in range(53):
                if cnt[i, c] < 0:
                    raise ValueError(f"seat {i} holds a negative count of card {c}")
                G.cnt[i][c] = cnt[i, c]
                n += cnt[i, c]
            G.hn[i] = n
            G.opened[i] = 1 if opened[i] else 0
            G.turn_opened[i] = int(turn_opened[i])
        for i in range(stock.shape[0]):
            if not 0 <= stock[i] <= JOKER:
                raise ValueError(f"stock card {stock[i]} is not a card code")
            G.stock[i] = stock[i]
        G.stock_n = <int>stock.shape[0]
        for i in range(pile.shape[0]):
            if not 0 <= pile[i] <= JOKER:
                raise ValueError(f"discard pile card {pile[i]} is not a card code")
            G.pile[i] = pile[i]
        G.pile_n = <int>pile.shape[0]
        G.bottom = bottom
        for i, (kind, owner, cards, reps) in enumerate(table):
            if len(cards) != len(reps) or not 3 <= len(cards) <= MAXMC:
                raise ValueError(f"table meld {i}: {len(cards)} cards, {len(reps)} stand-ins")
            m = &G.table[i]
            m.kind = int(kind)
            m.owner = int(owner)
            m.n = len(cards)
            for j in range(m.n):
                m.cards[j] = int(cards[j])
                m.reps[j] = int(reps[j])
        G.table_n = len(table)
        G.turn = turn
        G.current = current
        G.phase = phase
        (G.src, G.drawn, G.must_open, G.tbottom, G.freed, G.touched,
         G.opened_at_start) = [int(v) for v in turn_info]
        G.winner = -1
        G.how = -1

    def set_known(self, int32_t[:, ::1] known):
        """Each seat's known cards (``search.known_cards`` of the history), which a search
        seat playing on from this position keeps."""
        cdef int i, c
        if known.shape[0] != self.players or known.shape[1] != 53:
            raise ValueError(f"known must be ({self.players}, 53)")
        for i in range(self.players):
            for c in range(53):
                if not 0 <= known[i, c] <= self.G.cnt[i][c]:
                    raise ValueError(f"seat {i}: {known[i, c]} known copies of card {c}, "
                                     f"holds {self.G.cnt[i][c]}")
                self.G.known[i][c] = known[i, c]

    def search(self, int32_t[::1] pool, int32_t[::1] hidden, rng, params,
               int32_t[::1] log, model=None):
        """The search bot's move from a view loaded here (``search.view_position``: the
        other hands hold their known cards only, ``hidden[q]`` more each, ``pool`` the
        unseen cards, ascending): the candidates raced with rollouts (``params``: budget,
        discard candidates, z, ms) drawing from ``rng``, the chosen move logged to ``log``;
        ``model``: the learned model scoring the rollouts at the horizon (None: the static
        margin). Returns ``(log_n, rollouts, searched, switched, candidates)``."""
        cdef Net net
        cdef list keep = []
        cdef SearchWork* W
        cdef Moves* M
        cdef int q, i, c, sn, budget, cands, best, horizon, err = 0
        cdef double z, ms
        cdef uint64_t dummy = 0
        cdef bitgen_t smg
        cdef Game* G = &self.G
        if hidden.shape[0] != self.players:
            raise ValueError(f"hidden needs one count a seat, got {hidden.shape[0]}")
        if pool.shape[0] > MAXDECK:
            raise ValueError("pool larger than a deck")
        budget, cands, z, ms, horizon = search_params(params)
        net_bind(&net, model, keep)
        if model is not None and net.nin != NF:
            raise ValueError(f"the model has {net.nin} features, the kernel computes {NF}")
        sn = <int>pool.shape[0]
        for q in range(self.players):
            if hidden[q] < 0 or (q == G.current and hidden[q] != 0):
                raise ValueError(f"hidden[{q}] is {hidden[q]}")
            sn -= hidden[q]
        if sn < 0:
            raise ValueError("the pool holds fewer cards than the hidden hands")
        for i in range(pool.shape[0]):
            if not 0 <= pool[i] <= JOKER or (i and pool[i] < pool[i - 1]):
                raise ValueError("pool must be card codes, ascending")
        if G.phase == PH_OVER:
            raise ValueError("the deal is over")
        W = <SearchWork*>malloc(sizeof(SearchWork))
        M = <Moves*>PyMem_Malloc(sizeof(Moves))
        if W == NULL or M == NULL:
            free(W)
            PyMem_Free(M)
            raise MemoryError()
        try:
            W.V = G[0]
            W.npool = <int>pool.shape[0]
            for i in range(W.npool):
                W.pool[i] = pool[i]
            for q in range(self.players):
                W.hidden[q] = hidden[q]
                W.V.hn[q] += hidden[q]
                if q != G.current:
                    for c in range(53):
                        W.V.known[q][c] = W.V.cnt[q][c]
            W.V.stock_n = sn
            W.V.err = 0
            bitgen = rng.bit_generator
            bg = _bitgen_of(bitgen)
            with bitgen.lock, nogil:
                best = search_decide(W, M, bg, budget, cands, z, ms, horizon, &net)
                if best >= 0:
                    W.G = W.V
                    W.G.log = &log[0]
                    W.G.log_n = 0
                    W.G.log_cap = log.shape[0]
                    # a reshuffle after the move is not this move: any generator will do
                    smg.state = &dummy
                    smg.next_uint64 = sm_next64
                    smg.next_uint32 = sm_next32
                    smg.next_double = sm_double
                    smg.next_raw = sm_raw
                    W.G.bg = &smg
                    apply_cand(&W.G, W, &W.cand[best])
            if best < 0:
                err = W.V.err
                raise RuntimeError(f"game kernel: {_ERRORS.get(err, err)} in a search")
            return W.G.log_n, W.rollouts, bool(W.searched), bool(W.switched), W.ncand
        finally:
            free(W)
            PyMem_Free(M)

    def complete(self):
        """Whether every card of the deck is in one place (a full state, not a view)."""
        cdef int u[53]
        cdef int c, i, j
        G = &self.G
        for c in range(53):
            u[c] = 0
        for i in range(G.n):
            for c in range(53):
                u[c] += G.cnt[i][c]
        for i in range(G.stock_n):
            u[G.stock[i]] += 1
        for i in range(G.pile_n):
            u[G.pile[i]] += 1
        for i in range(G.table_n):
            for j in range(G.table[i].n):
                u[G.table[i].cards[j]] += 1
        if G.bottom >= 0:
            u[G.bottom] += 1
        return all(u[c] == self.k.g.deckcnt[c] for c in range(53))

    def play(self, rng, bots=None, bot_rngs=None, params=None, int32_t[::1] log=None):
        """Play the rest of the deal (the position itself is kept) as ``play_table`` plays a
        deal: seat ``i`` plays kernel bot ``bots[i]``; an empty stock is refilled from the
        discard pile shuffled with ``rng``. Returns what ``play_table`` returns."""
        cdef Game G = self.G
        cdef Moves* M
        cdef list keep = []
        seat_bots(&G, self.players, bots, bot_rngs, params, keep)
        G.log = NULL
        G.log_n = 0
        G.log_cap = 0
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
                play(&G, M)
        finally:
            PyMem_Free(M)
        if G.err:
            raise RuntimeError(f"game kernel: {_ERRORS.get(G.err, G.err)} (turn {G.turn}, "
                               f"player {G.current})")
        return (G.winner, G.how, G.length, [G.scores[i] for i in range(self.players)],
                [bool(G.opened[i]) for i in range(self.players)],
                [G.turn_opened[i] for i in range(self.players)], G.log_n)

    def rollouts(self, int32_t[::1] pool, int32_t[::1] hidden, int32_t[:, ::1] cands, rng,
                 bots, params, int32_t[:, :, ::1] out):
        """``out.shape[1]`` determinized rollouts of every candidate (common random numbers:
        rollout ``r`` of each candidate starts from the same determinization and meets the
        same reshuffles).

        A determinization deals the cards of ``pool``, shuffled with ``rng``, ``hidden[q]``
        to seat ``q`` (on top of the cards the position gives it) and the rest to the stock
        (the position's stock is ignored: ``len(pool) - sum(hidden)`` cards). Candidate
        ``cands[i] = (kind, x, _)`` is -1 (no move), 0 (draw from source x: 0 stock,
        1 discard, 2 bottom) or 4 (discard card x), made by the player on turn; then
        every seat plays its kernel bot (``bots``: greedy, hand-hunter or tactician
        codes; ``params`` as for ``play_table``) to the end. ``out[i, r]`` gets the
        scores. The position is kept."""
        cdef Game B = self.G
        cdef Game G
        cdef Moves* M
        cdef list keep = []
        cdef int np_ = <int>pool.shape[0], nc = <int>cands.shape[0], nr = <int>out.shape[1]
        cdef int i, r, q, c, pos, sn, bad = -1, err = 0, errturn = 0
        cdef int deal[MAXDECK]
        cdef int kinds[256]
        cdef int xs[256]
        cdef uint64_t seed, sm_state
        cdef bitgen_t smg
        cdef bitgen_t* bg
        if hidden.shape[0] != self.players:
            raise ValueError(f"hidden needs one count a seat, got {hidden.shape[0]}")
        if out.shape[0] != nc or out.shape[2] != self.players:
            raise ValueError(f"out must be ({nc}, rollouts, {self.players})")
        if nc > 256:
            raise ValueError(f"{nc} candidates: at most 256")
        if np_ > MAXDECK:
            raise ValueError("pool larger than a deck")
        sn = np_
        for q in range(self.players):
            if hidden[q] < 0:
                raise ValueError(f"hidden[{q}] is negative")
            sn -= hidden[q]
        if sn < 0:
            raise ValueError("the pool holds fewer cards than the hidden hands")
        for i in range(np_):
            if not 0 <= pool[i] <= JOKER:
                raise ValueError(f"pool card {pool[i]} is not a card code")
        for i in range(nc):
            kinds[i] = cands[i, 0]
            xs[i] = cands[i, 1]
            if kinds[i] not in (C_NONE, C_DRAW, C_DISCARD):
                raise ValueError(f"candidate {i}: kind {kinds[i]} is not -1, 0 or 4")
        seat_bots(&B, self.players, bots, None, params, keep)
        for q in range(self.players):
            if B.bot[q] == B_RANDOM or B.bot[q] >= B_SEARCH:
                raise ValueError("rollouts play greedy, hand-hunter or tactician seats only")
        B.log = NULL
        B.log_n = 0
        B.log_cap = 0
        smg.state = &sm_state
        smg.next_uint64 = sm_next64
        smg.next_uint32 = sm_next32
        smg.next_double = sm_double
        smg.next_raw = sm_raw
        bitgen = rng.bit_generator
        bg = _bitgen_of(bitgen)
        M = <Moves*>PyMem_Malloc(sizeof(Moves))
        if M == NULL:
            raise MemoryError()
        try:
            with bitgen.lock, nogil:
                for r in range(nr):
                    for i in range(np_):
                        deal[i] = pool[i]
                    np_shuffle(bg, deal, np_)
                    seed = bg.next_uint64(bg.state)
                    pos = 0
                    for q in range(B.n):
                        for c in range(hidden[q]):
                            B.cnt[q][deal[pos]] += 1
                            pos += 1
                        B.hn[q] += hidden[q]
                    for i in range(sn):
                        B.stock[i] = deal[pos + i]
                    B.stock_n = sn
                    for i in range(nc):
                        G = B
                        sm_state = seed
                        G.bg = &smg
                        if apply_candidate(&G, kinds[i], xs[i]) < 0:
                            bad = i
                            break
                        play(&G, M)
                        if G.err:
                            err = G.err
                            errturn = G.turn
                            break
                        for q in range(B.n):
                            out[i, r, q] = G.scores[q]
                    # undo the deal of the hidden cards
                    pos = 0
                    for q in range(B.n):
                        for c in range(hidden[q]):
                            B.cnt[q][deal[pos]] -= 1
                            pos += 1
                        B.hn[q] -= hidden[q]
                    if bad >= 0 or err:
                        break
        finally:
            PyMem_Free(M)
        if bad >= 0:
            raise ValueError(f"candidate {bad} ({kinds[bad]}, {xs[bad]}) is not a move here")
        if err:
            raise RuntimeError(f"game kernel: {_ERRORS.get(err, err)} in a rollout (turn {errturn})")
