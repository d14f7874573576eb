# _core_montecarlo.pxi: the Monte Carlo kernels: dealing and evaluation with no Python per deal.
#
# The opening study (study_deals: partial shuffles parsed as drawn, histograms),
# the turns study (study_turns, with its discard rule choose_discard), the odds
# of one hand (study_odds) and the hooks _py_choose_discard, _py_counters,
# _py_node_limit.
#
# (Included by _core.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _core.pyx.)

# ---------------------------------------------------------------------------
# Monte Carlo kernels: dealing and evaluation with no Python per deal


cdef enum:
    JCLASSES = 4        # jokers in hand: 0, 1, 2, 3+
    DECK_BUF = 256      # the by-turn study's stock and discard pile (a deck is <= 120)


cdef inline int jclass(const Hand* h) noexcept nogil:
    return h.jokers if h.jokers < JCLASSES else JCLASSES - 1


cdef inline int hist_bin(int v, int bins) noexcept nogil:
    """The histogram bin of a best value ``v``: ``bins - 1`` holds the hands the search
    gave up on (v < 0, ERR_BUDGET), never a value; the study sizes ``bins`` from the
    rules so that no value reaches it (values past ``bins - 2`` are capped there)."""
    if v < 0:
        return bins - 1
    return v if v < bins - 1 else bins - 2


cdef inline void partial_shuffle(bitgen_t* bg, uint8_t* deck, int deck_n, int k) noexcept nogil:
    """Bring a uniform random k-subset, in random order, to deck[0:k]."""
    cdef int i, j
    cdef uint8_t tmp
    for i in range(k):
        j = i + <int>bounded(bg, <uint32_t>(deck_n - i))
        tmp = deck[i]
        deck[i] = deck[j]
        deck[j] = tmp


cdef extern from *:
    """
    /* hi and lo 64-bit halves of a * b (a < 2**32 where no 128-bit type exists) */
    #include <stdint.h>
    static inline uint64_t r51_mul_hilo(uint64_t a, uint64_t b, uint64_t* lo) {
    #if defined(__SIZEOF_INT128__)
        unsigned __int128 p = (unsigned __int128)a * b;
        *lo = (uint64_t)p;
        return (uint64_t)(p >> 64);
    #else
        uint64_t pl = (b & 0xFFFFFFFFu) * a;
        uint64_t ph = (b >> 32) * a + (pl >> 32);
        *lo = (ph << 32) | (pl & 0xFFFFFFFFu);
        return ph >> 32;
    #endif
    }
    """
    uint64_t r51_mul_hilo(uint64_t a, uint64_t b, uint64_t* lo) nogil


cdef enum:
    BATCH_LIMIT_BITS = 56   # a batch's product of ranges stays below 2**56


ctypedef struct DrawPlan:
    int nb                      # batches
    int end[MAX_HAND]           # batch b draws steps end[b-1] (0 for b = 0) .. end[b]-1
    uint64_t prod[MAX_HAND]     # product of the batch's ranges


cdef void draw_plan(int deck_n, int k, DrawPlan* plan) noexcept nogil:
    """Split steps 0..k-1 of a partial Fisher-Yates shuffle of ``deck_n`` cards (step i
    draws from deck_n - i) into batches whose product of ranges stays below
    2**BATCH_LIMIT_BITS, so that one 64-bit number serves a whole batch."""
    cdef int i = 0, nb = 0
    cdef uint64_t p, s
    while i < k:
        p = 1
        while i < k:
            s = <uint64_t>(deck_n - i)
            if p > ((<uint64_t>1) << BATCH_LIMIT_BITS) // s:
                break
            p *= s
            i += 1
        plan.end[nb] = i
        plan.prod[nb] = p
        nb += 1
    plan.nb = nb


