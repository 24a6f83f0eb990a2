"""The `rt4chart` command: audit one answer, predict over a file, benchmark against gold labels."""
from __future__ import annotations

import sys
import traceback
from typing import Optional

from rt4chart.cli.parser import build_parser
from rt4chart.core.errors import Rt4chartError
from rt4chart.core.version import __version__

EXIT_BUG = 70  # EX_SOFTWARE


def main(argv: Optional[list[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    args.argv = argv  # the command line, for a batch that must be run again later (`rt4chart runs resume`)
    try:
        code = args.func(args)
        again = getattr(args, "run_again", None)  # `runs resume`: a stored command line, run now
        return main(again) if again is not None else code
    except BrokenPipeError:
        _quiet_stdout()  # `rt4chart ... | head`: the reader is gone; end quietly
        return 141
    except (Rt4chartError, OSError) as exc:  # the user's input, configuration or machine: say what to fix
        if getattr(args, "debug", False):
            traceback.print_exc()
        print(f"rt4chart: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("rt4chart: interrupted", file=sys.stderr)
        return 130
    except Exception:  # anything else is a bug in rt4chart, not the user's mistake
        traceback.print_exc()
        print(f"rt4chart: internal error (a bug in rt4chart {__version__}, not in your input): please report it "
              "with the traceback above", file=sys.stderr)
        return EXIT_BUG


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot raise again."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
