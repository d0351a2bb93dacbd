"""The formats by the name `--format` takes, each a module imported only when asked for.

A format's module may be missing from an installation (or not written yet);
asking for it is then a clear error, never an ImportError from deep inside.
"""

import importlib
import inspect

FORMATS = {
    "label-studio": "interop.formats.label_studio",
    "doccano": "interop.formats.doccano",
    "potato": "interop.formats.potato",
    "factgenie": "interop.formats.factgenie",
    "hf": "interop.formats.hf",
    "mqm-tsv": "interop.formats.mqm_tsv",
    "pearmut": "interop.pearmut",  # a campaign's items (read only: its results have no documented format)
}
EXPORT_ONLY = {"hf"}  # Parquet / Hugging Face datasets: written for training, never read back
# Formats of translation studies (protocols/translation): a file is imported as a study of that
# protocol and a study exported as one, by modules of their own (interop/mqm, interop/pearmut.py),
# not through a span corpus. {name: the options its import takes}.
TRANSLATION = {"mqm-tsv": ("title",), "pearmut": ("title",)}


# Options of the import itself, which every format takes (interop/repeats.py).
IMPORT_OPTIONS = ("repeats",)


class FormatUnavailable(Exception):
    """The format is unknown, not installed, or cannot do what was asked."""


class OptionInvalid(ValueError):
    """An option given as NAME=VALUE that the format's reader does not take; the message lists those it does."""


def names():
    return list(FORMATS)


def format_module(name, *, reading):
    """The module of format `name`; FormatUnavailable says why there is none to use."""
    if name not in FORMATS:
        raise FormatUnavailable(f"unknown format {name!r} (one of {', '.join(FORMATS)})")
    if reading and name in EXPORT_ONLY:
        raise FormatUnavailable(f"format {name!r} is written only; it cannot be imported")
    path = FORMATS[name]
    try:
        module = importlib.import_module(path)
    except ModuleNotFoundError as error:
        if error.name != path:  # the module is there but needs something that is not
            raise FormatUnavailable(f"format {name!r} needs {error.name!r}, which is not installed") from None
        raise FormatUnavailable(f"format {name!r} is not available in this installation ({path})") from None
    needed = "read" if reading else "write"
    if not callable(getattr(module, needed, None)):
        raise FormatUnavailable(f"format {name!r} cannot be {'imported' if reading else 'exported'}")
    return module


def reading_options(name):
    """The names of the options an import of format `name` takes: its reader's (doccano: offsets),
    in their order, then the import's own (IMPORT_OPTIONS). A translation format: its import's."""
    if name in TRANSLATION:
        return list(TRANSLATION[name])
    parameters = inspect.signature(format_module(name, reading=True).read).parameters.values()
    return [parameter.name for parameter in parameters if parameter.kind is parameter.KEYWORD_ONLY] + [
        option for option in IMPORT_OPTIONS if option not in {p.name for p in parameters}
    ]


def parsed_options(name, texts):
    """{option: value} of `NAME=VALUE` texts for format `name`'s reader (a dash in NAME counts as
    an underscore: text-field is text_field); OptionInvalid says what is wrong and lists its options."""
    accepted, options = reading_options(name), {}
    for text in texts:
        option, equals, value = text.partition("=")
        option = option.strip().replace("-", "_")
        if not equals or not option:
            raise OptionInvalid(f"option {text!r}: give NAME=VALUE")
        if option not in accepted:
            raise OptionInvalid(
                f"format {name!r} has no option {option!r}; its options: {', '.join(accepted)}"
                if accepted
                else f"format {name!r} takes no options (given {option!r})"
            )
        if option in options:
            raise OptionInvalid(f"option {option!r} is given twice")
        options[option] = value.strip()
    return options
