"""How much is knowing the hidden cards worth to the Rummy 51 search bot? (issue 35)

An experiment, on a build with bench/log/2026-12/r51_information.patch applied (never
on a shipped build: the patch lets a search seat see hidden cards):

    git apply bench/log/2026-12/r51_information.patch && pip install -e .
    python bench/log/2026-12/r51_information.py MODE BETA TRIES search plain FIRST DEALS --workers 2
    git apply -R bench/log/2026-12/r51_information.patch && pip install -e .

MODE 1: the pilot's ``search`` seat (kernel code 4, its model not used: a plain search)
sees every hand and the stock's order; 2: every hand, the stock still shuffled in its
determinizations; 3: its own view, each determinization kept with probability
BETA ** (melds the dealt hidden cards of the other seat would make with a card that seat
discarded or let pass on the pile), at most TRIES deals; 4: the same with k = 1 when
the other seat has not opened, has had a turn, and its dealt hand could open; 5: 3 and 4
together; 6: at each decision each hidden card of the other seat is shown with
probability BETA (the rest dealt at random); 0: nothing changed. The other
arguments are bench/r51_learned_pilot.py's. Kernel seats only (the patch's flags are
not set on the other paths of the search work).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from rummy51 import _game  # noqa: E402

mode, beta, tries = int(sys.argv.pop(1)), float(sys.argv.pop(1)), int(sys.argv.pop(1))
_game._set_cheat(mode, beta, tries)

import r51_learned_pilot  # noqa: E402

r51_learned_pilot.main()
