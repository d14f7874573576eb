# cython: language_level=3
"""Carousel's exact table-manipulation solver (RULES-carousel.md section 4), in C.

The question is reformulated over card *slots*: the final table is a multiset of
slots (a slot is one card position in one meld) arranged into valid melds, each slot
filled by a natural or a joker. With T[c] table naturals, H[c] hand naturals, D[c]
table jokers declared c, JT table jokers and JH hand jokers, a play is legal iff

* the natural slots of card c number between T[c] and T[c] + H[c] (every table card
  stays, the extra ones come from the hand);
* the joker slots number between JT and JT + JH (every table joker stays);
* every card c has at least D[c] slots (a table joker keeps standing for its card
  unless a natural copy replaces it, and a replaced joker is reused in the play:
  of the D[c] jokers at most "natural c slots" can be replaced);
* every meld holds at least one natural and at most ``max_jokers_per_meld`` jokers;
* at least one hand card is played.

The kernel maximises (points of the hand cards played, cards played) by a dynamic
program over the rank positions A(low)=1, 2, .., K=13, A(high)=14 (van Rijn, Takes &
Vis 2015): at each position it decides, suit by suit, how many slots of that card
continue each open run, end it, start new runs, or go into sets of that rank. A
state is, per suit, the multiset of open runs (length capped at 3, plus whether the
run holds a natural and how many jokers, only when the rules make those matter), the
jokers used so far, and for the aces how many naturals and slots the low end used
(the high end, position 14, takes the rest). States of one layer live in an
open-addressing hash table; the answer is the best value over the last layer. The
program is exact for every position: there is no node limit.

What keeps the layers small, each cut exact (it only drops states or choices that
no best play needs):

* table jokers that must keep their card (fewer natural copies of it in table and
  hand than jokers declared as it) become required naturals of it, where no joker
  rule of a meld can tell (``_fix_forced_jokers``);
* hand cards no meld could hold (no set of their rank, no three consecutive
  positions of their suit with the cards and jokers there are) are left out;
* lookahead: a run shorter than three must go on, so a state whose short runs need
  more jokers at the next positions than are left is never stored;
* a run starts with a joker only on a card some table joker is declared as, or when
  it can still reach the top position (otherwise the joker moves to the run's other
  end, same meld size, no declared card lost);
* sets try only the suits that have a card at that rank, and a joker in a set stands
  for the lowest suits no table joker is declared as (which of those it names
  changes nothing);
* a run does not start right after a run of its suit ended (the two make one run;
  only when the per-meld joker limit cannot be broken by merging);
* the high ace of a suit is carried to position 14 only if some run can reach it;
* dominance: in a layer of more than 32 states, a state is dropped when another has
  the same jokers and ace fields, the same runs except one run a step better in one
  suit (longer, holding a natural, one joker fewer) or one more complete run, and at
  least its value: the better state can answer every later choice with the same
  cards. On the densest tables this removes most of each layer.

Each suit's successors within a layer depend only on its runs, on what it gives the
sets of that rank and on the suit's context there (the card's bounds, the next
positions' cards, the jokers, the rules' joker limit, the card's points: ``Ctx.sctx``),
so they are enumerated once (``_suit_options``) and kept, under that full key, for
every later layer and position the same work area solves (``Work.cache``, emptied
between two solves once it is large); each state combines the four suits' lists under
the joker budget, stopping at the first suit with none. The choices of sets at a
rank are listed once per layer (``_sets_list``), with the distinct (naturals, jokers)
pairs each suit gives them, so a state looks each suit's list up once per pair
(first in a small direct-mapped front of the cache, which stays in the processor's
near caches where the cache does not), and a jokerless layer with no card of
any suit at its rank only ends the runs (the full expansion would give the same).

Where some suit's ace may stand high, each state carries its aces' fields from
position 1 to 14, and the layers between hold many states that differ only there
(up to one per combination of the suits' ace choices: ten times the states of the
same position with the ace low only). Their successors at positions 2..13 are the
same, so such a layer is expanded once per group (the same runs and jokers): the
group's first state records its successors, and each state of the group puts them,
with its own fields and value, in the order the per-state expansion would have: the
same layers, the same values and the same paths. Dominance is looked for once per
group too (``_drop_dominated_grouped``).
"""
from libc.stdint cimport uint8_t, int32_t, uint32_t, uint64_t, int64_t
from libc.stdlib cimport qsort
from libc.string cimport memset, memcpy

