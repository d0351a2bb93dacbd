"""Krippendorff's alpha against Krippendorff (2011) and the `krippendorff` package (test-only, GPL)."""

import krippendorff
import numpy as np
import pytest

from reports.metrics import alpha as alpha_module
from reports.metrics import alpha_from_counts, alpha_from_triples, krippendorff_alpha

NAN = np.nan
LEVELS = ("nominal", "ordinal", "interval", "ratio")

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability": 4 coders x 12 units.
WORKED_EXAMPLE = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]
WORKED_ALPHAS = {"nominal": 0.743421, "ordinal": 0.815388, "interval": 0.849107, "ratio": 0.797403}


@pytest.mark.parametrize("level", LEVELS)
def test_worked_example_of_krippendorff_2011(level):
    result = krippendorff_alpha(WORKED_EXAMPLE, level)
    assert result.alpha == pytest.approx(WORKED_ALPHAS[level], abs=1e-6)
    assert result.reason is None
    # Unit 12 has a single value: 11 pairable units holding 40 values.
    assert (result.pairable_units, result.pairable_values) == (11, 40)


def test_worked_example_nominal_is_113_over_152():
    assert krippendorff_alpha(WORKED_EXAMPLE, "nominal").alpha == pytest.approx(113 / 152, abs=1e-12)


def test_two_coders_binary_example_is_2_over_21():
    data = [[0, 1, 0, 0, 0, 0, 0, 0, 1, 0], [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]]
    assert krippendorff_alpha(data, "nominal").alpha == pytest.approx(2 / 21, abs=1e-12)


def test_systematic_disagreement_gives_negative_alpha():
    # Every unit holds one 0 and one 1: o01 = o10 = 4, n0 = n1 = 4, n = 8.
    # alpha = 1 - (n - 1) * 8 / (2 * 4 * 4) = 1 - 7 * 8 / 32 = -0.75.
    result = krippendorff_alpha([[0, 1, 0, 1], [1, 0, 1, 0]], "nominal")
    assert result.alpha == pytest.approx(-0.75, abs=1e-12)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ([[NAN, NAN, NAN], [NAN, NAN, NAN]], "no pairable units"),
        ([[1, 2, 3, 1]], "no pairable units"),
        ([[1, NAN, 3], [NAN, 2, NAN]], "no pairable units"),
        (np.zeros((2, 0)), "no pairable units"),
        ([[4, 4, 4, NAN], [4, 4, NAN, 4]], "only one value among pairable values"),
        # The 7 is in no pairable unit, so only one value is left.
        ([[4, 4, 7], [4, 4, NAN]], "only one value among pairable values"),
    ],
)
@pytest.mark.parametrize("level", LEVELS)
def test_undefined_alpha_is_none_with_a_reason(data, reason, level):
    result = krippendorff_alpha(data, level)
    assert result.alpha is None
    assert result.reason == reason


def test_ratio_with_only_opposite_values_has_no_expected_disagreement():
    # c + k == 0 counts as distance 0, so -1 and 1 never disagree.
    result = krippendorff_alpha([[-1, 1], [-1, 1]], "ratio")
    assert result.alpha is None
    assert result.reason == "no expected disagreement between the pairable values"


def test_unknown_level_and_bad_shapes_are_rejected():
    with pytest.raises(ValueError, match="level"):
        krippendorff_alpha([[1, 2]], "cardinal")
    with pytest.raises(ValueError, match="coders x units"):
        krippendorff_alpha([1, 2, 3], "nominal")
    with pytest.raises(ValueError, match="finite"):
        krippendorff_alpha([[1, np.inf], [1, 2]], "interval")


def random_reliability_data(rng, coders, units, distinct, missing, kind):
    if kind == "integers":
        domain = np.arange(1, distinct + 1, dtype=np.float64)
    elif kind == "spread integers":  # too far apart for coding by subtraction
        domain = np.sort(rng.choice(np.arange(-5000, 5000), size=distinct, replace=False)).astype(np.float64)
    else:  # non-integer, positive (ratio data)
        domain = np.round(rng.uniform(0.25, 40.0, size=distinct), 3)
    data = rng.choice(domain, size=(coders, units))
    data[rng.random(data.shape) < missing] = NAN
    return data


CASES = [
    (seed, coders, units, distinct, missing, kind)
    for seed, (coders, units, distinct, missing, kind) in enumerate(
        [
            (2, 50, 2, 0.0, "integers"),
            (3, 200, 5, 0.1, "integers"),
            (4, 2000, 10, 0.4, "integers"),
            (6, 500, 3, 0.25, "integers"),
            (5, 1000, 7, 0.05, "non-integers"),
            (2, 300, 10, 0.3, "non-integers"),
            (3, 800, 4, 0.2, "spread integers"),
            (6, 1500, 9, 0.35, "non-integers"),
        ]
    )
]


