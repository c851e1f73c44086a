"""A report folder written whole (issue 29: a disk that fills during the report).

Model: the report's files are written into a temporary folder beside the report's own
(OUT_DIR.partial-XXXX, in the same file system), which is renamed to OUT_DIR once every file is
written; an earlier report in OUT_DIR is removed only then.  On any failure the temporary folder
is removed: no half-written report is ever left, and an earlier one stays as it was.  An OSError
on the way (ENOSPC) is raised again naming OUT_DIR, the folder the user knows."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator


@contextlib.contextmanager
def whole_folder(out_dir: str) -> Iterator[str]:
    """Yields the temporary folder to write the report into; renames it to out_dir on success."""
    work = _partial_folder(out_dir)
    try:
        yield work
        _replace_folder(work, out_dir)
    except OSError as e:
        shutil.rmtree(work, ignore_errors=True)
        if e.errno is None:
            raise
        raise OSError(e.errno, e.strerror, out_dir) from e
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


def _partial_folder(final_dir: str) -> str:
    """A new folder beside final_dir for the report under way, with the permissions os.makedirs gives."""
    parent = os.path.dirname(os.path.abspath(final_dir))
    os.makedirs(parent, exist_ok=True)
    work = tempfile.mkdtemp(prefix=os.path.basename(os.path.abspath(final_dir)) + ".partial-", dir=parent)
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(work, 0o777 & ~mask)
    return work


def _replace_folder(work: str, final_dir: str) -> None:
    """Renames the whole report `work` to final_dir; an earlier report there is removed only then."""
    if not os.path.lexists(final_dir):
        os.rename(work, final_dir)
        return
    old = tempfile.mkdtemp(prefix=os.path.basename(os.path.abspath(final_dir)) + ".old-", dir=os.path.dirname(os.path.abspath(final_dir)))
    os.rmdir(old)  # a free name beside it
    os.rename(final_dir, old)
    try:
        os.rename(work, final_dir)
    except BaseException:
        os.rename(old, final_dir)
        raise
    shutil.rmtree(old, ignore_errors=True)
