"""An external program speaking the line protocol (docs/protocol.md): any language, always isolated."""

from __future__ import annotations

from typing import Any

from .subprocess import SubprocessHost


class CommandHost(SubprocessHost):
    """An external program: its params, if any, travel in every ``new_game`` message."""

    def new_game(self, info: dict[str, Any]) -> None:
        if self.spec is not None and self.spec.params:
            info = dict(info, params=self.spec.params)
        super().new_game(info)
