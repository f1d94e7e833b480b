"""``python -m leagues ...`` is ``tute ...``."""

from leagues.console import main

main()
