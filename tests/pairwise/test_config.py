"""The pairwise options of a study's config, checked like every other option."""

import pytest

from studies.config import config_problems


def problems(config):
    return [str(problem) for problem in config_problems(config, protocol="pairwise")]


def test_the_documented_options_pass():
    assert problems({}) == []
    assert problems({
        "pairs": {"design": "covering", "min_pairs": 2}, "allow_ties": False,
        "strength": {"max": 2, "labels": {1: "slightly", "2": "clearly"}}, "question": "Which is better?",
        "seed": 3, "retest_after_days": 7, "announce_retest": True,
    }) == []  # fmt: skip
    assert problems({"pairs": {"design": "all"}, "strength": {"max": 5}}) == []


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({"pairs": "all"}, "config.pairs: must be a mapping {design: all|covering, min_pairs: N}"),
        ({"pairs": {"design": "some"}}, "config.pairs.design: must be one of all, covering"),
        ({"pairs": {"design": "covering"}}, "config.pairs: design covering needs min_pairs"),
        ({"pairs": {"min_pairs": 2}}, "config.pairs.min_pairs: is for design: covering"),
        ({"pairs": {"design": "covering", "min_pairs": 0}}, "config.pairs.min_pairs: must be a whole number from 1 to 100"),
        ({"pairs": {"design": "covering", "min_pairs": 2, "rounds": 3}}, "config.pairs: unknown option 'rounds'"),
        ({"allow_ties": "yes"}, "config.allow_ties: must be true or false"),
        ({"strength": 2}, "config.strength: must be a mapping {max, labels}"),
        ({"strength": {"labels": {1: "a"}}}, "config.strength: needs max"),
        ({"strength": {"max": 1}}, "config.strength.max: must be a whole number from 2 to 5"),
        ({"strength": {"max": 6}}, "config.strength.max: must be a whole number from 2 to 5"),
        ({"strength": {"max": 2, "labels": {3: "very"}}}, "config.strength.labels: 3 is not a point of the scale"),
        ({"question": ["?"]}, "config.question: must be a text"),
        ({"scale": {"min": 1, "max": 5}}, "config.scale: is for likert, esa, da, contrastive-esa and contrastive-da studies, not pairwise"),
        ({"ties": True}, "config: unknown option 'ties'"),
    ],
)  # fmt: skip
def test_a_wrong_option_is_named_with_its_path(config, expected):
    found = problems(config)
    assert len(found) == 1 and found[0].startswith(expected), found


def test_pairwise_options_are_refused_in_other_studies():
    found = [str(p) for p in config_problems({"allow_ties": True}, protocol="likert")]
    assert found == ["config.allow_ties: is for pairwise studies, not likert"]
