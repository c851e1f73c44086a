"""The package's version and build.  `__version__` is the CMake project version (project() in the
top CMakeLists.txt), written into _version.py in the build tree and the install by configure_file.
Run straight from the source tree (no _version.py) the version is read from that CMakeLists.txt,
or "0+unknown" when it cannot be.  The commit is asked of git at run time, as the CLI does
(platform/machine_context.cpp): `git -C <source dir> rev-parse HEAD`, "-dirty" added when tracked
files differ from it."""

from __future__ import annotations

import os
import re
import subprocess

try:
    import allocstress._version as _version
except ImportError:  # the source tree: no configured file
    _version = None

_HERE_SOURCE_DIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def _version_from_cmake(source_dir: str) -> str | None:
    """The VERSION of project() in source_dir/CMakeLists.txt, or None."""
    try:
        with open(os.path.join(source_dir, "CMakeLists.txt")) as f:
            m = re.search(r"project\s*\(\s*allocstress\b[^)]*\bVERSION\s+([0-9][0-9.]*)", f.read())
    except OSError:
        return None
    return m.group(1) if m else None


VERSION = _version.VERSION if _version else (_version_from_cmake(_HERE_SOURCE_DIR) or "0+unknown")
SOURCE_DIR = _version.SOURCE_DIR if _version else _HERE_SOURCE_DIR


def _git(*args: str) -> tuple[str | None, str]:
    """(first line of `git -C SOURCE_DIR args` or None, why not)."""
    try:
        done = subprocess.run(["git", "-C", SOURCE_DIR, *args], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError) as e:
        return None, f"git could not be run: {e}"
    if done.returncode != 0:
        return None, f"git -C {SOURCE_DIR} {' '.join(args)} failed: {(done.stderr.strip().splitlines() or ['?'])[0]}"
    return (done.stdout.splitlines() or [""])[0], ""


def build_info() -> dict:
    """{"version", "build_type", "source_dir", "commit", "commit_note"}: build_type is CMake's
    (None from the source tree); commit is the source tree's HEAD (+ "-dirty"), or None with
    commit_note saying why (no git, or the source tree is gone)."""
    commit, why = _git("rev-parse", "HEAD")
    if commit:
        changed, _ = _git("status", "--porcelain", "--untracked-files=no")
        commit += "-dirty" if changed else ""
    return {"version": VERSION, "build_type": (_version.BUILD_TYPE or None) if _version else None,
            "source_dir": SOURCE_DIR, "commit": commit or None, "commit_note": why}
