"""The rule this folder's detection runs watched (`bench/devkgs/detect/`, with
`KGQA_DETECT_RULES` naming this file): "shared words", each question where a path's detour
(`PathScorer.detours`) reads otherwise once the words naming two or more of the relations
ask for no walk back ("the units that are defined from units defined from kelvin": "units"
names `reference_unit`, `base_unit` and `unit_group`)."""

from agent.pog import scoring


def install(log) -> None:
    detours = scoring.PathScorer.detours

    def logged_detours(self, steps, chains=(), shared=frozenset()):
        now = detours(self, steps, chains, shared)
        if shared and not getattr(self, "_shared_logged", False) and now != detours(self, steps, chains):
            self._shared_logged = True
            log("shared words", self)
        return now

    scoring.PathScorer.detours = logged_detours
