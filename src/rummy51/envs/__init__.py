"""Agent doors: thin adapters from game-AI libraries to the engines' integer actions.

* ``rummy51.envs.openspiel``: importing it registers the OpenSpiel Python game
  ``python_rummy51`` and ``python_carousel``;
* ``rummy51.envs.pettingzoo``: ``env(**rules)`` is a PettingZoo AEC environment
  (and ``carousel_env``);
* ``rummy51.envs.llm``: a turn as plain JSON for language models and GUIs, and the
  model's answer read back from text (no extra dependency);
* ``rummy51.envs.gym``: single-agent Gymnasium environments against the built-in bots,
  registered as ``rummy51/Rummy51-v0`` and ``rummy51/Carousel-v0`` when this package is
  imported and gymnasium is installed;
* ``rummy51.envs.openspiel_eval``: cheap leaf evaluators for OpenSpiel's MCTS.

The libraries come with ``pip install ".[agents]"`` from a clone of the repository.

They all stand on ``rummy51.r51.agent.AgentState`` (the integer codec, observations,
chance nodes, resampling); docs/agents.md describes the encodings with examples. The
optional libraries are imported only by the module that needs them, so this package
exports nothing itself: import the door you use. Importing it registers the Gymnasium
ids ``rummy51/Rummy51-v0`` and ``rummy51/Carousel-v0`` when gymnasium is installed.
"""

import importlib.util as _util

__all__: list[str] = []


def _register_gym() -> None:
    """Register the Gymnasium ids (by entry point: nothing of rummy51 is imported here)."""
    if _util.find_spec("gymnasium") is None:
        return
    import importlib

    gym = importlib.import_module("gymnasium")
    for name, cls in (("rummy51/Rummy51-v0", "Rummy51GymEnv"),
                      ("rummy51/Carousel-v0", "CarouselGymEnv")):
        if name not in gym.registry:
            gym.register(id=name, entry_point=f"rummy51.envs.gym:{cls}")


_register_gym()
