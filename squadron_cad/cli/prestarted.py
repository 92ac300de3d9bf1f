"""A build process started before the maker clicks Build: `python -m squadron_cad.cli.prestarted`.

It imports the CLI and the build machinery (a second or more on a busy machine), then
waits for one line on standard input: the CLI's arguments as a JSON list. It runs them
as `squadron-cad` would, in this process, then ends. So a click's first progress event
comes in a fraction of a second, and the build itself is the CLI's, signalled and
stopped as a child in its own process group (squadron_cad.web.builds).
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    from squadron_cad import cli
    from squadron_cad.pipeline import transaction  # noqa: F401  (loaded now: the wait is the point)

    line = sys.stdin.readline()
    if not line.strip():
        return  # the server stopped before it needed this build
    arguments = json.loads(line)
    if not isinstance(arguments, list) or not all(isinstance(a, str) for a in arguments):
        sys.exit("squadron_cad.cli.prestarted: expected a JSON list of arguments")
    cli.main(arguments)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:  # stopped while it waited
        sys.exit(130)
