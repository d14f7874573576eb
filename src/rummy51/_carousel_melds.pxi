# _carousel_melds.pxi: the melds of a table given as counts, read off one run of the program.
#
# A play is found as counts (the table after it: the naturals of each card, the
# jokers and the card each stands for). Its melds are arranged here by one run of the
# program on those counts alone (every card required, nothing optional) that keeps
# each layer's states (``Path.with_keys``): the path of that run says, position by
# position, which open runs each suit's slots continue, which runs start there and
# what goes into the rank's sets, and ``_arrange`` reads the melds off it. No meld is
# tried and refuted (``_rebuild`` asks the program once per candidate meld); the
# program is asked once (a narrow beam search first: any arrangement will do, and one
# it finds is a real one).
#
# Where neither joker rule of a meld can bite (at most two jokers, and a per-meld limit
# of at least the jokers there are: every meld of three slots keeps a natural) the
# counts are arranged as slots, jokers and naturals alike, so the program runs without
# jokers, and each joker then takes one of its card's slots. Otherwise the program
# runs with the jokers, its runs carrying whether they hold a natural and how many
# jokers (``track_nat``, ``track_jk``), which the reading follows.
#
# (Included by _carousel.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _carousel.pyx.)

DEF AR_BEAM = 64          # states a layer of the arrangement's beam search
DEF AR_MAXOPEN = 8        # open runs of one suit while reading (the program keeps <= 6)
DEF AR_MAXSET = 8         # sets of one rank

cdef struct ARun:
    int start              # its first position (1..14)
    int len                # its slots so far
    uint8_t code           # its run code in the program's states
    uint8_t jk[14]         # which of its slots hold a joker


cdef struct ArrCtx:
    const CRules* r
    int tnat               # runs carry "holds a natural" (track_nat)
    int tjk                # and their joker count (track_jk)
    int limit              # jokers a meld may hold
    ARun open[4][AR_MAXOPEN]
    int nopen[4]
    Rebuild* out


cdef inline uint8_t _ar_next(const ArrCtx* a, uint8_t code, int joker) noexcept nogil:
    """The code of a run ``code`` continued by a natural (``joker`` 0) or a joker, as the
    program makes it (``_opts_rec``)."""
    cdef int ln = code & 3, nat = (code >> 2) & 1, jk = code >> 3
    ln = ln + 1 if ln < 3 else 3
    if not joker:
        return <uint8_t>(ln | 4 | (jk << 3))
    if a.tjk:
        return <uint8_t>(ln | (nat << 2) | ((jk + 1) << 3))
    return <uint8_t>(ln | (nat << 2))


cdef inline uint8_t _ar_start(const ArrCtx* a, int joker) noexcept nogil:
    """The code of a run started at a natural or a joker (``_opts_rec``)."""
    if not joker:
        return <uint8_t>(1 | 4)
    return <uint8_t>(1 | (8 if a.tjk else 0) | (0 if a.tnat else 4))


cdef int _ar_emit(ArrCtx* a, int s, const ARun* run) noexcept nogil:
    """A finished run of suit ``s`` as a meld of the output; -1 when it is full."""
    cdef Rebuild* out = a.out
    cdef int i, q
    if out.nmelds >= RB_MAXMELDS or out.nslots + run.len > RB_MAXSLOTS:
        return -1
    for i in range(run.len):
        q = _card_at(s, run.start + i)
        out.card[out.nslots + i] = 52 if run.jk[i] else <uint8_t>q
        out.rep[out.nslots + i] = <uint8_t>q
    out.nslots += run.len
    out.mlen[out.nmelds] = run.len
    out.nmelds += 1
    return 0


cdef int _ar_sets(ArrCtx* a, int p, int* sn, int* sj, int nsets, uint8_t* smask,
                  uint8_t* sjm) noexcept nogil:
    """Split the naturals ``sn[s]`` and jokers ``sj[s]`` each suit gives the sets of
    rank ``p`` into sets (3 or 4 suits, a natural, at most ``limit`` jokers): the
    sets' suit masks and joker masks from ``nsets`` on; their number, or -1 if none."""
    cdef int s0 = -1, s, m, jm, k, n, ok, got
    for s in range(4):
        if sn[s] + sj[s] > 0:
            s0 = s
            break
    if s0 < 0:
        return nsets
    if nsets >= AR_MAXSET:
        return -1
    # the sets holding a slot of suit s0 (the lowest with slots left), larger first
    for m in range(15, 0, -1):
        if not (m >> s0) & 1:
            continue
        n = (m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1) + ((m >> 3) & 1)
        if n < 3:
            continue
        ok = 1
        for s in range(4):
            if (m >> s) & 1 and sn[s] + sj[s] == 0:
                ok = 0
                break
        if not ok:
            continue
        # which of its slots are jokers (fewest first): a natural, at most limit jokers
        for k in range(0, n):
            if k > a.limit:
                break
            for jm in range(16):
                if (jm & ~m) or ((jm & 1) + ((jm >> 1) & 1) + ((jm >> 2) & 1) + ((jm >> 3) & 1)) != k:
                    continue
                if jm == m:
                    continue
                ok = 1
                for s in range(4):
                    if (m >> s) & 1:
                        if (jm >> s) & 1:
                            if sj[s] == 0:
                                ok = 0
                        elif sn[s] == 0:
                            ok = 0
                if not ok:
                    continue
                for s in range(4):
                    if (m >> s) & 1:
                        if (jm >> s) & 1:
                            sj[s] -= 1
                        else:
                            sn[s] -= 1
                smask[nsets] = <uint8_t>m
                sjm[nsets] = <uint8_t>jm
                got = _ar_sets(a, p, sn, sj, nsets + 1, smask, sjm)
                for s in range(4):
                    if (m >> s) & 1:
                        if (jm >> s) & 1:
                            sj[s] += 1
                        else:
                            sn[s] += 1
                if got >= 0:
                    return got
    return -1


