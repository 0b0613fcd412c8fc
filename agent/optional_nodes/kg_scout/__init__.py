"""KG-Scout (Chakraborty 2025): a policy network that picks the question's triples, trained
with REINFORCE on a reward for reaching the answers. `features.py` builds its inputs,
`model.py` is the network, `reward.py` the reward, `training.py` the loop, `scorer.py`
the trained model as the triple pipeline's scorer. (Nothing imported here: the cosine
scorer uses `features.linearise` without loading torch.)"""