@pytest.mark.parametrize(("seed", "coders", "units", "distinct", "missing", "kind"), CASES)
@pytest.mark.parametrize("level", LEVELS)
def test_random_data_matches_the_krippendorff_package(seed, coders, units, distinct, missing, kind, level):
    rng = np.random.default_rng(seed)
    data = random_reliability_data(rng, coders, units, distinct, missing, kind)
    if kind == "spread integers" and level == "ratio":
        data = np.abs(data)
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    assert krippendorff_alpha(data, level).alpha == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("level", LEVELS)
def test_integer_range_holding_a_fraction_falls_back_to_sorting(level):
    # Smallest and largest are integers, 2.5 is not: coding by subtraction must not be used.
    data = np.array([[0, 2.5, 3, 1, 3, NAN], [0, 2.5, 1, 1, 3, 2.5], [3, NAN, 1, 0, 2.5, 2.5]])
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    assert krippendorff_alpha(data, level).alpha == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("level", LEVELS)
def test_chunk_boundaries_do_not_change_alpha(monkeypatch, level):
    rng = np.random.default_rng(99)
    data = random_reliability_data(rng, 4, 1000, 6, 0.3, "integers")
    whole = krippendorff_alpha(data, level)
    counts = np.stack([(data == value).sum(axis=0) for value in range(1, 7)], axis=1)
    monkeypatch.setattr(alpha_module, "_chunk_units", lambda size: 7)
    assert krippendorff_alpha(data, level).alpha == pytest.approx(whole.alpha, abs=1e-12)
    assert alpha_from_counts(counts, np.arange(1, 7), level).alpha == pytest.approx(whole.alpha, abs=1e-12)


def as_counts(data):
    values = np.unique(data[~np.isnan(data)])
    return np.stack([(data == value).sum(axis=0) for value in values], axis=1), values


@pytest.mark.parametrize("level", LEVELS)
def test_alpha_from_counts_agrees_with_the_coders_by_units_array(level):
    rng = np.random.default_rng(5)
    data = random_reliability_data(rng, 5, 700, 6, 0.3, "non-integers")
    counts, values = as_counts(data)
    expected = krippendorff_alpha(data, level)
    result = alpha_from_counts(counts.astype(np.uint8), values, level)
    assert result.alpha == pytest.approx(expected.alpha, abs=1e-12)
    assert (result.pairable_units, result.pairable_values) == (
        expected.pairable_units,
        expected.pairable_values,
    )
    # Columns in any order, as long as the values say which is which.
    shuffled = rng.permutation(len(values))
    assert alpha_from_counts(counts[:, shuffled], values[shuffled], level).alpha == pytest.approx(
        expected.alpha
    )


@pytest.mark.parametrize("level", LEVELS)
def test_weights_stand_for_repeated_rows(level):
    counts = np.array([[2, 1, 0], [0, 3, 0], [1, 0, 1], [0, 0, 1]])
    weights = np.array([3, 1, 2, 5])
    repeated = np.repeat(counts, weights, axis=0)
    weighted = alpha_from_counts(counts, [1, 2, 4], level, weights=weights)
    plain = alpha_from_counts(repeated, [1, 2, 4], level)
    assert weighted.alpha == pytest.approx(plain.alpha, abs=1e-12)
    # The last row (one value) is not pairable: 3 + 1 + 2 units, 3 * 3 + 1 * 3 + 2 * 2 values.
    assert (weighted.pairable_units, weighted.pairable_values) == (6, 16)


def test_alpha_from_counts_rejects_bad_input():
    with pytest.raises(ValueError, match="distinct"):
        alpha_from_counts([[1, 1]], [3, 3])
    with pytest.raises(ValueError, match="non-negative"):
        alpha_from_counts([[1, -1]])
    with pytest.raises(ValueError, match="one value per column"):
        alpha_from_counts([[1, 1]], [1, 2, 3])


@pytest.mark.parametrize("level", LEVELS)
def test_alpha_from_triples_agrees_with_the_array(level):
    data = np.array(WORKED_EXAMPLE, dtype=np.float64)
    coders, units = np.nonzero(~np.isnan(data))
    labels = np.array(["A", "B", "C", "D"])[coders]
    result = alpha_from_triples(labels, [f"unit-{u:02d}" for u in units], data[coders, units], level)
    assert result.alpha == pytest.approx(WORKED_ALPHAS[level], abs=1e-6)


def test_alpha_from_triples_rejects_two_values_from_one_coder_for_one_unit():
    with pytest.raises(ValueError, match="more than one value"):
        alpha_from_triples(["a", "a", "b"], ["u", "u", "u"], [1, 2, 1])