cdef struct SuitChoice:
    int sn                 # naturals it gives the sets
    int sj                 # jokers it gives the sets
    uint8_t act[AR_MAXOPEN]   # each open run: 0 ends before p, 1 a natural, 2 a joker
    int news_nat           # runs started at p with a natural
    int news_jk            # and with a joker


cdef int _ar_suit_choices(const ArrCtx* a, int s, const uint8_t* nc, int nnc, int nat, int jok,
                          int last, SuitChoice* outc, int maxc) noexcept nogil:
    """Every way suit ``s``'s open runs and its ``nat`` naturals and ``jok`` jokers at
    this position make the runs ``nc`` (the next state's codes; none at the last
    position, where a continued run ends), at most ``maxc``: their number."""
    cdef int n = a.nopen[s], i, k, total = 1, idx, c, x, used_nat, used_jk, cnt = 0, j
    cdef int rem[AR_MAXOPEN + 8]
    cdef uint8_t want[AR_MAXOPEN + 8]
    cdef uint8_t act[AR_MAXOPEN]
    cdef int nrem, nn, nj, matched, both
    cdef uint8_t code
    if n == 0 and nnc == 0:
        # nothing open and nothing starting: every slot goes to the sets
        outc[0].sn = nat
        outc[0].sj = jok
        outc[0].news_nat = 0
        outc[0].news_jk = 0
        return 1
    for i in range(n):
        total *= 3
    for idx in range(total):
        x = idx
        used_nat = 0
        used_jk = 0
        for i in range(n):
            act[i] = <uint8_t>(x % 3)
            x //= 3
        # identical runs are interchangeable: take each multiset of actions once
        # (non-decreasing actions over equal codes)
        c = 1
        for i in range(1, n):
            if a.open[s][i].code == a.open[s][i - 1].code and act[i] < act[i - 1]:
                c = 0
                break
        if not c:
            continue
        for k in range(nnc):
            want[k] = nc[k]
        nrem = nnc
        c = 1
        for i in range(n):
            code = a.open[s][i].code
            if act[i] == 0:
                if (code & 3) < 3 or not (code & 4):
                    c = 0
                    break
                continue
            if act[i] == 2 and (a.limit == 0 or (a.tjk and (code >> 3) >= a.limit)):
                c = 0
                break
            if act[i] == 1:
                used_nat += 1
            else:
                used_jk += 1
            if last:
                if (code & 3) < 2 or (act[i] == 2 and not (code & 4)):
                    c = 0
                    break
                continue
            code = _ar_next(a, code, act[i] == 2)
            matched = 0
            for k in range(nrem):
                if want[k] == code:
                    want[k] = want[nrem - 1]
                    nrem -= 1
                    matched = 1
                    break
            if not matched:
                c = 0
                break
        if not c:
            continue
        # what is left of the next codes must be runs started here: with a natural or a
        # joker (where the two codes are one, either: each split is a choice)
        nn = 0
        nj = 0
        for k in range(nrem):
            if want[k] == _ar_start(a, 0):
                nn += 1
            elif want[k] == _ar_start(a, 1):
                nj += 1
            else:
                c = 0
                break
        if not c:
            continue
        both = nn if _ar_start(a, 0) == _ar_start(a, 1) else 0
        for j in range(both + 1):
            # j of the starts with a joker (where the codes are one)
            if used_nat + nn - j > nat or used_jk + nj + j > jok:
                continue
            if cnt < maxc:
                outc[cnt].sn = nat - used_nat - (nn - j)
                outc[cnt].sj = jok - used_jk - (nj + j)
                for i in range(n):
                    outc[cnt].act[i] = act[i]
                outc[cnt].news_nat = nn - j
                outc[cnt].news_jk = nj + j
                cnt += 1
    return cnt