cdef inline uint64_t batch_word(bitgen_t* bg, uint64_t p) noexcept nogil:
    """A 64-bit r for a batch whose product of ranges is ``p``: Lemire's multiply-shift
    with range p, whose low word r * p mod 2**64 (what the batch's digit chain
    leaves) must not fall among the 2**64 mod p lowest values, else draw again."""
    cdef uint64_t r = bg.next_uint64(bg.state)
    cdef uint64_t low = r * p
    cdef uint64_t t
    if low < p:
        t = (<uint64_t>0 - p) % p
        while low < t:
            r = bg.next_uint64(bg.state)
            low = r * p
    return r


cdef inline void shuffle_parse(bitgen_t* bg, uint8_t* deck, int deck_n, const DrawPlan* plan,
                               int hn, Hand* h) noexcept nogil:
    """Bring a uniform random k-subset, in random order, to deck[0:k] (partial
    Fisher-Yates, k the plan's steps), parsing the first ``hn`` <= k cards into ``h``
    as they are dealt (see ``parse_dealt``). The draws are unbiased and batched: one
    64-bit r per batch of the plan (``batch_word``), read as a mixed-radix number
    whose digit for step i, in [0, deck_n - i), is the high word of r * (deck_n - i),
    the low word carrying on to the next step: floor(r * P / 2**64) digit by digit
    (Brackett-Rozinsky & Lemire, "Batched ranged random integer generation", 2024).
    One call of the bit generator serves a batch, not one per card."""
    cdef uint8_t* p = deck
    cdef uint8_t* q
    cdef uint8_t* p_parse = deck + hn
    cdef uint8_t* pe
    cdef uint8_t* pm
    cdef uint64_t n = <uint64_t>deck_n
    cdef uint64_t r, bit, once = 0, twice = 0
    cdef uint8_t card
    cdef int b
    for b in range(plan.nb):
        r = batch_word(bg, plan.prod[b])
        pe = deck + plan.end[b]
        pm = pe if pe < p_parse else p_parse
        while p < pm:
            q = p + r51_mul_hilo(n, r, &r)
            card = q[0]
            q[0] = p[0]
            p[0] = card
            bit = CARD_BIT[card]
            twice |= once & bit
            once |= bit
            p += 1
            n -= 1
        while p < pe:
            q = p + r51_mul_hilo(n, r, &r)
            card = q[0]
            q[0] = p[0]
            p[0] = card
            p += 1
            n -= 1
    h.once = once
    h.twice = twice
    h.jokers = hn - popcount64(once) - popcount64(twice)
    h.n = hn


cdef inline void count_hand(const Rules* r, Hand* h, int k, int jc, int64_t* hist, int bins,
                            int64_t* goout) noexcept nogil:
    """Count one hand of kind ``k`` of the deal study: its best opening, and for hands
    0 and 1 whether it goes out at once (asked only of hands that open: going out is
    an opening keeping one card)."""
    cdef int v = solve(r, h, MODE_BEST, 1, -1, NULL, NULL)
    cdef int g = 0
    if k < 2 and v >= r.threshold:
        g = solve(r, h, MODE_GO_OUT, 0, -1, NULL, NULL)
    if g < 0:
        v = g           # a give-up on going out makes the whole hand a non-answer
    hist[(k * JCLASSES + jc) * bins + hist_bin(v, bins)] += 1
    if v >= 0:
        goout[k * JCLASSES + jc] += g


cdef void deal_study(const Rules* r, bitgen_t* bg, uint8_t* deck, int deck_n, int hs,
                     int64_t n, int what, int64_t* hist, int bins, int64_t* goout) noexcept nogil:
    """``n`` deals. Each: the first player's hs+1 cards (hand 0), another player's hs
    cards plus one drawn from the stock (hand 1), and that player's hs cards alone
    (hand 2). ``what`` has bit k set to evaluate hand k. Adds the best opening
    (keep 1) to ``hist[k][jokers][value]`` (``bins`` bins) and can-go-out to
    ``goout[k][jokers]`` (hands 0 and 1). A hand whose search gives up is counted in
    the last bin and nowhere else."""
    cdef int64_t d
    cdef Hand h
    cdef int v, jc, k
    cdef int need = 2 * hs + 2 if what & 6 else hs + 1   # deal only the cards looked at
    cdef DrawPlan plan
    draw_plan(deck_n, need, &plan)
    for d in range(n):
        shuffle_parse(bg, deck, deck_n, &plan, hs + 1, &h)
        for k in range(3):
            if not what & (1 << k):
                continue
            if k == 1:
                parse_dealt(deck + hs + 1, hs + 1, &h)
            elif k == 2:
                parse_dealt(deck + hs + 1, hs, &h)
            jc = jclass(&h)
            count_hand(r, &h, k, jc, hist, bins, goout)


