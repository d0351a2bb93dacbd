"""The HIT a study makes: its `mturk` config option (who may take it, how long it stays up) and create_hit's request.

    mturk:
      min_approval_pct: 98        # the worker's share of approved HITs, 0-100
      min_approved_hits: 500      # how many HITs of theirs were approved
      locales: [AU, CA, NZ, GB, US]
      require_qualification: true # only workers granted our qualification (crowd/mturk.py)
      qualification_name: snac-qualified
      lifetime_days: 7            # how long workers can find the HIT
      auto_approve_days: 3        # submitted work left unreviewed is approved after this
      keywords: [summaries, annotation]
      description: Read a story summary and mark its errors.

These are Tang et al.'s worker rules (>= 98% approved, >= 500 approved HITs,
five English-speaking countries). Each rule becomes a QualificationRequirement
of the HIT; an option left out sets no requirement.
"""

from decimal import Decimal
from xml.sax.saxutils import escape

from django.conf import settings

from studies.config import ConfigProblem, flag, text, unknown, whole

from .pay import money, pay_of

# Mechanical Turk's system qualification types (the same ids in the sandbox and live).
PERCENT_APPROVED = "000000000000000000L0"
HITS_APPROVED = "00000000000000000040"
LOCALE = "00000000000000000071"
DAY = 24 * 60 * 60
EXTERNAL_QUESTION = (
    '<ExternalQuestion xmlns="http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/'
    '2006-07-14/ExternalQuestion.xsd"><ExternalURL>{url}</ExternalURL>'
    # 0: the frame takes the height of the worker's window (the task page scrolls itself).
    "<FrameHeight>0</FrameHeight></ExternalQuestion>"
)
DEFAULTS = {"lifetime_days": 7, "auto_approve_days": 3, "keywords": [], "require_qualification": False}
# ISO 3166-1 alpha-2: a regex would let the common slip "UK" (for GB) through.
ISO_3166 = """AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS
    BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG
    EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR
    HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR
    LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG
    NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE
    SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA
    UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW"""
COUNTRIES = frozenset(ISO_3166.split())
CHECKS = {
    "min_approval_pct": lambda v: whole(v, 0, 100),
    "min_approved_hits": lambda v: whole(v, 0, 10_000_000),
    "require_qualification": flag,
    "qualification_name": lambda v: text(v) or (None if v.strip() else "must not be empty"),
    "lifetime_days": lambda v: whole(v, 1, 365),  # Mechanical Turk keeps a HIT up to a year
    "auto_approve_days": lambda v: whole(v, 0, 30),  # and approves by itself after 30 days at most
    "description": lambda v: text(v) or (None if v.strip() else "must not be empty"),
}


def _locales(value):
    if not isinstance(value, list) or not value:
        return "must be a list of country codes, e.g. [AU, CA, NZ, GB, US]"
    wrong = [str(code) for code in value if code not in COUNTRIES]
    if wrong:
        return f"{', '.join(wrong)}: not ISO 3166 country codes (two capitals; the United Kingdom is GB)"
    return None


def _keywords(value):
    if not isinstance(value, list) or not all(isinstance(word, str) and word.strip() for word in value):
        return "must be a list of words"
    if len(", ".join(value)) > 1000:
        return "must be at most 1,000 characters together"
    return None


CHECKS.update(locales=_locales, keywords=_keywords)


def check_mturk(value, path):
    """The config check of `mturk` (studies/config.py asks it through the crowd extension)."""
    if not isinstance(value, dict):
        return [ConfigProblem(path, f"must be a mapping: {', '.join(sorted(CHECKS))}")]
    problems = unknown(value, CHECKS, path)
    for name, setting in value.items():
        if name in CHECKS and (message := CHECKS[name](setting)):
            problems.append(ConfigProblem((*path, name), message))
    return problems


def mturk_options(study):
    """The study's `mturk` option with the defaults filled in (the config was checked when saved)."""
    return {**DEFAULTS, **((study.config or {}).get("mturk") or {})}


def qualification_name(study):
    """The name of the custom qualification type that workers who passed `study` are granted.

    Mechanical Turk wants type names unique per requester; the study slug is unique here."""
    return mturk_options(study).get("qualification_name") or f"{study.slug} qualified"


def worker_requirements(options, custom_type=None):
    """The HIT's QualificationRequirements: hidden from workers who do not meet them."""
    guarded = {"ActionsGuarded": "DiscoverPreviewAndAccept"}
    requirements = []
    if "min_approval_pct" in options:
        requirements.append({"QualificationTypeId": PERCENT_APPROVED, "Comparator": "GreaterThanOrEqualTo",
                             "IntegerValues": [options["min_approval_pct"]], **guarded})  # fmt: skip
    if "min_approved_hits" in options:
        requirements.append({"QualificationTypeId": HITS_APPROVED, "Comparator": "GreaterThanOrEqualTo",
                             "IntegerValues": [options["min_approved_hits"]], **guarded})  # fmt: skip
    if options.get("locales"):
        requirements.append({"QualificationTypeId": LOCALE, "Comparator": "In",
                             "LocaleValues": [{"Country": code} for code in options["locales"]], **guarded})  # fmt: skip
    if custom_type:
        requirements.append({"QualificationTypeId": custom_type, "Comparator": "Exists", **guarded})
    return requirements


def join_link(study):
    return f"{settings.SITE_URL.rstrip('/')}/join/{study.join_key}/"


def usd(amount, what):
    """`amount` to the cent; Mechanical Turk pays in USD only, and nothing below a cent."""
    if amount is None or Decimal(amount) <= 0:
        raise ValueError(f"{what} must be more than 0 USD.")
    return money(amount)


def hit_request(study, *, places, reward, minutes, token, custom_type=None):
    """create_hit's keyword arguments for an external question showing the study's join link."""
    currency = pay_of(study).currency or "USD"
    if currency != "USD":
        raise ValueError(f"Mechanical Turk pays in USD; the study's pay.currency is {currency}.")
    reward = usd(reward, "The reward")
    if places < 1 or minutes <= 0:
        raise ValueError("A HIT needs at least one assignment and an estimated time.")
    link = join_link(study)
    if not link.startswith("https://"):
        raise ValueError(f"Mechanical Turk opens only https:// task pages; SITE_URL gives {link}.")
    options = mturk_options(study)
    instructions = next((p.strip() for p in study.instructions.split("\n\n") if p.strip()), "")
    return {
        "Title": study.title[:128],
        "Description": (options.get("description") or instructions or study.title)[:2000],
        "Keywords": ", ".join(options["keywords"]),
        "Reward": f"{reward:.2f}",
        "MaxAssignments": places,
        "LifetimeInSeconds": options["lifetime_days"] * DAY,
        # Three times the estimate, at least an hour: a slow worker must not lose the HIT mid-task.
        "AssignmentDurationInSeconds": max(3 * int(minutes * 60), 3600),
        "AutoApprovalDelayInSeconds": options["auto_approve_days"] * DAY,
        "Question": EXTERNAL_QUESTION.format(url=escape(link)),
        "QualificationRequirements": worker_requirements(options, custom_type),
        "UniqueRequestToken": token,
    }
