"""The `pay` and `workers` options of a study's config: checked where every option is (studies/config.py)."""

import pytest

from studies.config import config_problems


def problems(config, protocol="span"):
    return [str(problem) for problem in config_problems(config, protocol=protocol)]


@pytest.mark.parametrize("protocol", ["span", "likert", "pairwise"])
def test_good_pay_and_worker_rules_pass_for_every_protocol(protocol):
    config = {
        "pay": {"reward": 5, "currency": "USD", "target_hourly": 15, "bonuses": {"top_up_to_target": True}},
        "workers": {"pool": "tang-2024", "max_per_pool": 2, "allow": ["A1"], "exclude_studies": ["pilot"]},
    }
    assert problems(config, protocol) == []


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"pay": 5}, "config.pay: must be a mapping"),
        ({"pay": {"reward": 2}}, "config.pay.currency: is needed with a reward"),
        ({"pay": {"reward": 2, "currency": "BTC"}}, "config.pay.currency: must be one of GBP, USD, EUR"),
        ({"pay": {"reward": -1, "currency": "GBP"}}, "config.pay.reward: must be a number from 0"),
        ({"pay": {"tip": 1}}, "config.pay: unknown option 'tip'"),
        (
            {"pay": {"bonuses": {"top_up_to_target": True}}},
            "config.pay.bonuses.top_up_to_target: needs pay.target_hourly",
        ),
        (
            {"pay": {"bonuses": {"qualification_passed": "12"}}},
            "config.pay.bonuses.qualification_passed: must be a number",
        ),
        ({"workers": {"max_per_pool": 2}}, "config.workers.max_per_pool: needs workers.pool"),
        ({"workers": {"pool": "a b"}}, "config.workers.pool: must be a name"),
        ({"workers": {"allow": "A1"}}, "config.workers.allow: must be a list of platform ids"),
        (
            {"workers": {"exclude_studies": [""]}},
            "config.workers.exclude_studies: must be a list of study slugs",
        ),
    ],
)
def test_bad_options_are_named(config, message):
    found = problems(config)
    assert any(problem.startswith(message) for problem in found), found
