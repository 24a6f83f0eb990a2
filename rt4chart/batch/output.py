"""Where a batch's predictions go, for every engine: one line per input record, in input order, each position
exactly once (checked as written); a file is written beside itself and moved into place only when every line is
there, so a run that stops leaves no partial predictions; a stream ('-', a device, a pipe or a link into /dev) is
written as the lines come and never replaced; one writer per output file; never the input file itself."""
from __future__ import annotations

import os
import stat
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Optional, TextIO

from rt4chart.batch.locks import exclusive_output
from rt4chart.core.errors import InputError


def is_stream(output_path: str) -> bool:
    """'-' (standard output), or a path that is no regular file to replace: a device or pipe (/dev/null, a named
    pipe), or a link into /dev or /proc (/dev/stderr)."""
    if output_path == "-":
        return True
    real = os.path.realpath(output_path)
    if real.startswith(("/dev/", "/proc/")) or os.path.abspath(output_path).startswith(("/dev/", "/proc/")):
        return True
    try:
        mode = os.stat(output_path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode)


def refuse_output_over_input(input_path: str, output_path: str) -> None:
    """The predictions must never replace the records they were made from (same path, link or file)."""
    if is_stream(output_path) or not os.path.exists(output_path):
        return
    if os.path.samefile(input_path, output_path):
        raise InputError(f"-o {output_path} is the input file itself: the predictions would replace the records; "
                         "write them to another file (e.g. -o predictions.jsonl)")


class Ordered:
    """Enforces the output invariant: positions 0, 1, 2, ... each exactly once, `total` in all."""

    def __init__(self, total: int, source: str):
        self.total, self.source, self.next = total, source, 0

    def check(self, position: int) -> None:
        if position != self.next:
            raise InputError(f"{self.source}: internal error: output row {position} came where row {self.next} "
                             "belongs; nothing was written (please report this)")
        self.next += 1

    def finish(self) -> None:
        if self.next != self.total:
            raise InputError(f"{self.source}: internal error: {self.next} output rows for {self.total} input "
                             "records; nothing was written (please report this)")


class PredictionsOutput:
    """The output of one batch, inside `stack` (its lock, its file and the cleanup of a partial file). Made before
    any row is audited, so a wrong or busy output is refused before any work (or any paid request)."""

    def __init__(self, input_path: str, output_path: str, total: int, stack: ExitStack):
        refuse_output_over_input(input_path, output_path)
        self.path, self.stream, self.stack = output_path, is_stream(output_path), stack
        self.ordered = Ordered(total, input_path)
        self._out: Optional[TextIO] = None
        self._tmp: Optional[Path] = None
        if not self.stream:
            stack.enter_context(exclusive_output(output_path))

    @property
    def where(self) -> str:
        return "standard output" if self.stream else self.path

    def open(self) -> None:
        """Open the file the lines go to (a stream as it is; a file's `.partial` beside it)."""
        if self._out is not None:
            return
        if self.stream:  # appended: /dev/stderr redirected to a file must not lose what the file already holds
            self._out = sys.stdout if self.path == "-" else self.stack.enter_context(
                open(self.path, "a", encoding="utf-8"))
            return
        self._tmp = Path(f"{self.path}.partial")
        self._tmp.parent.mkdir(parents=True, exist_ok=True)
        self._out = self.stack.enter_context(open(self._tmp, "w", encoding="utf-8"))
        self.stack.callback(self._tmp.unlink, missing_ok=True)

    def write(self, position: int, line: str) -> None:
        """The line of the record at `position`, which must be the next one."""
        self.open()
        self.ordered.check(position)
        assert self._out is not None
        self._out.write(line + "\n")

    def commit(self) -> None:
        """Every line is there: a file is moved into place (the predictions are complete from here on)."""
        self.open()
        self.ordered.finish()
        assert self._out is not None
        self._out.flush()
        if self._tmp is not None:
            self._out.close()
            os.replace(self._tmp, self.path)
