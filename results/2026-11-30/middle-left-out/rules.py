"""The rule this folder's detection runs watched (`bench/devkgs/detect/`, with
`KGQA_DETECT_RULES` naming this file): each question where
`answering.leaves_the_chain_unexplained` decides that the model's pick of a chain's
middle is no answer, where no older test of `_named_middle_of_chain` did ("middle left
out"; b108605 answered with the middle there)."""

import functools
from types import SimpleNamespace

from agent.pog import answering
from agent.pog.candidates import question_tokens
from agent.pog.memory import masked_question


def install(log) -> None:
    rule, named_middle, answer = (answering.leaves_the_chain_unexplained, answering._named_middle_of_chain,
                                  answering.answer_from_paths)
    decided: list[bool] = []

    def logged_named_middle(said, chains, kept, names, source, margin, overrides):
        def watched(prefix, chain):
            if rule(prefix, chain) and not (chain.score > prefix.score + margin
                                            or answering.contradicted(prefix.score_parts)):
                decided.append(True)
            return rule(prefix, chain)

        answering.leaves_the_chain_unexplained = watched
        try:
            return named_middle(said, chains, kept, names, source, margin, overrides)
        finally:
            answering.leaves_the_chain_unexplained = rule

    @functools.wraps(answer)
    def logged_answer(state, runtime):
        decided.clear()
        update = answer(state, runtime)
        if decided:
            log("middle left out", SimpleNamespace(words=[t.lower() for t in question_tokens(masked_question(state))]))
        return update

    answering._named_middle_of_chain = logged_named_middle
    answering.answer_from_paths = logged_answer