def study_deals(CoreRules cr, rng, int64_t n, int hand_size, int what,
                int64_t[:, :, ::1] hist, int64_t[:, ::1] goout):
    """Run ``n`` deals of the opening study (see ``deal_study``), adding to ``hist``
    (3, 4, bins), its last bin the hands the search gave up on, and ``goout`` (3, 4).
    The GIL is released; ``rng`` is a numpy Generator used by this call alone."""
    cdef uint8_t[::1] deck = np.array(cr.deck, dtype=np.uint8)
    cdef int deck_n = <int>deck.shape[0]
    cdef bitgen_t* bg
    if hist.shape[0] != 3 or hist.shape[1] != JCLASSES or hist.shape[2] < 2:
        raise ValueError(f"hist must have shape (3, {JCLASSES}, bins) with bins >= 2")
    if goout.shape[0] != 3 or goout.shape[1] != JCLASSES:
        raise ValueError(f"goout must have shape (3, {JCLASSES})")
    if hand_size < 1 or 2 * hand_size + 2 > deck_n:
        raise ValueError(f"hand_size {hand_size} does not fit two hands and a draw in {deck_n} cards")
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    bitgen = rng.bit_generator
    bg = _bitgen_of(bitgen)
    with bitgen.lock, nogil:
        deal_study(&cr.r, bg, &deck[0], deck_n, hand_size, n, what, &hist[0, 0, 0],
                   <int>hist.shape[2], &goout[0, 0])


cdef int melded_outside(const Rules* r, const uint8_t* hand, int n, const int* path, int depth,
                        uint8_t* outside) noexcept nogil:
    """Mark ``outside[i] = 1`` for the cards of ``hand`` that the melds ``path`` do
    not use (copies counted). Returns how many are outside."""
    cdef uint64_t u1 = 0, u2 = 0, m, bit
    cdef int i, code, jused = 0, count = 0
    for i in range(depth):
        m = r.mask[path[i]]
        u2 |= m & u1
        u1 |= m
        jused += r.njokers[path[i]]
    for i in range(n):
        code = hand[i]
        outside[i] = 0
        if code == 52:
            if jused > 0:
                jused -= 1
                continue
        elif code < 52:
            bit = (<uint64_t>1) << BIT_OF[code]
            if u2 & bit:
                u2 &= ~bit
                continue
            if u1 & bit:
                u1 &= ~bit
                continue
        outside[i] = 1
        count += 1
    return count


cdef inline int discard_rank(const Rules* r, int code) noexcept nogil:
    """Order of preference to discard among equals: higher hand value, then higher
    code; a joker last of all."""
    if code >= 52:
        return -1
    return r.hval[code] * 64 + code


cdef int removal_value(const Rules* r, uint8_t* hand, int n, int i) noexcept nogil:
    """The best opening (keep 0) of ``hand`` without its card ``i`` (<0: gave up)."""
    cdef Hand h
    cdef uint8_t tmp = hand[i]
    hand[i] = 255
    parse_hand(r, hand, n, &h)
    hand[i] = tmp
    return solve(r, &h, MODE_BEST, 0, -1, NULL, NULL)


