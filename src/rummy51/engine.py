"""Old import path of ``rummy51.r51.engine`` (the Rummy 51 game's room), kept so that code
written before the package was laid out by capability runs unchanged: ``rummy51.engine``
is the very same module object."""
import sys

from .r51 import engine

sys.modules[__name__] = engine