DEF AR_MAXCH = 24


cdef int _ar_position(ArrCtx* a, int p, int last, const uint8_t nc[4][MAXRUNS], const int* nnc,
                      const int* nat, const int* jok) noexcept nogil:
    """Read position ``p``: each suit's choice (``_ar_suit_choices``) such that the
    rank's sets can be made; apply it (runs ended, continued, started; the sets
    emitted). 0, or -1 when no choice fits (a bug), -2 the output is full."""
    cdef SuitChoice ch[4][AR_MAXCH]
    cdef int nch[4]
    cdef int s, i, k, nsets, j, q
    cdef int pick[4]
    cdef int sn[4]
    cdef int sj[4]
    cdef uint8_t smask[AR_MAXSET]
    cdef uint8_t sjm[AR_MAXSET]
    cdef ARun keep[AR_MAXOPEN]
    cdef int nkeep
    cdef ARun* run
    cdef Rebuild* out = a.out
    for s in range(4):
        nch[s] = _ar_suit_choices(a, s, nc[s], nnc[s], nat[s], jok[s], last, ch[s], AR_MAXCH)
        if nch[s] == 0:
            return -1
    # the first combination of the suits' choices whose sets can be made
    for s in range(4):
        pick[s] = 0
    while True:
        for s in range(4):
            sn[s] = ch[s][pick[s]].sn
            sj[s] = ch[s][pick[s]].sj
        if p == 14 and (sn[0] + sn[1] + sn[2] + sn[3] + sj[0] + sj[1] + sj[2] + sj[3]) > 0:
            nsets = -1          # no sets at the high ace's position
        else:
            nsets = _ar_sets(a, p, sn, sj, 0, smask, sjm)
        if nsets >= 0:
            break
        s = 0
        while s < 4:
            pick[s] += 1
            if pick[s] < nch[s]:
                break
            pick[s] = 0
            s += 1
        if s == 4:
            return -1
    # the sets of this rank
    for i in range(nsets):
        k = 0
        for s in range(4):
            if (smask[i] >> s) & 1:
                k += 1
        if out.nmelds >= RB_MAXMELDS or out.nslots + k > RB_MAXSLOTS:
            return -2
        for s in range(4):
            if (smask[i] >> s) & 1:
                q = _card_at(s, p)
                out.card[out.nslots] = 52 if (sjm[i] >> s) & 1 else <uint8_t>q
                out.rep[out.nslots] = <uint8_t>q
                out.nslots += 1
        out.mlen[out.nmelds] = k
        out.nmelds += 1
    # the runs
    for s in range(4):
        nkeep = 0
        for i in range(a.nopen[s]):
            run = &a.open[s][i]
            j = ch[s][pick[s]].act[i]
            if j == 0:
                if _ar_emit(a, s, run) != 0:
                    return -2
                continue
            run.jk[run.len] = 1 if j == 2 else 0
            run.len += 1
            if last:
                if _ar_emit(a, s, run) != 0:
                    return -2
                continue
            run.code = _ar_next(a, run.code, j == 2)
            keep[nkeep] = run[0]
            nkeep += 1
        for i in range(ch[s][pick[s]].news_nat + ch[s][pick[s]].news_jk):
            if nkeep >= AR_MAXOPEN:
                return -1
            memset(&keep[nkeep], 0, sizeof(ARun))
            keep[nkeep].start = p
            keep[nkeep].len = 1
            j = 1 if i >= ch[s][pick[s]].news_nat else 0
            keep[nkeep].jk[0] = <uint8_t>j
            keep[nkeep].code = _ar_start(a, j)
            nkeep += 1
        # in the order of their codes (as the program's states keep them), so that
        # equal runs are neighbours
        for i in range(1, nkeep):
            j = i
            while j > 0 and keep[j - 1].code < keep[j].code:
                keep[AR_MAXOPEN - 1] = keep[j]
                keep[j] = keep[j - 1]
                keep[j - 1] = keep[AR_MAXOPEN - 1]
                j -= 1
        for i in range(nkeep):
            a.open[s][i] = keep[i]
        a.nopen[s] = nkeep
    return 0


cdef int _ar_high_ok(const CRules* r, const Pos* pp, int s) noexcept nogil:
    """Whether the program carries suit ``s``'s aces to position 14 (``_solve_dp``)."""
    cdef int k, missing = 0, jt = pp.JT + pp.JH
    if not r.ace_high:
        return 0
    for k in range(12, 14):
        if pp.T[_card_at(s, k)] + pp.H[_card_at(s, k)] == 0:
            missing += 1
    return 1 if (missing <= jt and missing <= r.mj) else 0


