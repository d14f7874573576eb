"""Build the Cython extensions ``rummy51._core`` and ``rummy51._game``.

Bounds and wraparound checks are off by default (the hot loops are covered by the
property tests against ``rummy51.reference``); set ``RUMMY51_DEBUG_CYTHON=1`` at
build time to switch them back on for a checked debug build.
"""
import os
import platform
import sys

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("RUMMY51_DEBUG_CYTHON", "0") != "0"

if sys.platform == "win32":
    extra_compile_args = ["/O2"]
else:
    extra_compile_args = ["-O3"] + (["-g", "-O1"] if DEBUG else [])
    if platform.machine().lower() in ("x86_64", "amd64"):
        # POPCNT (every x86-64 CPU since 2008): the search counts cards per node
        extra_compile_args.append("-mpopcnt")

# the .pxi files each extension includes (its sources by concern, see the include lines
# of each .pyx); tests/test_native_layout.py checks this list against those lines
_INCLUDES = {
    "_core": (
        "_core_bounds.pxi", "_core_search.pxi", "_core_api.pxi", "_core_deal.pxi",
        "_core_montecarlo.pxi",
    ),
    "_game": (
        "_game_deal.pxi", "_game_table.pxi", "_game_greedy.pxi", "_game_goout.pxi",
        "_game_tactician.pxi", "_game_handhunter.pxi", "_game_random.pxi", "_game_api.pxi",
        "_game_search.pxi", "_game_searchbot.pxi", "_game_analyse.pxi", "_game_learned.pxi",
    ),
    "_carousel": (
        "_carousel_memory.pxi", "_carousel_table.pxi", "_carousel_context.pxi", "_carousel_cache.pxi",
        "_carousel_combine.pxi", "_carousel_work.pxi", "_carousel_dp.pxi", "_carousel_api.pxi",
        "_carousel_bounds.pxi",
        "_carousel_rebuild.pxi", "_carousel_melds.pxi", "_carousel_single.pxi",
        # the game kernel, the careful bot's estimate, the search bot, its analysis, the
        # learned evaluator
        "_carousel_game.pxi", "_carousel_careful.pxi", "_carousel_search.pxi",
        "_carousel_analyse.pxi", "_carousel_learned.pxi",
    ),
}

extensions = [
    Extension(
        f"rummy51.{name}",
        [f"src/rummy51/{name}.pyx"],
        include_dirs=[numpy.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=extra_compile_args,
        # included files: a change to one rebuilds its extension
        depends=[f"src/rummy51/{inc}" for inc in _INCLUDES.get(name, ())]
        + ["src/rummy51/_net.pxd"],
    )
    # _core: the solver and the Monte Carlo kernels; _game: whole greedy deals in C;
    # _net: the learned evaluator's forward pass for Python (_net.pxd, which the game
    # kernels cimport, is the same code compiled into each)
    for name in ("_core", "_game", "_carousel", "_net")
]

setup(
    ext_modules=cythonize(
        extensions,
        include_path=["src"],
        language_level=3,
        compiler_directives={
            "boundscheck": DEBUG,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": DEBUG,
            "embedsignature": True,
        },
    )
)
