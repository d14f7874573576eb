"""Every study runs on the one run loop (``studies/_runner.py``): its plan module is a
``RunPlan`` (the games studies' a ``RecordsPlan``), the ``typing.Protocol`` that mypy
checks ``execute``, ``start`` and ``ChunkStudy`` against (signatures included; here:
every member is there)."""
from rummy51.studies import _carousel_plan, _games_plan, _openings_plan, _runner


def test_every_plan_is_a_run_plan():
    for plan in (_games_plan, _carousel_plan):
        assert isinstance(plan, _runner.RecordsPlan), plan.__name__
        assert plan.LOCAL == "processes" and plan.RECORDS      # Python bots hold the GIL
    assert isinstance(_openings_plan, _runner.RunPlan)
    assert not isinstance(_openings_plan, _runner.RecordsPlan)
    assert _openings_plan.LOCAL == "threads" and not _openings_plan.RECORDS


def test_the_openings_study_runs_on_the_shared_loop(monkeypatch):
    """``simulate_openings`` hands its plan to ``_runner.execute`` (no loop of its own)."""
    from rummy51 import simulate_openings

    seen = []
    real = _runner.execute

    def spy(plan, *a, **kw):
        seen.append(plan)
        return real(plan, *a, **kw)

    import rummy51.studies.openings as openings

    monkeypatch.setattr(openings, "execute", spy)
    st = simulate_openings(deals=2000, chunk_size=1000, players=(), seed=1, workers=1,
                           progress=False)
    assert seen == [_openings_plan] and st.complete and st.chunks == 2