cdef int choose_discard(const Rules* r, uint8_t* hand, int n) noexcept nogil:
    """The discard policy 'keep-best': the index of the card whose removal leaves the
    highest best opening (keep 0); among equals the card worth more in hand, then
    the higher code; a joker only when its removal leaves strictly more than every
    other card's. The choice depends only on the cards, not their order (copies of a
    card are the same choice). -1 when the search gave up."""
    cdef Hand h
    cdef int path[MAX_DEPTH]
    cdef int depth = 0, v0, i, k, v, best_i = -1, best_v = -1, rk, best_rk = -2, joker_i = -1
    cdef bint joker_outside = False, seen
    cdef uint8_t outside[MAX_HAND]
    parse_hand(r, hand, n, &h)
    v0 = solve(r, &h, MODE_BEST, 0, -1, path, &depth)
    if v0 < 0:
        return -1               # the search gave up: no policy answer
    melded_outside(r, hand, n, path, depth, outside)
    # a card outside one best collection keeps v0, the most any removal can keep
    for i in range(n):
        if hand[i] == 52:
            if joker_i < 0 or outside[i]:
                joker_outside = joker_outside or outside[i]
                joker_i = i
        elif outside[i]:
            rk = discard_rank(r, hand[i])
            if rk > best_rk:
                best_rk = rk
                best_i = i
                best_v = v0
    # every other natural card, once per code: it wins by a higher value, or by a higher
    # rank at an equal value; once some card keeps v0, only higher ranks can win
    for i in range(n):
        if outside[i] or hand[i] == 52:
            continue
        rk = discard_rank(r, hand[i])
        if best_v == v0 and rk <= best_rk:
            continue
        seen = False
        for k in range(i):
            if hand[k] == hand[i]:
                seen = True
                break
        if seen:
            continue
        v = removal_value(r, hand, n, i)
        if v < 0:
            return -1
        if v > best_v or (v == best_v and rk > best_rk):
            best_v = v
            best_rk = rk
            best_i = i
    # a joker only when it keeps strictly more than every natural card
    if joker_i >= 0:
        if best_i < 0:
            return joker_i      # only jokers
        if best_v < v0:
            v = v0 if joker_outside else removal_value(r, hand, n, joker_i)
            if v < 0:
                return -1
            if v > best_v:
                return joker_i
    return best_i


cdef void turns_study(const Rules* r, bitgen_t* bg, uint8_t* deck, int deck_n, int hs,
                      int players, int turns, int64_t n, int64_t* first_open,
                      int64_t* dealt) noexcept nogil:
    """``n`` deals to ``players`` seats from one deck; each seat, in turn order, draws
    from the stock (seat 0 not on turn 1), checks whether it can open (keep 1) and
    discards by the 'keep-best' policy. ``first_open[seat][jclass][t]`` counts the
    first turn t (1..turns) a seat could open, ``[t = 0]`` the seats whose search gave up
    (they leave the study then); ``dealt[seat][jclass]`` the deals,
    by the jokers dealt. After it can open a seat leaves the study but still draws,
    discarding the card drawn, so the stock runs as at a table. An empty stock is
    refilled from the discard pile but its top card (rules.reshuffle_stock), or
    ends the deal."""
    cdef uint8_t hands[6][MAX_HAND]
    cdef int hn[6]
    cdef int done[6]
    cdef int jc[6]
    cdef uint8_t pile[DECK_BUF]
    cdef uint8_t stock[DECK_BUF]
    cdef int npile, pos, stock_end, i, t, p, k, card, di, v
    cdef int64_t d
    cdef Hand h
    cdef bint alive
    for d in range(n):
        partial_shuffle(bg, deck, deck_n, deck_n)
        for i in range(deck_n):
            stock[i] = deck[i]
        pos = 0
        for p in range(players):
            hn[p] = hs + 1 if p == 0 else hs
            for i in range(hn[p]):
                hands[p][i] = stock[pos]
                pos += 1
            done[p] = 0
            parse_hand(r, hands[p], hn[p], &h)
            jc[p] = jclass(&h)
            dealt[p * JCLASSES + jc[p]] += 1
        stock_end = deck_n - (1 if r.bottom_card else 0)   # the bottom card is set aside
        npile = 0
        alive = True
        for t in range(1, turns + 1):
            if not alive:
                break
            for p in range(players):
                if not (t == 1 and p == 0):
                    if pos >= stock_end:
                        if not r.reshuffle_stock or npile <= 1:
                            alive = False
                            break
                        # the discard pile but its top card becomes the stock
                        k = npile - 1
                        for i in range(k):
                            stock[i] = pile[i]
                        partial_shuffle(bg, stock, k, k)
                        pile[0] = pile[npile - 1]
                        npile = 1
                        pos = 0
                        stock_end = k
                    card = stock[pos]
                    pos += 1
                    if done[p]:
                        pile[npile] = card
                        npile += 1
                        continue
                    hands[p][hn[p]] = card
                    hn[p] += 1
                elif done[p]:
                    continue
                parse_hand(r, hands[p], hn[p], &h)
                v = solve(r, &h, MODE_CAN_OPEN, 1, -1, NULL, NULL)
                di = choose_discard(r, hands[p], hn[p]) if v == 0 else 0
                if v != 0 or di < 0:
                    # opened (turn t) or the search gave up (counted at index 0): the
                    # seat leaves the study; its cards are out of play
                    done[p] = 1
                    first_open[(p * JCLASSES + jc[p]) * (turns + 1) + (t if v > 0 else 0)] += 1
                    continue
                pile[npile] = hands[p][di]
                npile += 1
                hn[p] -= 1
                hands[p][di] = hands[p][hn[p]]


