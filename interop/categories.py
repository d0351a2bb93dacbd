"""A file's labels as a taxonomy's categories, and back.

A label that is a valid category key is its own key; another label (spaces,
punctuation, a leading digit) gets a key made from it, and stays the
category's label. Export names a span by the category's label when the key
was made from that label, and by its key otherwise (a study whose taxonomy
was written by hand: "CharE", not "New character without introduction").
"""

import re

KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
KEY_LENGTH = 32  # studies.models.Category.key
LABEL_LENGTH = 200  # studies.models.Category.label


def key_of(label):
    """The category key a label becomes (without making it unique)."""
    if KEY.match(label) and len(label) <= KEY_LENGTH:
        return label
    key = re.sub(r"[^A-Za-z0-9_-]+", "_", label).strip("_-")
    if not key or not key[0].isalpha():
        key = "L" + key
    return key[:KEY_LENGTH]


def keys_for(labels, taken=()):
    """{label: a key unique among these labels and the keys `taken`}, in the labels' order."""
    keys, taken = {}, set(taken)
    for label in labels:
        key, number = key_of(label), 2
        while key in taken:
            suffix = f"-{number}"
            key, number = key_of(label)[: KEY_LENGTH - len(suffix)] + suffix, number + 1
        taken.add(key)
        keys[label] = key
    return keys


def file_label(key, label):
    """How a file names the category's spans."""
    return label if key_of(label) == key else key
