"""Reading a JSON file of items (a top-level array) an item at a time, with the line each starts on.

The file is decoded and parsed a buffer at a time: each item is parsed alone
(`json.JSONDecoder.raw_decode` at its first character), checked as
falte_site.json_input checks any JSON from outside, handed on and dropped. Neither the
file's text nor its parsed tree is ever held whole, so reading a file twice (once for
what the whole file decides, once to write it) costs memory of one item, whatever
the file's size (docs/decisions.md, "The interop import reads a file twice, an item at
a time").
"""

import codecs
import json
import os

from django.conf import settings

from falte_site.json_input import MAX_DEPTH, JSONInputError, check_json_value

CHUNK = 1 << 20  # bytes read at a time: a few hundred Label Studio tasks
# A parse error this close to the end of what is read may be an item cut by the read (a number,
# a literal, an escape); the item is parsed again with more of the file before it is called wrong.
CUT_MARGIN = 64
WHITE = " \t\r\n"


class NotReadable(Exception):
    """The file cannot be read on: `line` (0: the file as a whole) and what is wrong."""

    def __init__(self, line, message):
        super().__init__(message)
        self.line, self.message = line, message


def json_array_items(path, name, problems, *, what="item"):
    """(line, value) of each element of the file's top-level array, read one at a time.

    What makes the file unreadable (too large, not UTF-8, not JSON we accept, no array) is
    added to `problems` where it is found, and the items stop there. An item's line is None
    when another item starts on the same line, or the file is one line: a JSON export is
    often written so, and its items are named by their ids, not "line 1".
    """
    limit = settings.BUNDLE_MAX_FILE_BYTES
    size = os.path.getsize(path)
    if size > limit:
        problems.add(name, 0, f"file too large: {size:,} bytes, the limit is {limit:,}")
        return
    with open(path, "rb") as handle:
        try:
            reader = _ArrayReader(handle, what)
            yield from _told_apart(reader.elements(), reader)
        except NotReadable as unreadable:
            problems.add(name, unreadable.line, unreadable.message)


def _told_apart(items, reader):
    """The items with the line of each that starts on a line of its own, else None: an item is
    held until the next has started (or the array has ended, when `reader` knows whether the
    whole array stood on one line), to know whether they share a line."""
    held = previous_line = None
    for line, value in items:
        if held is not None:
            shared = held[0] in (previous_line, line)
            previous_line = held[0]
            yield (None if shared else held[0]), held[1]
        held = (line, value)
    if held is not None:
        shared = held[0] == previous_line or reader.one_line
        yield (None if shared else held[0]), held[1]


class _ArrayReader:
    """The elements of a JSON array from a binary file, parsed one at a time from a sliding buffer."""

    def __init__(self, handle, what):
        self.handle, self.what = handle, what
        self.decoder = json.JSONDecoder()
        self.utf8 = codecs.getincrementaldecoder("utf-8")()
        self.bytes_read = 0
        self.text, self.at = "", 0  # the buffer, and where reading stands in it
        self.line, self.counted = 1, 0  # the line of text[counted]
        self.column = 0  # the column of text[0] in its line (0-based)
        self.ended = False
        self.index = 0  # of the element being read, for a problem's path
        self.one_line = False  # known once the array has ended: "[" and "]" on one line

    def elements(self):
        """(line, value) of each element, in the file's order; NotReadable where the file is not
        a whole JSON array."""
        opening = self._next_character()
        if opening != "[":
            if opening == "":
                raise self._invalid("Expecting value")
            raise NotReadable(self._line_at(self.at), f"must be a JSON array of {self.what}s, [{{...}}, ...]")
        first_line = self._line_at(self.at)
        self.at += 1
        if self._next_character() == "]":
            self._close(first_line)
            return
        while True:
            self._next_character()
            line = self._line_at(self.at)
            yield line, self._element(line)
            following = self._next_character()
            if following == "]":
                self._close(first_line)
                return
            if following != ",":
                raise self._invalid("Expecting ',' delimiter")
            self.at += 1

    def _element(self, line):
        while True:
            try:
                value, end = self.decoder.raw_decode(self.text, self.at)
            except json.JSONDecodeError as error:
                if not self.ended and (
                    error.pos >= len(self.text) - CUT_MARGIN or error.msg.startswith("Unterminated")
                ):
                    self._read(more=True)
                    continue
                raise self._invalid(error.msg, error.pos) from None
            except RecursionError:
                raise NotReadable(
                    line, f"not JSON we accept: nested more than {MAX_DEPTH} levels deep"
                ) from None
            except ValueError:  # the only other one: an integer longer than Python converts
                raise NotReadable(
                    line, "not JSON we accept: invalid JSON: a number has too many digits"
                ) from None
            if end == len(self.text) and not self.ended:  # a number may go on past the buffer
                self._read(more=True)
                continue
            break
        try:
            check_json_value(value, path=(self.index,))
        except JSONInputError as error:
            raise NotReadable(line, f"not JSON we accept: {error.message}") from None
        self.index += 1
        self.at = end
        return value

    def _close(self, first_line):
        self.one_line = self._line_at(self.at) == first_line
        self.at += 1
        if self._next_character() != "":
            raise self._invalid("Extra data")

    def _next_character(self):
        """The next character that is not white space ("" at the end of the file), not taken."""
        while True:
            while self.at < len(self.text) and self.text[self.at] in WHITE:
                self.at += 1
            if self.at < len(self.text):
                return self.text[self.at]
            if self.ended:
                return ""
            self._read()

    def _read(self, more=False):
        """Drop what was read, then add the next CHUNK bytes (with `more`, as many as are held:
        an item longer than the buffer is parsed again from its start, so the buffer doubles)."""
        self._line_at(self.at)
        dropped = self.text[: self.at]
        newline = dropped.rfind("\n")
        self.column = len(dropped) - newline - 1 if newline >= 0 else self.column + len(dropped)
        self.text, self.counted, self.at = self.text[self.at :], 0, 0
        data = self.handle.read(max(CHUNK, len(self.text)) if more else CHUNK)
        self.ended = not data
        pending = len(self.utf8.getstate()[0])
        try:
            added = self.utf8.decode(data, final=self.ended)
        except UnicodeDecodeError as error:
            raise NotReadable(
                0, f"not UTF-8 text ({error.reason} at byte {self.bytes_read - pending + error.start})"
            ) from None
        if self.bytes_read == 0:
            added = added.removeprefix("\ufeff")
        self.bytes_read += len(data)
        self.text += added

    def _line_at(self, position):
        self.line += self.text.count("\n", self.counted, position)
        self.counted = position
        return self.line

    def _invalid(self, message, position=None):
        position = self.at if position is None else min(position, len(self.text))
        line = self._line_at(position)
        newline = self.text.rfind("\n", 0, position)
        column = position - newline if newline >= 0 else self.column + position + 1
        return NotReadable(line, f"not JSON we accept: invalid JSON: {message} (column {column})")
