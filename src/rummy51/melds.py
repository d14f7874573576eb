"""Old import path of ``rummy51.r51.melds`` (the Rummy 51 game's room), kept so that code
written before the package was laid out by capability runs unchanged: ``rummy51.melds``
is the very same module object."""
import sys

from .r51 import melds

sys.modules[__name__] = melds