cdef int _ar_walk(ArrCtx* a, const Pos* pp, int P, const uint64_t* keys,
                  const uint32_t* infos, const int* high) noexcept nogil:
    """Read the melds off a path of the program on ``pp``: ``keys[3 (p - 1) ..]`` and
    ``infos[p - 1]`` the state and step of position ``p`` = 1..P; ``high[s]`` whether
    the program carried suit s's aces to position 14 (``_ar_high_ok``). The naturals of
    each card at each position are the table's plus the hand's the step placed (the
    info), the aces split between the low end and the high end as the state's ace
    field says. 0, -1 (the path cannot be read: a bug), -2 the output is full."""
    cdef int p, s, q, k, res, nh
    cdef int nat_low[4]
    cdef int req_high[4]
    cdef uint64_t ka, kb, kc, word
    cdef uint32_t info
    cdef uint8_t nc[4][MAXRUNS]
    cdef int nnc[4]
    cdef int nat[4]
    cdef int jok[4]
    cdef int code, field
    for s in range(4):
        a.nopen[s] = 0
        nat_low[s] = 0
        req_high[s] = 0
    for p in range(1, P + 1):
        ka = keys[3 * (p - 1)]
        kb = keys[3 * (p - 1) + 1]
        kc = keys[3 * (p - 1) + 2]
        info = infos[p - 1]
        for s in range(4):
            if s < 2:
                word = (ka >> (32 * s)) & <uint64_t>0xFFFFFFFF
            else:
                word = (kb >> (32 * (s - 2))) & <uint64_t>0xFFFFFFFF
            nnc[s] = 0
            for k in range(MAXRUNS):
                code = <int>((word >> (5 * k)) & 31)
                if code == 0:
                    break
                nc[s][nnc[s]] = <uint8_t>code
                nnc[s] += 1
            q = _card_at(s, p)
            jok[s] = <int>((info >> (6 * s + 3)) & 7)
            nh = <int>((info >> (6 * s)) & 7)
            if p == 1 and high[s]:
                # the aces' low end: all the suit's aces but those its ace field keeps
                # for the high end (the naturals the high end may take)
                field = _ar_ace_field(kc, s)
                nat_low[s] = pp.T[q] + pp.H[q] - ((field >> 2) & 3)
                req_high[s] = field & 3
                nat[s] = nat_low[s]
            elif p == 14:
                nat[s] = req_high[s] + nh
            else:
                nat[s] = pp.T[q] + nh
        if (nnc[0] | nnc[1] | nnc[2] | nnc[3] | nat[0] | nat[1] | nat[2] | nat[3] | jok[0] | jok[1]
                | jok[2] | jok[3] | a.nopen[0] | a.nopen[1] | a.nopen[2] | a.nopen[3]) == 0:
            continue            # nothing at this position, nothing open
        res = _ar_position(a, p, 1 if p == P else 0, nc, nnc, nat, jok)
        if res != 0:
            return res
    return 0


cdef int _ar_read(ArrCtx* a, const CRules* r, const Pos* pp, const Path* path, int P) noexcept nogil:
    """``_ar_walk`` of the path ``path`` (``path.best`` its final entry, every layer's
    keys kept): 0, -1 (the path cannot be read: a bug), -2 output full."""
    cdef int64_t ent[16]
    cdef int64_t e = path.best
    cdef uint64_t keys[3 * 14]
    cdef uint32_t infos[14]
    cdef int high[4]
    cdef int p, s
    if e < 0:
        return -1
    for p in range(P, 0, -1):
        if e >= path.n[p]:
            return -1
        ent[p] = path.off[p] + e
        e = path.par[path.off[p] + e]
        if e < 0 or e >= path.n[p - 1]:
            return -1
    for p in range(1, P + 1):
        keys[3 * (p - 1)] = path.keys[3 * ent[p]]
        keys[3 * (p - 1) + 1] = path.keys[3 * ent[p] + 1]
        keys[3 * (p - 1) + 2] = path.keys[3 * ent[p] + 2]
        infos[p - 1] = path.info[ent[p]]
    for s in range(4):
        high[s] = _ar_high_ok(r, pp, s)
    return _ar_walk(a, pp, P, keys, infos, high)


cdef inline int _ar_ace_field(uint64_t kc, int s) noexcept nogil:
    return <int>((kc >> (8 + 8 * s)) & 0xFF)


cdef int _ar_check(const Rebuild* out, const uint8_t* nT, const uint8_t* slots, int nJT) noexcept nogil:
    """Whether the melds read hold exactly the counts: each card's naturals and slots,
    the jokers."""
    cdef int cn[52]
    cdef int cs[52]
    cdef int i, j = 0
    memset(cn, 0, sizeof(cn))
    memset(cs, 0, sizeof(cs))
    for i in range(out.nslots):
        if out.rep[i] >= 52:
            return 0
        cs[out.rep[i]] += 1
        if out.card[i] == 52:
            j += 1
        elif out.card[i] != out.rep[i]:
            return 0
        else:
            cn[out.card[i]] += 1
    for i in range(52):
        if cn[i] != nT[i] or cs[i] != slots[i]:
            return 0
    return 1 if j == nJT else 0


