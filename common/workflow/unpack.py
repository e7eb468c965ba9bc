#!/usr/bin/env python3
"""Unpacks a student's archives safely, for grading.

    unpack.py DEST ARCHIVE...

Each ARCHIVE (.tar, .tar.gz, .tgz, .tar.xz, .tar.bz2, .zip) is unpacked
into DEST/<its file name>.d/, and an archive found inside one is unpacked
beside it the same way, two levels deep at most.  Only folders and regular
files are written: a member whose path is absolute or climbs out with "..",
a link, a device or a FIFO is skipped.  Limits: 2000 members and 64 MiB in
all (counted while writing, whatever sizes the archive claims); a member
over 8 MiB is skipped.  Every skip is one line on stdout, so it can be
shown to the student.  Exit 0 when every archive could be read, 1 when one
could not (said on stdout), 2 on usage.
"""
import os
import shutil
import sys
import tarfile
import zipfile

MAX_MEMBERS = 2000
MAX_TOTAL = 64 * 1024 * 1024
MAX_MEMBER = 8 * 1024 * 1024
MAX_DEPTH = 2
ARCHIVES = ('.tar.gz', '.tgz', '.tar.xz', '.tar.bz2', '.tar', '.zip')


class Budget:
    def __init__(self):
        self.members = 0
        self.bytes = 0


def is_archive(name):
    return name.lower().endswith(ARCHIVES)


def safe_path(dest, name):
    """The path to write NAME at under DEST, or None when it would leave it."""
    parts = [p for p in name.replace('\\', '/').split('/') if p not in ('', '.')]
    if not parts or name.startswith('/') or '..' in parts or ':' in parts[0]:
        return None
    return os.path.join(dest, *parts)


def copy_capped(src, path, budget):
    """Writes at most MAX_MEMBER bytes; False (file removed) when over."""
    written = 0
    with open(path, 'wb') as out:
        while True:
            chunk = src.read(65536)
            if not chunk:
                return True
            written += len(chunk)
            budget.bytes += len(chunk)
            if written > MAX_MEMBER or budget.bytes > MAX_TOTAL:
                out.close()
                os.remove(path)
                return False
            out.write(chunk)


def write_member(dest, name, is_dir, is_file, opener, budget, say):
    budget.members += 1
    if budget.members > MAX_MEMBERS:
        say('%s: skipped, more than %d files in the archives' % (name, MAX_MEMBERS))
        return None
    path = safe_path(dest, name)
    if path is None:
        say('%s: skipped, its path leaves the archive\'s folder' % name)
        return None
    if is_dir:
        os.makedirs(path, exist_ok=True)
        return None
    if not is_file:
        say('%s: skipped, not a regular file (a link or a device)' % name)
        return None
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.lexists(path):
        say('%s: skipped, the archive holds it twice' % name)
        return None
    with opener() as src:
        if not copy_capped(src, path, budget):
            say('%s: skipped, over %d MiB (or the archives over %d MiB in all)'
                % (name, MAX_MEMBER >> 20, MAX_TOTAL >> 20))
            return None
    return path


def unpack_tar(archive, dest, budget, say):
    written = []
    with tarfile.open(archive, 'r:*') as tar:
        for m in tar:
            path = write_member(dest, m.name, m.isdir(), m.isreg(),
                                lambda m=m: tar.extractfile(m), budget, say)
            if path:
                written.append(path)
    return written


def unpack_zip(archive, dest, budget, say):
    written = []
    with zipfile.ZipFile(archive) as z:
        for info in z.infolist():
            mode = (info.external_attr >> 16) & 0o170000
            is_dir = info.is_dir()
            is_file = not is_dir and mode in (0, 0o100000)
            path = write_member(dest, info.filename, is_dir, is_file,
                                lambda i=info: z.open(i), budget, say)
            if path:
                written.append(path)
    return written


def unpack(archive, dest, depth, budget, say):
    """Unpacks ARCHIVE into DEST, then the archives inside it; False if
    ARCHIVE could not be read."""
    os.makedirs(dest, exist_ok=True)
    label = os.path.basename(archive)
    try:
        if archive.lower().endswith('.zip'):
            written = unpack_zip(archive, dest, budget, say)
        else:
            written = unpack_tar(archive, dest, budget, say)
    except (tarfile.TarError, zipfile.BadZipFile, OSError, EOFError, ValueError) as e:
        say('%s: could not be unpacked (%s)' % (label, e))
        return False
    for path in written:
        if is_archive(path):
            if depth >= MAX_DEPTH:
                say('%s: not unpacked, archives nested more than %d deep'
                    % (os.path.relpath(path, dest), MAX_DEPTH))
            else:
                unpack(path, path + '.d', depth + 1, budget, say)
    return True


def main(argv):
    if len(argv) < 3:
        print('usage: unpack.py DEST ARCHIVE...', file=sys.stderr)
        return 2
    dest, budget, ok = argv[1], Budget(), True
    say = lambda text: print(text, flush=True)
    for archive in argv[2:]:
        target = os.path.join(dest, os.path.basename(archive) + '.d')
        if os.path.exists(target):
            shutil.rmtree(target)
        ok = unpack(archive, target, 1, budget, say) and ok
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
