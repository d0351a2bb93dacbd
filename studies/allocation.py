"""A study's allocation settings (config.allocation): which document a joining worker gets next,
and when the study stops by itself (docs/adaptive-allocation.md).

- `policy`: `uniform` (today's fill order: the documents with the fewest annotators first, in
  bundle order), `uncertain` (the next document goes to the pair of systems whose order is
  least certain given the ratings so far: annotations/services/allocation.py) or `clusters`
  (as `uncertain`, and a pair is also in doubt while its significance at the end of the plan
  is, where that can make or unmake a boundary of the ranking's clusters).
- `settled`: a pair whose doubt is at most this probability is settled (0.01).
- `stop_when`: the rules that close the study: `settled` (every pair settled), `unchanged` (the
  ranking's clusters the same over the last `unchanged_for` ratings), `separated` (every
  adjacent pair of the ranking significantly different by the study's `ranking` test and
  alpha), `budget` (`budget` ratings submitted).

A protocol whose documents have one score each (a system's output of an item: DA, ESA; a
block study's output: its mean Likert rating, its best-minus-worst score, its share of pairwise
wins) lists `allocation` among its config options and gives Protocol.allocation_scores; the check
and the reader are here, once, as for studies/assistance.py. A block study steers by choosing the
next block (annotations/services/block_allocation.py), so blocks that all hold the same systems
leave `uncertain` nothing to steer: a warning (`steers_nothing`), not a refusal, since the study
still runs as uniform and its stopping rules still hold.
"""

from dataclasses import dataclass

from studies import protocols
from studies.config import ConfigProblem, number, unknown, whole

UNIFORM, UNCERTAIN, CLUSTERS = "uniform", "uncertain", "clusters"
POLICIES = (UNIFORM, UNCERTAIN, CLUSTERS)
SETTLED, UNCHANGED, SEPARATED, BUDGET = "settled", "unchanged", "separated", "budget"
STOP_RULES = (SETTLED, UNCHANGED, SEPARATED, BUDGET)
# The rules that need the ranking's significance tests after each rating.
RANKING_RULES = (UNCHANGED, SEPARATED)
DEFAULT_SETTLED = 0.01
SETTLED_LOWEST, SETTLED_HIGHEST = 0.0001, 0.25  # the thresholds a study may set
DEFAULT_UNCHANGED_FOR = 20
KEYS = ("policy", "settled", "stop_when", "unchanged_for", "budget")


def offers_allocation(study):
    """Whether the study's protocol reads config.allocation (DA, ESA, Likert, BWS, pairwise)."""
    return "allocation" in protocols.of(study).config_options


@dataclass(frozen=True)
class AllocationSettings:
    policy: str = UNIFORM
    settled: float = DEFAULT_SETTLED
    stop_when: tuple = ()
    unchanged_for: int = DEFAULT_UNCHANGED_FOR
    budget: int | None = None

    @property
    def adaptive(self):
        return self.policy in (UNCERTAIN, CLUSTERS)

    @property
    def stops(self):
        return bool(self.stop_when)


def allocation_problems(value, path):
    """config.allocation: {policy, settled, stop_when, unchanged_for, budget}."""
    if not isinstance(value, dict):
        return [ConfigProblem(path, "must be a mapping, e.g. {policy: uncertain, stop_when: [settled]}")]
    problems = unknown(value, KEYS, path)
    if value.get("policy", UNIFORM) not in POLICIES:
        problems.append(ConfigProblem((*path, "policy"), f"must be one of {', '.join(POLICIES)}"))
    if (
        "settled" in value
        and (message := number(value["settled"], SETTLED_LOWEST, SETTLED_HIGHEST)) is not None
    ):
        problems.append(ConfigProblem((*path, "settled"), message))
    rules = value.get("stop_when", [])
    if not isinstance(rules, list) or any(rule not in STOP_RULES for rule in rules):
        problems.append(ConfigProblem((*path, "stop_when"), f"must be a list of {', '.join(STOP_RULES)}"))
        rules = []
    if len(set(rules)) != len(rules):
        problems.append(ConfigProblem((*path, "stop_when"), "names a rule twice"))
    if "unchanged_for" in value and (message := whole(value["unchanged_for"], 1, 100_000)) is not None:
        problems.append(ConfigProblem((*path, "unchanged_for"), message))
    if "budget" in value and (message := whole(value["budget"], 1, 10_000_000)) is not None:
        problems.append(ConfigProblem((*path, "budget"), message))
    if BUDGET in rules and "budget" not in value:
        problems.append(
            ConfigProblem((*path, "budget"), "is needed to stop at the budget: the number of ratings")
        )
    return problems


def allocation_settings(study):
    """The study's AllocationSettings (uniform and no stopping rule when the config has none)."""
    value = study.config.get("allocation") if isinstance(study.config, dict) else None
    if not isinstance(value, dict):
        return AllocationSettings()
    return AllocationSettings(
        policy=value.get("policy", UNIFORM),
        settled=value.get("settled", DEFAULT_SETTLED),
        stop_when=tuple(value.get("stop_when", ())),
        unchanged_for=value.get("unchanged_for", DEFAULT_UNCHANGED_FOR),
        budget=value.get("budget"),
    )


STEERS_NOTHING = (
    "config.allocation.policy: {policy} chooses the next block by the systems it holds, and every "
    "block holds the same systems ({systems}): the study will be allocated as uniform. Blocks of "
    "some systems each (e.g. one pair of systems per input) give it something to steer."
)


def steers_nothing(systems_by_block, policy=UNCERTAIN):
    """A warning when `uncertain` cannot steer a block study: every block of ``{block: systems}``
    holds the same set of systems (blocks by input), so every block covers the same pairs and the
    choice falls back to the uniform order. None when the blocks differ (or there are none)."""
    sets = {frozenset(systems) for systems in systems_by_block.values()}
    if len(sets) != 1:
        return None
    return STEERS_NOTHING.format(policy=policy, systems=", ".join(sorted(next(iter(sets)))) or "none")
