"""The `squadron-cad` command: parse, resolve parameters, call one library function, show
what it returns. One module per group of commands; `app` holds them, `main` runs them."""

# isort: off
# The commands register as their modules load, in the order `--help` lists them.
from squadron_cad.cli import kit_commands, info_commands, edition_commands, serve_command
from squadron_cad.cli import tool_commands
from squadron_cad.cli import options
from squadron_cad.cli.app import app, main

# isort: on

__all__ = [
    "app",
    "edition_commands",
    "info_commands",
    "kit_commands",
    "main",
    "options",
    "serve_command",
    "tool_commands",
]