cdef void _arrange(const CRules* r, const uint8_t* nT, const uint8_t* slots, int nJT, Work* w,
                   Rebuild* out) noexcept nogil:
    """The melds of a table given as counts (``nT`` naturals of each card, ``slots``
    its slots, naturals and jokers, ``nJT`` jokers), read off one run of the program
    (see the top of this file); ``out.status`` as ``_rebuild``'s (0 done, 3 no
    arrangement, 4 output full, -2 no memory; 5 the path could not be read, a bug)."""
    cdef Pos pp
    cdef Path path
    cdef ArrCtx a
    cdef int c, k, plain = 1, res, i, P = 14 if r.ace_high else 13
    cdef int jleft[52]
    cdef int32_t v
    out.status = 0
    out.detail = 0
    out.nmelds = 0
    out.nslots = 0
    out.hand_jokers = 0
    memset(&pp, 0, sizeof(Pos))
    if nJT > 2 or r.mj < nJT:
        plain = 0
    for c in range(52):
        if slots[c] > 3 or slots[c] < nT[c]:
            plain = 0
    if plain:
        # every card's slots as naturals: no joker for the program to place
        for c in range(52):
            pp.T[c] = slots[c]
    else:
        for c in range(52):
            pp.T[c] = nT[c]
            pp.D[c] = slots[c]
        pp.JT = nJT
    memset(&path, 0, sizeof(Path))
    path.with_keys = 1
    v = _solve_dp(r, &pp, w, 0, &path, AR_BEAM, BEAM_DEBT)
    if v == -1:
        v = _solve_dp(r, &pp, w, 0, &path)
    if v == -2 or v == -4 or v == -5:
        out.status = -2 if v == -2 else v
    elif v < 0:
        out.status = 3
    else:
        memset(&a, 0, sizeof(ArrCtx))
        a.r = r
        a.tnat = 1 if (pp.JT >= 3 and r.mj >= 3) else 0
        a.tjk = 1 if r.mj < pp.JT else 0
        a.limit = r.mj
        a.out = out
        res = _ar_read(&a, r, &pp, &path, P)
        if res == -2:
            out.status = 4
        elif res != 0:
            out.status = 5
        elif plain:
            # each joker takes a slot of its card (with at most two jokers, every meld
            # of three slots keeps a natural; the limit is at least the jokers)
            for c in range(52):
                jleft[c] = slots[c] - nT[c]
            for i in range(out.nslots):
                k = out.rep[i]
                if jleft[k] > 0:
                    out.card[i] = 52
                    jleft[k] -= 1
        if out.status == 0 and not _ar_check(out, nT, slots, nJT):
            out.status = 5
    free(path.par)
    free(path.info)
    free(path.keys)


def arrange_counts(CoreRules rules, const uint8_t[::1] T, const uint8_t[::1] S, int JT,
                   int64_t node_limit=0, double time_limit=0):
    """The melds of a table given as counts, read off one run of the program
    (``_arrange``): ``T`` the naturals of each card, ``S`` its slots (naturals and the
    jokers standing for it), ``JT`` the jokers. ``(status, melds)``, ``melds`` a list of
    lists of ``(card, represents)`` pairs (52 = joker); status 0 done, 3 the counts
    cannot be arranged, 4 too many melds, 5 the program's path could not be read (a
    bug: the caller then rebuilds meld by meld), -4 / -5 past ``node_limit`` /
    ``time_limit`` (its states in ``last_nodes``). The GIL is released."""
    cdef Work w
    cdef Path dummy
    cdef Rebuild* out
    cdef int i, k, m, s
    if T.shape[0] != 52 or S.shape[0] != 52:
        raise ValueError("counts must be 52 long")
    if JT < 0 or JT > 15:
        raise ValueError("joker counts out of range")
    for i in range(52):
        if T[i] > 3 or S[i] > 7:
            raise ValueError("card counts out of range")
    out = <Rebuild*>malloc(sizeof(Rebuild))
    if out == NULL:
        raise MemoryError()
    if _work_init_single(&w, &dummy) != 0:
        free(out)
        raise MemoryError()
    with nogil:
        _set_limits(&w, node_limit, time_limit)
        _arrange(&rules.r, &T[0], &S[0], JT, &w, out)
    _record_nodes(w.nodes)
    _work_free_single(&w, &dummy)
    try:
        if out.status == -2:
            raise MemoryError("the carousel solver ran out of memory")
        melds = []
        s = 0
        for m in range(out.nmelds):
            melds.append([(out.card[s + k], out.rep[s + k]) for k in range(out.mlen[m])])
            s += out.mlen[m]
        return out.status, melds
    finally:
        free(out)


