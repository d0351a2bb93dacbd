"""Unpack an uploaded bundle zip into a directory, refusing anything unsafe.

A member may not leave the directory (absolute paths, `..`, drive letters,
symbolic links), and the whole archive may not unpack to more than four
times the size one bundle file may have: the sizes in a zip's directory can
lie, so the bytes are counted as they are written.
"""

import stat
import zipfile
from pathlib import Path, PurePosixPath

from django.conf import settings

# Archivers add these; they are never part of a bundle.
IGNORED_PARTS = {"__MACOSX", ".DS_Store"}
MAX_MEMBERS = 1000
CHUNK = 1024 * 1024


class UnsafeArchive(ValueError):
    """The upload is not a zip this site will unpack; the message says why."""


def archive_limit():
    return settings.BUNDLE_MAX_FILE_BYTES * 4


def _member_path(member):
    name = member.filename
    if "\\" in name or name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise UnsafeArchive(f"refused: the member {name!r} has an absolute path")
    path = PurePosixPath(name)
    if ".." in path.parts:
        raise UnsafeArchive(f"refused: the member {name!r} points outside the bundle (..)")
    if stat.S_ISLNK(member.external_attr >> 16):
        raise UnsafeArchive(f"refused: the member {name!r} is a symbolic link")
    return path


def _copy_limited(source, target, budget):
    written = 0
    while chunk := source.read(CHUNK):
        written += len(chunk)
        if written > budget:
            raise UnsafeArchive(f"refused: the zip unpacks to more than {archive_limit():,} bytes")
        target.write(chunk)
    return written


def extract_bundle(upload, directory):
    """Unpack `upload` (a file object) into `directory`; return the bundle's own folder.

    The bundle's files may stand at the root of the zip or in one top-level folder.
    """
    directory = Path(directory)
    try:
        archive = zipfile.ZipFile(upload)
    except zipfile.BadZipFile:
        raise UnsafeArchive("not a zip file") from None
    with archive:
        members = archive.infolist()
        if len(members) > MAX_MEMBERS:
            raise UnsafeArchive(f"refused: more than {MAX_MEMBERS} files in the zip")
        paths = [(member, _member_path(member)) for member in members]  # check all before writing any
        budget = archive_limit()
        if sum(member.file_size for member in members) > budget:
            raise UnsafeArchive(f"refused: the zip unpacks to more than {budget:,} bytes")
        for member, path in paths:
            if member.is_dir() or IGNORED_PARTS.intersection(path.parts) or not path.parts:
                continue
            target = directory.joinpath(*path.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                with archive.open(member) as source, open(target, "wb") as handle:
                    budget -= _copy_limited(source, handle, budget)
            except (RuntimeError, NotImplementedError, zipfile.BadZipFile) as error:
                # Encrypted members, unknown compression, corrupt data.
                raise UnsafeArchive(f"cannot unpack {member.filename!r}: {error}") from None
    return _bundle_root(directory)


def _bundle_root(directory):
    if (directory / "study.yaml").exists():
        return directory
    entries = [entry for entry in directory.iterdir() if entry.name not in IGNORED_PARTS]
    if len(entries) == 1 and entries[0].is_dir():
        return entries[0]
    return directory  # the import then reports study.yaml as missing
