"""Check a pairwise bundle: the blocks' outputs can make pairs, and the choices of assignments.jsonl.

Every problem is `file:line: message`; a line with a problem is left out, so
one run lists them all and the import writes nothing.
"""

from collections import Counter
from dataclasses import dataclass, field

from bundles.fields import is_int, unknown_fields
from bundles.headers import HEADER_FIELDS, check_header, unique_block_lines
from bundles.spool import CheckedAssignments

from . import config

LINE_FIELDS = HEADER_FIELDS | {"choices"}
CHOICE_FIELDS = ("left", "right", "choice", "strength")
ASSIGNMENT_BATCH = 500  # assignments per batch on disk, and per batch written


@dataclass(frozen=True)
class ChoiceSpec:
    left: str  # external document ids, as shown: left is A
    right: str
    choice: str
    strength: int | None


@dataclass
class PairwiseAssignmentSpec:
    """One line of assignments.jsonl: a worker's block and their choices in it, in order."""

    annotator: str
    block: str
    platform: str = "import"
    kind: str = "main"
    active_seconds: int = 0
    submitted_at: str | None = None
    arm: str = ""
    feedback: str = ""
    choices: list = field(default_factory=list)


def check_outputs(documents, problems, file, line_of):
    """The blocks' outputs (`documents` a CheckedDocuments): {block: {external id: (input id, system)}},
    read from disk as assignments name a block, and the ids of the outputs refused.

    Every document in a block needs an input id and a system, an input has at
    most one output per system in a block, and a block needs at least one
    pair. Problems come in the order of the documents, then of the blocks.
    """
    refused, of_documents, of_blocks, any_block = set(), [], [], False
    for block, members in documents.by_block():
        any_block = True
        outputs = {}
        first_of = {}  # (input, system) -> its first output in the block
        for output in members:
            where = f"document '{output.external_id}' (block '{block}')"
            if not output.input_id or not output.system:
                of_documents.append((output.position, output.external_id,
                                     f"{where}: a pairwise study needs the 'input_id' and 'system' of every output"))  # fmt: skip
                refused.add(output.external_id)
                continue
            other = first_of.setdefault((output.input_id, output.system), output.external_id)
            if other != output.external_id:
                of_documents.append((output.position, output.external_id,
                                     f"{where}: input '{output.input_id}' already has an output of system "
                                     f"'{output.system}' in this block ('{other}'); a pair compares two systems"))  # fmt: skip
                refused.add(output.external_id)
                continue
            outputs[output.external_id] = output.input_id
        if outputs and any(found := _block_problems(block, outputs)):
            of_blocks.append(found)  # only blocks with something to say: a study may have 100,000
    for _, external_id, message in sorted(of_documents, key=lambda problem: problem[0]):
        problems.add(file, line_of(external_id), message)
    for problem, warnings in of_blocks:
        if problem:
            problems.add(file, line_of(problem[0]), problem[1])
        for external_id, message in warnings:
            problems.warn(file, line_of(external_id), message)
    if documents and not any_block:
        problems.add(file, 0, "no document has a 'block': a pairwise study hands out blocks of outputs")

    def accepted(members):
        outputs = {m.external_id: (m.input_id, m.system) for m in members if m.external_id not in refused}
        return outputs or None

    return documents.blocks(accepted), refused


def _block_problems(block, outputs):
    """(the block's problem as (external id, message), or None; its warnings) for its accepted
    outputs {external id: input id}."""
    sizes = Counter(outputs.values())
    if max(sizes.values()) < 2:
        return (next(iter(outputs)), f"block '{block}' has no pair to compare: its inputs need "
                                     "two or more outputs (of different systems) each"), []  # fmt: skip
    return None, [
        (
            external_id,
            f"input '{input_id}' has one output in block '{block}' ('{external_id}'): it is in no pair",
        )
        for external_id, input_id in outputs.items()
        if sizes[input_id] == 1
    ]


def check_assignments(records, problems, *, blocks, broken, study):
    """The lines of assignments.jsonl as PairwiseAssignmentSpecs (`study`: anything with the config),
    in a CheckedAssignments (on disk until the write, a batch at a time).

    `broken` documents were reported already: a line naming one is left out
    without a second message.
    """
    return unique_block_lines(
        records,
        problems,
        lambda record: _check_line(record, problems, blocks, broken, study),
        CheckedAssignments(lambda spec: len(spec.choices), batch=ASSIGNMENT_BATCH),
    )


def _check_line(record, problems, blocks, broken, study):
    value, file, line = record.value, record.file, record.line
    if not isinstance(value, dict):
        problems.add(
            file, line, 'an assignment must be an object: {"block": ..., "annotator": ..., "choices": [...]}'
        )
        return None
    unknown_fields(value, LINE_FIELDS, file, problems, line)
    header = check_header(value, file, line, problems)
    if header is None:
        return None
    outputs = blocks.get(header["block"])  # once a line: a block is read from disk on look-up
    if outputs is None:
        problems.add(file, line, f"assignment for unknown block {header['block']!r}")
        return None
    raw = value.get("choices", [])
    if not isinstance(raw, list):
        problems.add(file, line, "'choices' must be a list of {left, right, choice, strength}")
        return None
    choices, seen = [], {}
    for number, item in enumerate(raw, start=1):
        choice = _check_choice(item, f"choice {number}", outputs, broken, seen, study,
                               lambda message: problems.add(file, line, message))  # fmt: skip
        if choice is None:
            return None
        seen[frozenset((choice.left, choice.right))] = number
        choices.append(choice)
    return PairwiseAssignmentSpec(choices=choices, **header)


def _check_choice(item, where, outputs, broken, seen, study, report):
    if (
        not isinstance(item, dict)
        or set(item) - set(CHOICE_FIELDS)
        or not {"left", "right", "choice"} <= set(item)
    ):
        report(f'{where}: give {{"left", "right", "choice", "strength"}}')
        return None
    left, right = (str(item[side]) if is_int(item[side]) else item[side] for side in ("left", "right"))
    for document in (left, right):
        if isinstance(document, str) and document in broken:
            return None
        if not isinstance(document, str) or document not in outputs:
            report(f"{where}: document {document!r} is not an output of this block")
            return None
    if left == right:
        report(f"{where}: left and right must be different documents")
        return None
    if outputs[left][0] != outputs[right][0]:
        report(f"{where}: '{left}' and '{right}' are outputs of different inputs "
               f"('{outputs[left][0]}', '{outputs[right][0]}')")  # fmt: skip
        return None
    earlier = seen.get(frozenset((left, right)))
    if earlier is not None:
        report(f"{where}: the pair '{left}' / '{right}' is already chosen in choice {earlier}")
        return None
    choice, strength = item["choice"], item.get("strength")
    problem = config.choice_problem(study, choice) or config.strength_problem(study, choice, strength)
    if problem:
        report(f"{where}: {problem}")
        return None
    return ChoiceSpec(left=left, right=right, choice=choice, strength=strength)