from cpython.object cimport PyObject_GenericSetAttr
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from cpython.ref cimport Py_INCREF

cdef extern from "Python.h":
    void PyObject_GC_UnTrack(object op)

_KIND_RUN = "run"
_KIND_SET = "set"

# The melds made here (a play's or a table's TableMelds, their tuples of codes and the
# tuple of melds) are taken out of the cyclic garbage collector's care as they are made:
# none can be part of a reference cycle (a TableMeld is frozen and holds a str and two
# tuples of ints; the tuples hold ints or such TableMelds), so the collector has nothing
# to find in them, and a program that keeps many plays' melds (a bot, a study) no longer
# pays for the collector walking them again and again as they pile up (reading
# ``.melds`` cost twice the call without it on game positions, half of it in the
# collector). Reference counting frees them as before.


cdef inline object _ar_tuple(const uint8_t* x, int n, int jokers):
    """A tuple of the ``n`` codes ``x`` (``jokers`` 1: a joker code 53 + d as 52, 2: as d)."""
    cdef object t = PyTuple_New(n)
    cdef object v
    cdef int i, c
    for i in range(n):
        c = x[i]
        if c >= 53:
            c = 52 if jokers == 1 else c - 53
        v = c
        Py_INCREF(v)
        PyTuple_SET_ITEM(t, i, v)
    PyObject_GC_UnTrack(t)
    return t


cdef inline object _ar_untracked(tuple melds):
    """``melds`` (a tuple of ``_ar_meld``'s TableMelds) out of the collector's care."""
    PyObject_GC_UnTrack(melds)
    return melds


cdef object _ar_meld(int set_, object cards, object reps):
    """A TableMeld of canonical slots already checked (no ``make_meld``), untracked by
    the cyclic collector (see above)."""
    cdef object meld = _TableMeld.__new__(_TableMeld)
    PyObject_GenericSetAttr(meld, "kind", _KIND_SET if set_ else _KIND_RUN)
    PyObject_GenericSetAttr(meld, "cards", cards)
    PyObject_GenericSetAttr(meld, "represents", reps)
    PyObject_GC_UnTrack(meld)
    return meld


cdef int _ar_sort_key(const Rebuild* out, const int* start, int m, int* key) noexcept nogil:
    """``sort_melds``' key of meld ``m`` (runs by suit, first position, length; then sets
    by rank, length, cards) as four ints; the meld's kind (0 run, 1 set)."""
    cdef int s0 = start[m], n = out.mlen[m], first = out.rep[s0], i, set_ = 1
    for i in range(1, n):
        if out.rep[s0 + i] % 13 != first % 13:
            set_ = 0
            break
    if not set_:
        key[0] = 0
        key[1] = first // 13
        key[2] = 1 if first % 13 == 0 else first % 13 + 1
        key[3] = n
    else:
        key[0] = 1
        key[1] = first % 13
        key[2] = n
        key[3] = 0
    return set_


cdef int _ar_before(const Rebuild* out, const int* start, int a, int b) noexcept nogil:
    """Whether meld ``a`` sorts before meld ``b`` (``sort_melds``)."""
    cdef int ka[4]
    cdef int kb[4]
    cdef int i, x, y
    _ar_sort_key(out, start, a, ka)
    _ar_sort_key(out, start, b, kb)
    for i in range(4):
        if ka[i] != kb[i]:
            return 1 if ka[i] < kb[i] else 0
    if ka[0] == 1:
        # sets of one rank and length: by their cards (a joker, 52, after the naturals)
        for i in range(out.mlen[a]):
            x = out.card[start[a] + i]
            y = out.card[start[b] + i]
            if x != y:
                return 1 if x < y else 0
    return 0


def play_melds(CoreRules core, const uint8_t[::1] T, const uint8_t[::1] S, int JT,
               int64_t node_limit=0, double time_limit=0):
    """The melds of a table given as counts (``arrange_counts``) as ``TableMeld``s in
    ``sort_melds``' order, each checked as ``make_meld`` checks a meld (in C); None when
    the reading failed or a meld did not pass (never expected: the caller then takes
    the Python path, which arranges the melds meld by meld and reports any error);
    -4 / -5 past ``node_limit`` / ``time_limit`` (its states in ``last_nodes``)."""
    if T.shape[0] != 52 or S.shape[0] != 52 or JT < 0 or JT > 15:
        return None
    return _play_melds(core, &T[0], &S[0], JT, node_limit, time_limit)


