"""Subcommands of ``infonce-bounds``; each module: ``HELP``, ``add_arguments``, ``run``."""
