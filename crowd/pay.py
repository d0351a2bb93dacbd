"""A study's pay: the `pay` option of its config (docs/crowd-platforms.md).

    pay:
      reward: 2.50            # per assignment: a document, a block, or the whole qualification
      currency: GBP
      target_hourly: 12.00    # the fair-pay target the dashboard checks against
      bonuses:
        qualification_passed: 12.00   # to each candidate the researcher approved
        top_up_to_target: true        # whoever earned under the target gets the difference

Money is Decimal throughout: a float would turn 0.1 + 0.2 into a third of a penny.
"""

from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from studies.config import ConfigProblem, flag, number, unknown

# ISO 4217 codes the two platforms pay in.
CURRENCIES = ("GBP", "USD", "EUR")
MAX_AMOUNT = 10_000
BONUS_RULES = {
    "qualification_passed": lambda v: number(v, 0.01, MAX_AMOUNT),
    "top_up_to_target": flag,
}
OPTIONS = {"reward", "currency", "target_hourly", "bonuses"}
CENT = Decimal("0.01")


@dataclass(frozen=True)
class Pay:
    reward: Decimal | None = None
    currency: str = ""
    target_hourly: Decimal | None = None
    bonuses: dict = field(default_factory=dict)

    @property
    def qualification_bonus(self):
        value = self.bonuses.get("qualification_passed")
        return money(value) if value is not None else None

    @property
    def tops_up(self):
        return bool(self.bonuses.get("top_up_to_target")) and self.target_hourly is not None


def money(value):
    """A config number as Decimal to the cent (via str: 2.675 stays 2.675 before rounding)."""
    return Decimal(str(value)).quantize(CENT, rounding=ROUND_HALF_UP)


def pay_of(study):
    """The study's Pay; an unpaid study (no `pay` option) has every field empty."""
    options = (study.config or {}).get("pay") or {}
    return Pay(
        reward=money(options["reward"]) if "reward" in options else None,
        currency=options.get("currency", ""),
        target_hourly=money(options["target_hourly"]) if "target_hourly" in options else None,
        bonuses=dict(options.get("bonuses") or {}),
    )


def check_pay(value, path):
    """The config check of `pay` (studies/config.py asks it through the crowd extension)."""
    if not isinstance(value, dict):
        return [ConfigProblem(path, "must be a mapping: reward, currency, target_hourly, bonuses")]
    problems = unknown(value, OPTIONS, path)
    for name in ("reward", "target_hourly"):
        if name in value and (message := number(value[name], 0, MAX_AMOUNT)):
            problems.append(ConfigProblem((*path, name), message))
    if "reward" in value and "currency" not in value:
        problems.append(
            ConfigProblem((*path, "currency"), f"is needed with a reward: one of {', '.join(CURRENCIES)}")
        )
    if "currency" in value and value["currency"] not in CURRENCIES:
        problems.append(ConfigProblem((*path, "currency"), f"must be one of {', '.join(CURRENCIES)}"))
    bonuses = value.get("bonuses", {})
    if not isinstance(bonuses, dict):
        problems.append(ConfigProblem((*path, "bonuses"), "must be a mapping of rule: amount"))
        return problems
    problems += unknown(bonuses, BONUS_RULES, (*path, "bonuses"))
    for rule, setting in bonuses.items():
        if rule in BONUS_RULES and (message := BONUS_RULES[rule](setting)):
            problems.append(ConfigProblem((*path, "bonuses", rule), message))
    if bonuses.get("top_up_to_target") and "target_hourly" not in value:
        problems.append(ConfigProblem((*path, "bonuses", "top_up_to_target"), "needs pay.target_hourly"))
    return problems
