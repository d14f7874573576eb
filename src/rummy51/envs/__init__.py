"""Agent doors: thin adapters from game-AI libraries to the engines' integer actions.

* ``rummy51.envs.openspiel``: importing it registers the OpenSpiel Python game
  ``python_rummy51`` (``pip install "rummy51[openspiel]"``);
* ``rummy51.envs.pettingzoo``: ``env(**rules)`` is a PettingZoo AEC environment
  (``pip install "rummy51[pettingzoo]"``);
* ``rummy51.envs.llm``: a turn as plain JSON for language models and GUIs, and the
  model's answer read back from text (no extra dependency).

They all stand on ``rummy51.r51.agent.AgentState`` (the integer codec, observations,
chance nodes, resampling); docs/agents.md describes the encodings with examples. The
optional libraries are imported only by the module that needs them, so this package
exports nothing itself: import the door you use.
"""

__all__: list[str] = []
