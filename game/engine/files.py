"""Files the program writes: atomically, so that a crash never leaves half a file.

A write goes through symlinks to the file they name (the link stays a link, and its
target gets the new text), and refuses to replace anything that is not a regular file
or a new path (a device such as ``/dev/null``, a pipe, a socket, a folder):
:class:`NotRegularFile`, an ``OSError`` with the path.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile


class NotRegularFile(OSError):
    """The path names something a file write must not replace."""


def umask() -> int:
    """The process's umask (read by setting it and putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write(path: str, data: str | bytes) -> None:
    """Write a file so that a crash leaves either the old or the new file, never half. The
    file gets the mode an ordinary ``open`` would give it (0666 less the umask: 0644 under
    the usual 022), not the temporary file's owner-only 0600; a file replaced keeps its mode.
    A symlink is followed to its target (see the module's doc)."""
    path = target_of(path)
    mode = 0o666 & ~umask()
    try:
        st = os.stat(path)
    except FileNotFoundError:
        pass
    else:
        if not stat.S_ISREG(st.st_mode):
            kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file (a device, a pipe or a socket)"
            raise NotRegularFile(errno.EINVAL, f"{kind}: refusing to write over it", path)
        mode = stat.S_IMODE(st.st_mode)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix="-" + os.path.basename(path), dir=directory)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def target_of(path: str) -> str:
    """The file a write to ``path`` should change: ``path`` itself, or the end of its chain
    of symlinks (a dangling link: the path it points at, which the write creates)."""
    if not os.path.islink(path):
        return path
    return os.path.realpath(path)
