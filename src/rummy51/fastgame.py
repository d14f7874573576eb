"""Old import path of ``rummy51.r51.fastgame`` (the Rummy 51 game's room), kept so that code
written before the package was laid out by capability runs unchanged: ``rummy51.fastgame``
is the very same module object."""
import sys

from .r51 import fastgame

sys.modules[__name__] = fastgame
