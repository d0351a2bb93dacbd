"""The span ranking's error rates: per system and input, pooled over the system's documents."""

import pytest

from reports.metrics.spans.report import error_rates


def test_two_documents_of_one_system_for_one_input_are_pooled_not_overwritten():
    documents = {
        1: ["sysA", "in-1", 2, 100],  # 2 spans in 100 tokens read
        2: ["sysA", "in-1", 6, 100],  # the same system's second output for that input
        3: ["sysB", "in-1", 1, 50],
    }
    assert error_rates(documents) == {
        "sysA": {"in-1": pytest.approx(4.0)},
        "sysB": {"in-1": pytest.approx(2.0)},
    }


def test_an_input_with_nothing_read_has_no_rate():
    assert error_rates({1: ["sysA", "in-1", 0, 0], 2: ["sysA", "in-2", 1, 10]}) == {"sysA": {"in-2": 10.0}}
