"""``python -m leagues ...`` is ``tute ...``."""

from leagues.cli import main

main()
