"""Old import path of ``rummy51.studies.games``, kept so that code written before the
package was laid out by capability runs unchanged: ``rummy51.games`` is the very same
module object."""
import sys

from .studies import games

sys.modules[__name__] = games
