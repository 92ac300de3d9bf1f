"""Errors a user can see: one line each, with the exit code the CLI returns."""

from __future__ import annotations


class SquadronError(Exception):
    """Base of every error the CLI turns into one line and an exit code."""

    exit_code = 1


class InputError(SquadronError):
    """Bad input from the user: parameters, YAML, command line (exit 2)."""

    exit_code = 2


class ToolError(SquadronError):
    """A tool failed or is missing: OpenSCAD, the slicer, the file system (exit 1)."""

    exit_code = 1


class CheckFailed(SquadronError):
    """Built meshes failed their checks (exit 1)."""

    exit_code = 1


class Interrupted(SquadronError):
    """Ctrl-C or SIGTERM during a command (exit 130, the shell's convention)."""

    exit_code = 130