from rummy51._net cimport Net, net_forward, net_bind, net_sigmoid

import threading

import numpy as np
cimport numpy as cnp

cnp.import_array()

DEF NSLOT = 52
DEF MAXRUNS = 6          # open runs of one suit: slots of a card <= 2 decks + 4 jokers
DEF VALMUL = 256         # value = points * VALMUL + cards played
DEF DOMINANCE_FROM = 128  # layers with more states than this drop the dominated ones
DEF MAXSETS = 512        # choices of sets at one rank listed for a layer (else recursed)
DEF INT32_MIN = -2147483648
DEF DMAX = 16            # distinct (naturals, jokers) pairs of one suit in a layer's sets
DEF FRONT_BITS = 11
DEF FRONT = 2048         # the option cache's direct-mapped front (1 << FRONT_BITS slots)
DEF CACHE_KEEP = 1 << 15  # suit option lists kept between solves (Work.cache) ...
DEF POOL_KEEP = 1 << 18   # ... and their options, at most (then it is emptied)

# --------------------------------------------------------------------------- rules
cdef struct CRules:
    int ace_high          # 1: position 14 (the ace after the king) exists
    int mj                # jokers a meld may hold (99 = any number)
    int decks             # copies of each natural card in the deck
    int jokers            # jokers in the deck
    int32_t val[53]       # points of each card code in hand (52 = joker)
    # set types (a suit mask of 3 or 4 suits, the suits jokers fill, how many jokers)
    # for min(jokers in the position, 3): made once with the rules (_set_types)
    int nst[4]
    uint8_t stm[4][64]
    uint8_t stj[4][64]
    uint8_t stn[4][64]

cdef struct Pos:
    uint8_t T[52]         # table naturals (must all stay on the table)
    uint8_t H[52]         # hand naturals (each may be played)
    uint8_t D[52]         # table jokers declared as each card
    int JT                # table jokers
    int JH                # hand jokers

# ---------------------------------------------------------------------------
# The module's sources by concern: textual includes, in this order (one extension
# module; a name defined in one file is seen by the others, as before the split).
# The game kernel and its bots follow the solver: _carousel_careful.pxi (the careful
# bot's estimate) and _carousel_game.pxi (whole deals in C).
include "_carousel_memory.pxi"  # the allocator (counted) and a call's memory limit
include "_carousel_table.pxi"  # the layers' hash table
include "_carousel_context.pxi"  # Opt, Cache, Path, Ctx; run packing; counters
include "_carousel_cache.pxi"  # the option cache, one suit's options
include "_carousel_combine.pxi"  # four suits' options combined, sets at a rank
include "_carousel_work.pxi"  # Work, the kept cache, dominance
include "_carousel_dp.pxi"  # the solver DP, best plays
include "_carousel_api.pxi"  # CoreRules, solve_counts, solve_batch
include "_carousel_bounds.pxi"  # bounds of a position's value
include "_carousel_rebuild.pxi"  # the melds of a best play
include "_carousel_melds.pxi"  # the melds of counts, read off one run of the program
include "_carousel_single.pxi"  # one position as the API takes it, read and solved in C
include "_carousel_careful.pxi"
include "_carousel_game.pxi"
include "_carousel_search.pxi"
include "_carousel_analyse.pxi"  # the rollout analysis of one decision
include "_carousel_learned.pxi"  # the learned evaluator: features, the learned bot, training data
