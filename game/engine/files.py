"""Files the program writes: atomically, so that a crash never leaves half a file."""

from __future__ import annotations

import os
import tempfile


def umask() -> int:
    """The process's umask (read by setting it and putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write(path: str, data: str | bytes) -> None:
    """Write a file so that a crash leaves either the old or the new file, never half. The
    file gets the mode an ordinary ``open`` would give it (0666 less the umask: 0644 under
    the usual 022), not the temporary file's owner-only 0600."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix="-" + os.path.basename(path), dir=directory)
    try:
        os.fchmod(fd, 0o666 & ~umask())
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