cdef object _table_melds(const uint8_t* src, Py_ssize_t n):
    """The melds of a lazy Play with no play (the table as it was): each meld its length
    then its batch codes in canonical order (a natural its code, a joker 53 + its card),
    as the C reader wrote them after checking each meld; TableMelds in that order."""
    cdef Py_ssize_t i = 0
    cdef int k, m, c, set_, first
    cdef list melds = []
    cdef object meld
    while i < n:
        m = src[i]
        set_ = 1
        first = src[i + 1] - 53 if src[i + 1] >= 53 else src[i + 1]
        for k in range(1, m):
            c = src[i + 1 + k] - 53 if src[i + 1 + k] >= 53 else src[i + 1 + k]
            if c % 13 != first % 13:
                set_ = 0
                break
        melds.append(_ar_meld(set_, _ar_tuple(src + i + 1, m, 1), _ar_tuple(src + i + 1, m, 2)))
        i += 1 + m
    return _ar_untracked(tuple(melds))


cdef object _play_melds(CoreRules core, const uint8_t* T, const uint8_t* S, int JT,
                        int64_t node_limit=0, double time_limit=0):
    """``play_melds`` of raw pointers."""
    cdef Work w
    cdef Path dummy
    cdef Rebuild* out
    out = <Rebuild*>malloc(sizeof(Rebuild))
    if out == NULL:
        raise MemoryError()
    if _work_init_single(&w, &dummy) != 0:
        free(out)
        raise MemoryError()
    with nogil:
        _set_limits(&w, node_limit, time_limit)
        _arrange(&core.r, T, S, JT, &w, out)
    _record_nodes(w.nodes)
    _work_free_single(&w, &dummy)
    try:
        if out.status == -2:
            raise MemoryError("the carousel solver ran out of memory")
        if out.status == -4 or out.status == -5:
            return out.status
        if out.status != 0:
            return None
        return _melds_objects(core, out)
    finally:
        free(out)


# A lazy Play's source with its play's path (``single_best``): version 2, the counts as
# in version 1 (naturals, slots, jokers), then the solved position's table naturals
# (forced jokers as naturals) and hand aces, the positions, the run flags, and each
# position's state (3 key words) and step (info).

DEF PS_HEAD = 164
DEF PS_LAYER = 28


cdef int _path_source(uint8_t* buf, const CRules* r, const Pos* pp, const Path* path) noexcept nogil:
    """Write the path part of a version-2 source (from byte 106) into ``buf``: its
    length in all, or -1 when the path cannot be walked."""
    cdef int P = 14 if r.ace_high else 13, p, s, jt = pp.JT + pp.JH
    cdef int64_t e = path.best, ent
    cdef uint8_t* x
    if e < 0 or path.keys == NULL:
        return -1
    memcpy(buf + 106, pp.T, 52)
    for s in range(4):
        buf[158 + s] = pp.H[13 * s]
    buf[162] = <uint8_t>P
    buf[163] = <uint8_t>((1 if (jt >= 3 and r.mj >= 3) else 0) | (2 if r.mj < jt else 0))
    for s in range(4):
        if _ar_high_ok(r, pp, s):
            buf[163] |= <uint8_t>(4 << s)
    for p in range(P, 0, -1):
        if e >= path.n[p]:
            return -1
        ent = path.off[p] + e
        x = buf + PS_HEAD + PS_LAYER * (p - 1)
        memcpy(x, &path.keys[3 * ent], 24)
        memcpy(x + 24, &path.info[ent], 4)
        e = path.par[ent]
        if e < 0 or e >= path.n[p - 1]:
            return -1
    return PS_HEAD + PS_LAYER * P


cdef object _source_path_melds(CoreRules core, const uint8_t* src, Py_ssize_t n):
    """The melds of a version-2 source, read off its own path (no run of the program);
    None when that fails (the caller arranges the counts instead)."""
    cdef Rebuild* out
    cdef ArrCtx a
    cdef Pos pp
    cdef uint64_t keys[3 * 14]
    cdef uint32_t infos[14]
    cdef int P, p, s, c, i, excess
    cdef int nat_out[52]
    cdef int high[4]
    if n < PS_HEAD:
        return None
    P = src[162]
    if P < 13 or P > 14 or n != PS_HEAD + PS_LAYER * P:
        return None
    memset(&pp, 0, sizeof(Pos))
    memcpy(pp.T, src + 106, 52)
    for s in range(4):
        pp.H[13 * s] = src[158 + s]
    for p in range(P):
        memcpy(&keys[3 * p], src + PS_HEAD + PS_LAYER * p, 24)
        memcpy(&infos[p], src + PS_HEAD + PS_LAYER * p + 24, 4)
    out = <Rebuild*>malloc(sizeof(Rebuild))
    if out == NULL:
        raise MemoryError()
    try:
        memset(out, 0, sizeof(Rebuild))
        memset(&a, 0, sizeof(ArrCtx))
        a.r = &core.r
        a.tnat = src[163] & 1
        a.tjk = (src[163] >> 1) & 1
        a.limit = core.r.mj
        a.out = out
        for s in range(4):
            high[s] = (src[163] >> (2 + s)) & 1
        i = _ar_walk(&a, &pp, P, keys, infos, high)
        if i != 0:
            return None
        # the table jokers the program placed as naturals of their card (forced: they
        # keep their card) are jokers on the table: the naturals of a card beyond the
        # table's count after the play
        memset(nat_out, 0, sizeof(nat_out))
        for i in range(out.nslots):
            if out.card[i] != 52:
                nat_out[out.card[i]] += 1
        for c in range(52):
            excess = nat_out[c] - src[1 + c]
            if excess > 0:
                for i in range(out.nslots):
                    if excess == 0:
                        break
                    if out.card[i] == c:
                        out.card[i] = 52
                        excess -= 1
        if not _ar_check(out, src + 1, src + 53, src[105]):
            return None
        return _melds_objects(core, out)
    finally:
        free(out)


