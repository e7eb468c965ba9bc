"""labsinfo: the labs of a suite, read from its one source, `make labs-info`.

    from labsinfo import labs_info
    for lab in labs_info(suite):   # dicts: id lab student threads tsan needs provided
        ...

The columns are documented in common/CONTRIBUTING.md; '-' means empty.
"""
import os
import subprocess

# A make started from a recipe must not see the knobs of the make above it.
_MAKE_ENV = ('MAKEFLAGS', 'MFLAGS', 'MAKELEVEL', 'MAKEOVERRIDES', 'GNUMAKEFLAGS')


def labs_info(suite):
    """One dict per lab of the suite in directory suite, in lab order."""
    env = {k: v for k, v in os.environ.items() if k not in _MAKE_ENV}
    out = subprocess.run(
        ['make', '-s', '--no-print-directory', '-C', suite, 'labs-info', 'LAB='],
        env=env, check=True, stdout=subprocess.PIPE, text=True).stdout
    head, *rows = out.splitlines()
    names = head.split()
    return [dict(zip(names, row.split())) for row in rows]
