"""A published significance table reproduced: WMT21 cs-en DA (data/wmt21-da-csen/README.md).

The platform's ranking, with the unpaired one-sided Wilcoxon rank-sum test WMT uses for DA,
run on the release's segment scores, gives the release's system scores, its p-values to
every printed digit, its significance stars and the clusters they imply."""

import gzip
from pathlib import Path

import pytest

from reports.metrics.ranking import rank_systems

DATA = Path(__file__).resolve().parents[2] / "data" / "wmt21-da-csen"
NOT_SIGNIFICANT = 0.12  # the release's stand-in for p >= 0.05


def table(name):
    return [line.split() for line in (DATA / name).read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def segments():
    with gzip.open(DATA / "ad-seg-scores-cs-en.csv.gz", "rt") as lines:
        rows = [line.split() for line in lines][1:]
    z, raw = {}, {}
    for system, segment, raw_score, z_score, _ratings in rows:
        z.setdefault(system, {})[segment] = float(z_score)
        raw.setdefault(system, {})[segment] = float(raw_score)
    return z, raw


@pytest.fixture(scope="module")
def ranking(segments):
    return rank_systems(segments[0], test="ranksum")


def test_system_scores_and_order_are_the_releases(ranking, segments):
    published = table("ad-sys-ranking-cs-en-z.csv")  # raw, z, N, N.ALL, system; best first
    assert [row["system"] for row in ranking["systems"]] == [line[4] for line in published]
    for row, line in zip(ranking["systems"], published, strict=True):
        assert f"{row['score']:.3f}" == f"{float(line[1]):.3f}"
        assert row["items"] == int(line[2])
    raw = rank_systems(segments[1], test="ranksum")
    raw_scores = {row["system"]: row["score"] for row in raw["systems"]}
    for line in table("ad-sys-scores-cs-en.csv")[1:]:
        assert raw_scores[line[3]] == pytest.approx(float(line[0]), abs=1e-9)


def test_every_p_value_is_the_releases_to_every_digit(ranking):
    lines = table("adwilcox-csen.csv")
    header, printed = lines[0], {}
    for line in lines[1:]:
        for column, value in zip(header, line[1:], strict=True):
            printed[line[0], column] = float(value)
    assert len(ranking["pairs"]) == 36
    for pair in ranking["pairs"]:
        published = printed[pair["better"], pair["worse"]]
        if published == NOT_SIGNIFICANT:
            assert pair["p"] >= 0.05 and not pair["significant"]
        else:
            assert pair["p"] == pytest.approx(published, rel=1e-9)
            assert pair["significant"]


def stars(p):
    return "***" if p < 0.001 else "**" if p < 0.01 else "*" if p < 0.05 else ""


def test_the_starred_differences_and_the_clusters(ranking):
    lines = table("ad-DA-diff-wilcoxon-rs-csen.csv")
    header, printed = lines[0], {}
    for line in lines[1:]:
        for column, cell in zip(header, line[1:], strict=True):
            printed[line[0], column] = cell
    for pair in ranking["pairs"]:
        cell = printed[pair["better"], pair["worse"]]
        assert cell == f"{round(pair['difference'], 2):g}{stars(pair['p'])}", (pair, cell)
    clusters = {}
    for row in ranking["systems"]:
        clusters.setdefault(row["cluster"], []).append(row["system"].split(".")[0])
    assert clusters == {
        1: ["Facebook-AI", "Online-A"],
        2: [
            "CUNI-DocTransformer",
            "Online-B",
            "CUNI-Transformer2018",
            "Online-W",
            "Online-G",
            "Online-Y",
            "HUMAN",
        ],
    }
