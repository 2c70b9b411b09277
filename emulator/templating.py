"""The one jinja2 setup for the package's text templates (command files, ibsim net files)."""

from __future__ import annotations

from functools import cache

import jinja2


@cache
def package_env(package: str) -> jinja2.Environment:
    """An environment loading ``<package>/templates``: strict, no autoescape, trimmed blocks."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader(package, "templates"),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