def study_turns(CoreRules cr, rng, int64_t n, int hand_size, int players, int turns,
                int64_t[:, :, ::1] first_open, int64_t[:, ::1] dealt):
    """Run ``n`` deals of the by-turn study (see ``turns_study``), adding to
    ``first_open`` (players, 4, turns + 1) and ``dealt`` (players, 4)."""
    cdef uint8_t[::1] deck = np.array(cr.deck, dtype=np.uint8)
    cdef int deck_n = <int>deck.shape[0]
    cdef bitgen_t* bg
    if players < 1 or players > 6:
        raise ValueError(f"players must be 1..6, got {players}")
    if turns < 1:
        raise ValueError(f"turns must be >= 1, got {turns}")
    if hand_size < 1 or hand_size + 1 > MAX_HAND - 1 or players * hand_size + 2 > deck_n:
        raise ValueError(f"{players} hands of {hand_size} cards do not fit the {deck_n}-card deck")
    if first_open.shape[0] != players or first_open.shape[1] != JCLASSES or first_open.shape[2] != turns + 1:
        raise ValueError(f"first_open must have shape ({players}, {JCLASSES}, {turns + 1})")
    if dealt.shape[0] != players or dealt.shape[1] != JCLASSES:
        raise ValueError(f"dealt must have shape ({players}, {JCLASSES})")
    if deck_n > DECK_BUF:
        raise ValueError(f"a {deck_n}-card deck is more than the by-turn study's "
                         f"{DECK_BUF}-card stock and discard pile")
    bitgen = rng.bit_generator
    bg = _bitgen_of(bitgen)
    with bitgen.lock, nogil:
        turns_study(&cr.r, bg, &deck[0], deck_n, hand_size, players, turns, n,
                    &first_open[0, 0, 0], &dealt[0, 0])


