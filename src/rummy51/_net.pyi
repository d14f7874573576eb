"""Typed stub of the learned evaluator's batch forward pass (private: use rummy51.learned)."""
from typing import Any

import numpy as np
import numpy.typing as npt

def forward(model: Any, X: npt.ArrayLike) -> npt.NDArray[np.float32]: ...