cdef object _melds_objects(CoreRules core, Rebuild* out):
    """The melds of ``out`` as ``TableMeld``s in ``sort_melds``' order, each checked as
    ``make_meld`` checks a meld (in C: ``_sp_meld``); None if one does not pass."""
    cdef Pos chk
    cdef int i, k, m, s, jt = 0, n
    cdef int start[RB_MAXMELDS]
    cdef int order[RB_MAXMELDS]
    cdef int kind
    cdef int key[4]
    cdef list melds
    memset(&chk, 0, sizeof(Pos))
    s = 0
    for m in range(out.nmelds):
        start[m] = s
        order[m] = m
        if _sp_meld(&out.card[s], &out.rep[s], out.mlen[m], &core.r, &chk, &jt, NULL, NULL,
                    0) != 0:
            return None
        s += out.mlen[m]
    for i in range(1, out.nmelds):
        k = order[i]
        m = i - 1
        while m >= 0 and _ar_before(out, start, k, order[m]):
            order[m + 1] = order[m]
            m -= 1
        order[m + 1] = k
    melds = []
    for i in range(out.nmelds):
        m = order[i]
        n = out.mlen[m]
        kind = _ar_sort_key(out, start, m, key)
        melds.append(_ar_meld(kind, _ar_tuple(&out.card[start[m]], n, 0),
                              _ar_tuple(&out.rep[start[m]], n, 0)))
    return _ar_untracked(tuple(melds))


def play_source(CoreRules rules, const uint8_t[::1] T, const uint8_t[::1] H,
                const uint8_t[::1] D, int JT, int JH, int64_t node_limit=0,
                double time_limit=0, bint fast=True):
    """``play_counts`` whose play comes with what ``source_melds`` arranges it from:
    ``(value, source)``, ``source`` the table after the play as counts (naturals, slots,
    jokers: bytes 1..105) and the program's path (a lazy Play's source, version 2), or
    None where ``play_counts`` gives no counts (value 0 or below). GIL released."""
    cdef Pos pos
    cdef Pos solved
    cdef Work w
    cdef Path path
    cdef uint8_t nT[52]
    cdef uint8_t nD[52]
    cdef uint8_t buf[PS_HEAD + PS_LAYER * 14]
    cdef int nJT = 0, c, slen = 106
    cdef int32_t v
    _counts_pos(T, H, D, JT, JH, 15, &pos)
    if _work_init_single(&w, &path) != 0:
        raise MemoryError()
    path.with_keys = 1
    with nogil:
        _set_limits(&w, node_limit, time_limit)
        v = _solve_play(&rules.r, &pos, &w, &path, nT, nD, &nJT, 1 if fast else 0, &solved)
        if v > 0:
            slen = _path_source(buf, &rules.r, &solved, &path)
    _record_nodes(w.nodes)
    free(path.keys)
    path.keys = NULL
    path.with_keys = 0
    _work_free_single(&w, &path)
    if v <= 0:
        return v, None
    buf[0] = 2 if slen > 106 else 1
    if slen < 106:
        slen = 106
    for c in range(52):
        buf[1 + c] = nT[c]
        buf[53 + c] = nT[c] + nD[c]
    buf[105] = <uint8_t>nJT
    return v, PyBytes_FromStringAndSize(<char*>buf, slen)


def source_melds(CoreRules core, bytes source, int64_t node_limit=0, double time_limit=0):
    """The melds of a play's source (``play_source``) as ``TableMeld``s in ``sort_melds``'
    order: read off its path, or off one run of the program on its counts (within
    ``node_limit`` / ``time_limit``: -4 / -5 past them); None when both fail (never
    expected: the caller then rebuilds the melds meld by meld)."""
    cdef const uint8_t* src = <const uint8_t*>source
    cdef object got = None
    if len(source) < 106 or src[0] not in (1, 2):
        return None
    if src[0] == 2:
        got = _source_path_melds(core, src, len(source))
        if got is not None:
            _record_nodes(0)
    if got is None:
        got = _play_melds(core, src + 1, src + 53, src[105], node_limit, time_limit)
    return got