cdef void odds_study(const Rules* r, bitgen_t* bg, const uint8_t* start, int n0,
                     uint8_t* unseen, int nu, int draws, int64_t n,
                     int64_t* first_open, int64_t* first_out) noexcept nogil:
    """``n`` samples: the hand ``start`` draws ``draws`` cards one by one from the
    shuffled ``unseen`` cards, discarding by 'keep-best' after each. Counts the first
    draw k (0 = before drawing) at which it can open (keep 1) in ``first_open[k]``
    and can go out at once in ``first_out[k]``; index draws + 1: never; index draws + 2:
    the search gave up on the sample (counted there in both, nowhere else)."""
    cdef uint8_t hand[MAX_HAND]
    cdef int hn, k, i, di, opened, out, v, gave_up
    cdef int64_t d
    cdef Hand h
    for d in range(n):
        partial_shuffle(bg, unseen, nu, draws)
        for i in range(n0):
            hand[i] = start[i]
        hn = n0
        opened = -1
        out = -1
        gave_up = 0
        for k in range(draws + 1):
            if k > 0:
                hand[hn] = unseen[k - 1]
                hn += 1
            parse_hand(r, hand, hn, &h)
            if opened < 0:
                v = solve(r, &h, MODE_CAN_OPEN, 1, -1, NULL, NULL)
                if v < 0:
                    gave_up = 1
                    break
                if v:
                    opened = k
            # going out at once is an opening keeping one card: only then ask
            if out < 0 and opened >= 0:
                v = solve(r, &h, MODE_GO_OUT, 0, -1, NULL, NULL)
                if v < 0:
                    gave_up = 1
                    break
                if v:
                    out = k
            if opened >= 0 and out >= 0:
                break
            if k < draws and hn > n0:
                di = choose_discard(r, hand, hn)
                if di < 0:
                    gave_up = 1
                    break
                hn -= 1
                hand[di] = hand[hn]
        if gave_up:
            first_open[draws + 2] += 1
            first_out[draws + 2] += 1
            continue
        first_open[opened if opened >= 0 else draws + 1] += 1
        first_out[out if out >= 0 else draws + 1] += 1


def study_odds(CoreRules cr, rng, const uint8_t[::1] hand, const uint8_t[::1] unseen,
               int draws, int64_t n, int64_t[::1] first_open, int64_t[::1] first_out):
    """Run ``n`` samples of the hand-odds study (see ``odds_study``)."""
    cdef uint8_t[::1] pool = np.array(unseen, dtype=np.uint8)
    cdef Hand h
    cdef bitgen_t* bg
    if draws < 0 or draws > pool.shape[0]:
        raise ValueError(f"draws must be 0..{pool.shape[0]} (the unseen cards), got {draws}")
    if hand.shape[0] + 1 > MAX_HAND:
        raise ValueError(f"hand holds {hand.shape[0]} cards; at most {MAX_HAND - 1} can draw")
    if first_open.shape[0] != draws + 3 or first_out.shape[0] != draws + 3:
        raise ValueError(f"first_open and first_out must have {draws + 3} entries")
    err = parse_hand(&cr.r, &hand[0] if hand.shape[0] else NULL, hand.shape[0], &h)
    if err:
        raise ValueError(_error_text(err, 0, h.n, hand, cr, False))
    if pool.shape[0] == 0:
        pool = np.zeros(1, np.uint8)
    bitgen = rng.bit_generator
    bg = _bitgen_of(bitgen)
    with bitgen.lock, nogil:
        odds_study(&cr.r, bg, &hand[0] if hand.shape[0] else NULL, <int>hand.shape[0],
                   &pool[0], <int>unseen.shape[0], draws, n, &first_open[0], &first_out[0])


def _py_choose_discard(CoreRules cr, const uint8_t[::1] hand):
    """Testing hook: the index the 'keep-best' discard policy drops from ``hand``."""
    cdef uint8_t[::1] work = np.array(hand, dtype=np.uint8)
    cdef Hand h
    if work.shape[0] == 0:
        raise ValueError("cannot discard from an empty hand")
    err = parse_hand(&cr.r, &work[0], work.shape[0], &h)
    if err:
        raise ValueError(_error_text(err, 0, h.n, work, cr, False))
    cdef int i
    with nogil:
        i = choose_discard(&cr.r, &work[0], <int>work.shape[0])
    if i < 0:
        raise ValueError(f"the search gave up on this {work.shape[0]}-card hand "
                         f"({NODE_LIMIT:,} nodes): no discard policy answer")
    return i


def _py_counters():
    """Search statistics (nodes visited, catalogue entries scanned) since import;
    always (0, 0) unless the extension was built with CFLAGS=-DR51_STATS."""
    return r51_nodes, r51_scans


def _py_node_limit(limit=None):
    """Testing hook: the search's node budget; set it when ``limit`` is given.
    Returns the previous value."""
    global NODE_LIMIT
    old = NODE_LIMIT
    if limit is not None:
        if limit < 1:
            raise ValueError("limit must be >= 1")
        NODE_LIMIT = limit
    return old
